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
    ...(agents ? [
      { path: 'tools/list, no [assets]', ...m.toolsListNoAssets, baseline: 'Rust no-op Worker', baselineRps: b.rustNoop.rps },
      { path: 'tools/list', ...m.toolsList, baseline: 'agents peer (JS)', baselineRps: b.agentsList.rps },
      { path: 'tools/call echo (sync)', ...m.echo, baseline: 'agents peer echo', baselineRps: b.agentsEcho.rps },
    ] : []),
    { path: 'tasks/get', ...m.tasksGet, baseline: 'bare DO read', baselineRps: b.doRead.rps },
    { path: 'tasks/update (no-op ack)', ...m.tasksUpdate, baseline: 'bare DO write', baselineRps: b.doWrite.rps },
    { path: 'task creation', ...m.create, baseline: 'DO write, new object', baselineRps: b.doNew.rps },
    // One principal's creations all go through its one ledger object; sixteen spread them.
    { path: 'task creation, one key', ...m.createOneKey, baseline: 'the same, 16 keys', baselineRps: m.createKeys.rps },
  ].map((r) => ({ ...r, ratio: r.rps / r.baselineRps }));
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
