// `make bench`'s cold starts (tests/bench/run.mjs): the time from a fresh workerd process,
// hence a fresh isolate, to the Worker's first good response, for the project, the Rust
// no-op Worker and the JS no-op Worker, in rounds (one of each per round, so load on the
// shared cores falls on all three alike).
//
// Method. workerd creates a Worker's isolate when it starts (it compiles and evaluates the
// modules, the workers-rs shim instantiating the wasm, before it serves), so "the first
// request after wrangler dev is ready" is not a cold start: that isolate is already warm.
// A new isolate needs a new workerd process. This module spawns workerd itself (the binary
// wrangler uses, node_modules/workerd) with a config of its own holding that one Worker,
// and times from the spawn to the first response that succeeds, probing every PROBE_MS on a
// fresh connection; then it kills that workerd. So wrangler's own start-up (its bundling,
// its proxy, Miniflare's helper Workers) is left out entirely. What remains is workerd's
// process start-up plus the Worker's isolate start-up plus its first request; the JS no-op
// Worker is the first two with the least possible Worker, so project − JS no-op is the
// project's own isolate start-up and first request, and the ratios compare the three.
//
// The config is built from each Worker's wrangler.toml: its `main` bundle (every .js and
// .wasm module beside it, as worker-build writes them: no wrangler bundling), its
// compatibility date and flags, its [vars] as text bindings (plus `vars`, e.g. the test variables
// the bench runs the project with), its Durable Object bindings and classes (SQLite-backed
// as its migrations say, stored in memory). Left out: [assets] (in production the asset
// router is not part of the Worker's isolate) and [observability] (nothing local).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { ROOT, freePort } from '../support/server.mjs';

const WORKERD = join(ROOT, 'node_modules', 'workerd', 'bin', 'workerd');
const PROBE_MS = 2;

/**
 * The parts of a wrangler.toml the config needs: main, compatibility_date and _flags, [vars],
 * [[durable_objects.bindings]] and the migrations' new_sqlite_classes. Only the shapes
 * this repository's wrangler.toml files use (`key = "string"`, `key = ["a", "b"]`,
 * comments on their own lines); anything else in those tables is an error.
 */
export function readWranglerToml(path) {
  const out = { vars: {}, durableObjects: [], sqliteClasses: [] };
  let table = '';
  let entry;
  readFileSync(path, 'utf8').split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const header = /^\[\[?([^\]]+)\]\]?$/.exec(line);
    if (header) {
      table = header[1];
      entry = {};
      if (table === 'durable_objects.bindings') out.durableObjects.push(entry);
      return;
    }
    const kv = /^([A-Za-z0-9_]+)\s*=\s*(.+)$/.exec(line);
    if (!['', 'vars', 'durable_objects.bindings', 'migrations'].includes(table)) return;
    if (!kv) throw new Error(`${path}:${i + 1}: not understood: ${line}`);
    let value;
    try { value = JSON.parse(kv[2]); } catch { /* not a string or array of strings */ }
    if (value === undefined) {
      if (table === '') return; // top-level keys of other shapes (none needed here)
      throw new Error(`${path}:${i + 1}: expected a string or an array of strings: ${line}`);
    }
    if (table === '') out[kv[1]] = value;
    else if (table === 'vars') out.vars[kv[1]] = value;
    else if (table === 'durable_objects.bindings') entry[kv[1]] = value;
    else if (kv[1] === 'new_sqlite_classes') out.sqliteClasses.push(...value);
  });
  if (!out.main || !out.compatibility_date) throw new Error(`${path}: no main or compatibility_date`);
  return out;
}

const capnpString = (s) => JSON.stringify(String(s));

/**
 * A workerd config (capnp text) serving the Worker of `tomlPath` on 127.0.0.1:`port`, to be
 * written in `configDir` (workerd reads embedded files relative to the config's directory).
 */
