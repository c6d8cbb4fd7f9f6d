// `node tests/bench/rust-ceiling.mjs`: how far a Rust Worker with Rust Durable Objects is
// from the JS lifecycle ceiling on this runtime, beside the project, in one run. `make bench`
// judges the project's lifecycles and creation against bare JavaScript objects
// (tests/bench/baseline-js); the project is Rust on workers-rs, which pays the wasm boundary
// and its glue on every invocation. This script measures the same bare objects written with
// workers-rs (tests/bench/baseline-rust-ceiling: `POST /new`, `POST /new-alarm`, `POST /task`,
// `GET /task/<id>`, as the JS baseline's), so a target above what they reach is seen to be
// above what any Rust Worker reaches here, whatever the protocol costs.
//
// Straight to each workerd's own port (no wrangler proxy), in rounds, each round measuring
// the four back to back in an order that turns each round (the machine's load drifts): the
// JS objects, the Rust ones, the project, and the project at LOG_LEVEL=warn (it prints no
// line per task; the baselines print nothing, and under `wrangler dev` a line costs far more
// than on Cloudflare, docs/benchmarks.md):
//   creation     JS `POST /new`, Rust `POST /new`, the project's `tools/call slow_compute`
//                (30 s, each task cancelled after the round), BENCH_CONNECTIONS clients;
//                and the bare ones again with the alarm every task has (`POST /new-alarm`:
//                the record and its alarm, tests/bench/cost.mjs's floor of a creation)
//   lifecycles   create a 0.2 s task and poll it every 100 ms to completion
//                (tests/bench/lifecycles.mjs), at each of BENCH_LIFECYCLE_CONCURRENCY
// Ratios are medians of the rounds' ratios. The project runs as in `make bench` (fixtures on,
// quotas off). Settings: BENCH_ROUNDS=3, BENCH_SECONDS=5, BENCH_CONNECTIONS=8,
// BENCH_LIFECYCLE_SECONDS=8, BENCH_LIFECYCLE_CONCURRENCY=1,8,64. Exits non-zero on any error.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_VARS, startServer } from '../support/server.mjs';
import { ceilingTarget, lifecycles, mcpTarget } from './lifecycles.mjs';
import { measure, newAgent, pool } from './measure.mjs';
import { benchApiKeys, directPort, mcpRequest, resultOf, send, startWrangler } from './servers.mjs';

