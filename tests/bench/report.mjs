// `make bench`'s report beside the measurements (tests/bench/run.mjs): the bundle sizes, the
// hot-path rows with their ratios, and the servers' logs of a failed run.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../support/server.mjs';

/** The Worker files under `dir` (.wasm, .js, .mjs), each with its size and gzipped size. */
export function bundleSizes(dir) {
  const files = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(wasm|js|mjs)$/.test(name)) {
        const bytes = readFileSync(p);
        files.push({ file: relative(ROOT, p), bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
      }
    }
  };
  walk(dir);
  const sum = (f) => files.reduce((a, x) => a + x[f], 0);
  return { files, bytes: sum('bytes'), gzip: sum('gzip') };
}

/** The report's rows of one hot-path mode: each measurement `m` beside its baseline in `b`. */
export function hotPathRows(m, b, agents) {
  return [
    { path: 'tools/list', ...m.toolsList, baseline: 'JS no-op Worker', baselineRps: b.jsNoop.rps },
    { path: 'tools/list', ...m.toolsList, baseline: 'Rust no-op Worker', baselineRps: b.rustNoop.rps },
    { path: 'tools/list', ...m.toolsList, baseline: 'Rust, same exchange', baselineRps: b.rustExchange.rps },
    ...(agents ? [
      { path: 'tools/list, no [assets]', ...m.toolsListNoAssets, baseline: 'Rust no-op Worker', baselineRps: b.rustNoop.rps },
      { path: 'tools/list, no [assets]', ...m.toolsListNoAssets, baseline: 'Rust, same exchange', baselineRps: b.rustExchange.rps },
      { path: 'tools/list', ...m.toolsList, baseline: 'agents peer (JS)', baselineRps: b.agentsList.rps },
      { path: 'tools/call echo (sync)', ...m.echo, baseline: 'agents peer echo', baselineRps: b.agentsEcho.rps },
    ] : []),
    { path: 'tasks/get', ...m.tasksGet, baseline: 'bare DO read', baselineRps: b.doRead.rps },
    { path: 'tasks/get', ...m.tasksGet, baseline: 'Rust + object, same exchange', baselineRps: b.rustObject.rps },
    { path: 'tasks/update (no-op ack)', ...m.tasksUpdate, baseline: 'bare DO write', baselineRps: b.doWrite.rps },
    { path: 'task creation', ...m.create, baseline: 'DO write, new object', baselineRps: b.doNew.rps },
    // One principal's creations all go through its one ledger object; sixteen spread them.
    { path: 'task creation, one key', ...m.createOneKey, baseline: 'the same, 16 keys', baselineRps: m.createKeys.rps },
  ].map((r) => ({ ...r, ratio: r.rps / r.baselineRps }));
}

const median = (xs) => {
  const s = xs.filter((x) => typeof x === 'number' && !Number.isNaN(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/** One measurement of several rounds: the median of each figure, the errors of all. */
function medianMeasurement(all) {
  return { requests: all.reduce((a, r) => a + r.requests, 0), rps: median(all.map((r) => r.rps)),
    p50: median(all.map((r) => r.p50)), p99: median(all.map((r) => r.p99)),
    errors: all.reduce((a, r) => a + r.errors, 0), firstError: all.find((r) => r.errors)?.firstError };
}

/** The baselines of several rounds (`{ name: measurement }` each) as one. */
export function medianFigures(rounds) {
  return Object.fromEntries(Object.keys(rounds[0]).map((k) => [k, medianMeasurement(rounds.map((b) => b[k]))]));
}

/**
 * The rows of several rounds as one: the median of each figure, and as the ratio the
 * median of the rounds' ratios (each round's pair measured back to back), each of which is
 * kept in `rounds`.
 */
export function medianRows(rounds) {
  return rounds[0].map((row, i) => {
    const all = rounds.map((rows) => rows[i]);
    return { ...row, ...medianMeasurement(all), baselineRps: median(all.map((r) => r.baselineRps)),
      ratio: median(all.map((r) => r.ratio)), rounds: all.map((r) => r.ratio) };
  });
}

/**
 * What each server said, minus wrangler's per-request lines (restarts and crashes show
 * here): printed on stderr, and returned by server name for the report of a failed run.
 */
export function serverLogs(servers) {
  const names = ['JS baseline', 'Rust baseline', 'project'];
  const logs = {};
  servers.forEach((s, i) => {
    const name = s.name ?? names[i];
    const lines = s.log().replace(/\x1b\[[0-9;]*m/g, '').split('\n')
      .filter((l) => l.trim() && !/^\[wrangler:info\] (GET|POST) /.test(l) && !/workerd@[0-9a-f]+/.test(l));
    logs[name] = lines.slice(-40);
    console.error(`--- ${name}: ${s.name ? 'its output' : 'wrangler dev log (request lines left out)'}, last ${Math.min(lines.length, 40)} lines\n${lines.slice(-40).join('\n')}`);
  });
  return logs;
}