export function workerdConfig(tomlPath, port, vars, configDir) {
  const toml = readWranglerToml(tomlPath);
  const main = join(dirname(tomlPath), toml.main);
  const dir = dirname(main);
  const files = [];
  const walk = (d) => readdirSync(d).sort().forEach((name) => {
    const p = join(d, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.(m?js|wasm)$/.test(name)) files.push(p);
  });
  walk(dir);
  // The main module first (workerd takes the first as the entry point).
  const modules = [main, ...files.filter((f) => f !== main)].map((f) => {
    const kind = f.endsWith('.wasm') ? 'wasm' : 'esModule';
    return `(name = ${capnpString(relative(dir, f))}, ${kind} = embed ${capnpString(relative(configDir, f))})`;
  });
  const bindings = [
    ...Object.entries({ ...toml.vars, ...vars }).map(([k, v]) => `(name = ${capnpString(k)}, text = ${capnpString(v)})`),
    ...toml.durableObjects.map((b) => `(name = ${capnpString(b.name)}, durableObjectNamespace = ${capnpString(b.class_name)})`),
  ];
  const namespaces = toml.durableObjects.map((b) =>
    `(className = ${capnpString(b.class_name)}, uniqueKey = ${capnpString(`bench-${b.class_name}`)}, enableSql = ${toml.sqliteClasses.includes(b.class_name)})`);
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ ${modules.join(',\n    ')} ],
  compatibilityDate = ${capnpString(toml.compatibility_date)},
  compatibilityFlags = [ ${(toml.compatibility_flags ?? []).map(capnpString).join(', ')} ],
  bindings = [ ${bindings.join(',\n    ')} ],
  durableObjectNamespaces = [ ${namespaces.join(', ')} ],
  durableObjectStorage = (inMemory = void),
);
`;
}

/** One request on a fresh connection: { status, text }. */
function request(port, req) {
  return new Promise((resolve, reject) => {
    const r = http.request({ host: '127.0.0.1', port, method: req.method, path: req.path, agent: false, timeout: 30_000,
      headers: req.body ? { ...req.headers, 'content-length': req.body.length } : req.headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    r.on('timeout', () => r.destroy(new Error('no answer within 30 s')));
    r.on('error', reject);
    r.end(req.body);
  });
}

/**
 * One cold start: spawns workerd on the Worker of `w.toml`; resolves to { ms: from the
 * spawn to the first response to `w.request` that `w.check` accepts (it throws on a wrong
 * answer; a refused connection is retried every PROBE_MS), nextMs: the same request once
 * more }. workerd is killed before it resolves.
 */
async function coldStart(w, timeoutMs = 60_000) {
  const { request: req, check } = w;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mcp-bench-cold-'));
  const config = join(dir, 'config.capnp');
  writeFileSync(config, workerdConfig(w.toml, port, w.vars ?? {}, dir));
  let log = '';
  const t0 = performance.now();
  const child = spawn(WORKERD, ['serve', config, '--experimental'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    while (true) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`workerd exited (${child.exitCode ?? child.signalCode}):\n${log}`);
      if (performance.now() - t0 > timeoutMs) throw new Error(`no good answer within ${timeoutMs} ms:\n${log}`);
      let res;
      try { res = await request(port, req); } catch (e) {
        if (e.code !== 'ECONNREFUSED' && e.code !== 'ECONNRESET') throw e;
        await new Promise((r) => setTimeout(r, PROBE_MS));
        continue;
      }
      const ms = performance.now() - t0;
      check(res);
      // The same request once more, to the now warm isolate (also on a new connection):
      // what the first response cost beyond it is start-up and first-request work.
      const t1 = performance.now();
      check(await request(port, req));
      return { ms, nextMs: performance.now() - t1 };
    }
  } finally {
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

/**
 * Cold starts of each of `workers` ({ name: { toml, vars?, request, check } }), `rounds`
 * times, one of each per round in the given order:
 * { name: { ms: [...], median, max, nextMs: [...], nextMedian } }.
 */
export async function coldStarts(workers, rounds, log = () => {}) {
  const out = Object.fromEntries(Object.keys(workers).map((k) => [k, { ms: [], nextMs: [] }]));
  for (let round = 1; round <= rounds; round++) {
    for (const [name, w] of Object.entries(workers)) {
      const { ms, nextMs } = await coldStart(w);
      out[name].ms.push(ms);
      out[name].nextMs.push(nextMs);
      log(`  round ${round}: ${name} ${ms.toFixed(0)} ms (next request ${nextMs.toFixed(1)} ms)`);
    }
  }
  for (const r of Object.values(out)) Object.assign(r, { median: median(r.ms), max: Math.max(...r.ms), nextMedian: median(r.nextMs) });
  return out;
}