const env = (name, fallback) => Number(process.env[name] || fallback);
const SETTINGS = { connections: env('BENCH_CONNECTIONS', 8), seconds: env('BENCH_SECONDS', 5), warmupSeconds: 1, maxRequests: 200_000 };
const ROUNDS = env('BENCH_ROUNDS', 3);
const LIFECYCLE_SECONDS = env('BENCH_LIFECYCLE_SECONDS', 8);
const CONCURRENCY = String(process.env.BENCH_LIFECYCLE_CONCURRENCY || '1,8,64').split(',').map(Number).filter((n) => n > 0);
const POLL_MS = 100;
/** How the table names each server. */
const NAMES = { js: 'JS', rust: 'Rust', project: 'ours', quiet: 'warn' };
const HERE = import.meta.dirname;
const log = (msg) => console.error(`[rust-ceiling] ${msg}`);
const mcp = (method, params) => mcpRequest('bench', method, params);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : null; };
const okStatus = ({ status, text }) => { if (status !== 200) throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`); };

const servers = [];
let failed = false;
const checked = (label, r) => { if (r.errors) { failed = true; log(`  ${label}: ${r.errors} errors, first: ${r.firstError}`); } return r; };
try {
  const probe = (path) => async (url) => (await fetch(url + path)).status === 200;
  const mcpProbe = async (url) => {
    const r = mcp('tools/list');
    const res = await fetch(url + r.path, { method: r.method, headers: r.headers, body: r.body });
    return res.status === 200 && Array.isArray((await res.json()).result?.tools);
  };
  log('starting the JS baseline, the Rust ceiling and the project under wrangler dev');
  const js = await startWrangler({ configDir: join(HERE, 'baseline-js'), probe: probe('/noop') });
  servers.push(js);
  const rust = await startWrangler({ configDir: join(HERE, 'baseline-rust-ceiling'), probe: probe('/') });
  servers.push(rust);
  const vars = { TASK_POLL_INTERVAL_MS: String(POLL_MS), QUOTA_TASKS_PER_MINUTE: 'unlimited', QUOTA_LIVE_TASKS: 'unlimited',
    API_KEYS: benchApiKeys(TEST_VARS.API_KEYS) };
  const project = await startServer({ vars });
  servers.push(project);
  const quiet = await startServer({ vars: { ...vars, LOG_LEVEL: 'warn' } });
  servers.push(quiet);
  const ports = { js: (await directPort(js.port, probe('/noop'))).port, rust: (await directPort(rust.port, probe('/'))).port,
    project: (await directPort(project.port, mcpProbe)).port, quiet: (await directPort(quiet.port, mcpProbe)).port };
  log(`workerd ports: JS ${ports.js}, Rust ${ports.rust}, project ${ports.project}, project at warn ${ports.quiet}`);
  // Each ceiling reads back what it made, and refuses what it never made.
  const agent = newAgent(8);
  for (const port of [ports.js, ports.rust]) {
    const made = await ceilingTarget(port).create(agent);
    await ceilingTarget(port).get(agent, made.taskId);
    if ((await send(agent, port, 'GET', '/task/never-created', {})).status !== 404) throw new Error(`port ${port} read a task it never made`);
  }

  const targets = { js: ceilingTarget(ports.js), rust: ceilingTarget(ports.rust), project: mcpTarget(ports.project),
    quiet: mcpTarget(ports.quiet) };
  const order = ['js', 'rust', 'project', 'quiet'];
  const rounds = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const turn = order.map((_, i) => order[(i + round - 1) % order.length]);
    log(`round ${round} of ${ROUNDS} (${turn.join(', ')})`);
    const r = { create: {}, createAlarm: {}, lifecycles: {} };
    const created = [];
    const creating = (kind) => () => {
      const isCreated = (res) => { const t = resultOf(res); if (t.resultType !== 'task') throw new Error('not a task'); created.push([kind, t.taskId]); };
      return measure(ports[kind], mcp('tools/call', { name: 'slow_compute', arguments: { seconds: 30 } }), isCreated, SETTINGS);
    };
    const post = (kind, path) => measure(ports[kind], { method: 'POST', path, headers: {}, body: Buffer.alloc(0) }, okStatus, SETTINGS);
    // A bare object's two creations: its write alone, then with its alarm.
    const bare = (kind) => async () => {
      r.createAlarm[kind] = checked(`${kind} /new-alarm`, await post(kind, '/new-alarm')).rps;
      return post(kind, '/new');
    };
    const creations = { js: bare('js'), rust: bare('rust'), project: creating('project'), quiet: creating('quiet') };
    for (const kind of turn) r.create[kind] = checked(`${kind} creation`, await creations[kind]()).rps;
    for (const kind of ['project', 'quiet']) r.createAlarm[kind] = r.create[kind];
    const cancelled = await pool(created, 8, async ([kind, taskId]) => {
      const cancel = mcp('tasks/cancel', { taskId });
      return resultOf(await send(agent, ports[kind], cancel.method, cancel.path, cancel.headers, cancel.body));
    });
    log(`  cancelled ${cancelled}/${created.length} created tasks`);
    for (const n of CONCURRENCY) {
      r.lifecycles[n] = {};
      for (const kind of turn) {
        r.lifecycles[n][kind] = checked(`${kind} lifecycles at ${n}`, await lifecycles(targets[kind], n, LIFECYCLE_SECONDS, POLL_MS)).perSecond;
      }
      log(`  lifecycles at ${n}: ${order.map((k) => `${NAMES[k]} ${r.lifecycles[n][k].toFixed(1)}/s`).join(', ')}`);
    }
    rounds.push(r);
  }
  agent.destroy();

  const RATIOS = [['rust', 'js'], ['project', 'js'], ['project', 'rust'], ['quiet', 'js'], ['quiet', 'rust']];
  const cell = (text, width) => String(text).padStart(width);
  const row = (label, pick) => label.padEnd(24)
    + order.map((k) => cell(median(rounds.map((r) => pick(r)[k])).toFixed(1), 9)).join('')
    + RATIOS.map(([a, b]) => cell(`${median(rounds.map((r) => pick(r)[a] / pick(r)[b])).toFixed(2)}×`, 12)).join('');
  console.log(`Straight to workerd, medians of ${ROUNDS} rounds (per second; ratios are medians of the rounds' ratios);`
    + ' "warn": the project at LOG_LEVEL=warn (no line per task), the others at the default, info');
  console.log(''.padEnd(24) + order.map((k) => cell(NAMES[k], 9)).join('') + RATIOS.map(([a, b]) => cell(`${NAMES[a]}÷${NAMES[b]}`, 12)).join(''));
  console.log(row(`creation (c=${SETTINGS.connections})`, (r) => r.create));
  console.log(row('  bare ones with an alarm', (r) => r.createAlarm));
  for (const n of CONCURRENCY) console.log(row(`polling lifecycles, ${n}`, (r) => r.lifecycles[n]));
} catch (e) {
  failed = true;
  console.error(e);
}
for (const s of servers.reverse()) {
  await s.stop();
  if (s.persistDir) rmSync(s.persistDir, { recursive: true, force: true });
}
if (failed) {
  console.error('rust-ceiling: FAILED (errors above)');
  process.exit(1);
}
