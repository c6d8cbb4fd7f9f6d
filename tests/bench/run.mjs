// `make bench`: the project's hot paths under `wrangler dev`, each beside the runtime's own
// baseline measured IN THE SAME RUN (docs/benchmarks.md); no number is
// typed into this file.
//
// Baselines, built and started here next to the project:
//   tests/bench/baseline-js/    a JavaScript no-op Worker + a bare SQLite-backed Durable Object
//                               (routes /noop, /read, /write, /new; no build step) + the
//                               lifecycle ceiling (/task: a bare Durable Object task, below)
//   tests/bench/baseline-rust/  a workers-rs no-op Worker (built by its build.sh with worker-build,
//                               its own CARGO_TARGET_DIR); a POST to it reads the body whole
//                               and answers `x-answer-bytes` bytes of JSON, itself or (POST
//                               /object) through a Durable Object that reads one key
// The project runs with startServer() (tests/support/server.mjs: fixtures on).
//
// Each hot path is measured twice: through wrangler's port and straight to the port workerd
// itself listens on (found with `ss -ltnp` among the workerd processes of that wrangler's
// process group), which skips wrangler's proxy. Pairs are measured back to back:
//   tools/list                   vs the JS no-op Worker, and vs the Rust no-op Worker (a GET,
//                                an empty answer), and vs the Rust Worker's same exchange:
//                                the very tools/list POST, answered with as many bytes
//   tasks/get (a working task)   vs a bare DO read (storage.get in an existing object), and vs
//                                the Rust Worker and object's same exchange (the tasks/get
//                                POST passed to an object that reads one key and answers as
//                                many bytes, passed back)
//   tasks/update (no-op ack)     vs a bare DO write (storage.put in an existing object)
//   task creation (tools/call)   vs a write to a brand-new object (one put, fresh name)
//   creation by one API key      vs the same spread over sixteen keys (one ledger vs sixteen)
// and against the `agents` peer, the MCP server a Cloudflare user would write in JavaScript
// instead (./peer-agents: agents' createMcpHandler with an SDK v2 McpServer and an `echo`
// tool, from pinned npm packages installed by its install.sh, under wrangler dev like the
// project, stateless 2026-07-28, one POST per call; both get the very same requests):
//   tools/list                   vs the peer's tools/list
//   tools/call echo (sync call)  vs the peer's echo
// and tools/list of the same build served without `[assets]` (a copy of wrangler.toml
// without that section, ./no-assets/) vs the Rust no-op, which has none: what the local
// assets router in front of the Worker costs each /mcp request under wrangler dev.
// Then full task lifecycles at several concurrencies, polling and then listening, beside the
// lifecycle ceiling and the rmcp peer, straight to workerd first and then through wrangler's
// port (./lifecycles.mjs says how).
// Before the hot paths, cold starts (./coldstart.mjs): a fresh workerd process, hence a fresh
// isolate, for the project, the Rust no-op and the JS no-op Worker, spawn → first good
// response, in rounds; the table gives medians, maxima and project ÷ each no-op.
// The peer gets the same requests plus `Accept: application/json, text/event-stream` (rmcp
// answers 406 without it; the project's requests are left as they were); the table gives the
// ratio project per s ÷ peer per s.
//
// The client is node:http with keep-alive, one request in flight per connection, no
// Accept-Encoding (nothing is compressed: on Cloudflare the edge compresses, not the Worker);
// every response is checked (HTTP 200, a JSON-RPC result of the expected shape) and any
// failure makes the run exit non-zero. So does a rebuild/reload of the project's wrangler dev
// during the run (a file under src/ changed); if workerd's own port moves (wrangler restarted
// workerd) the next measurement finds it again and the report says so. The load generator
// shares the machine's cores with workerd; the report gives the load average and how many
// other workerd processes were running. Tasks created by the creation measurement are
// cancelled right after it. The project runs with quotas off (QUOTA_*=unlimited).
//
// Settings (environment):
//   BENCH_CONNECTIONS=8           connections for the hot paths
//   BENCH_SECONDS=5               measured seconds per hot path
//   BENCH_ROUNDS=3                rounds of all hot paths; each figure is the median of the
//                                 rounds', each ratio the median of the rounds' ratios
//   BENCH_WARMUP_SECONDS=1        unmeasured warm-up before each (same connections)
//   BENCH_MAX_REQUESTS=200000     cap per measurement (it ends at the time or the count)
//   BENCH_LIFECYCLE_SECONDS=10    seconds per lifecycle concurrency
//   BENCH_LIFECYCLE_CONCURRENCY=1,8,64
//   BENCH_DIRECT=1                also measure straight to workerd (0: wrangler's port only)
//   BENCH_PEER=1                  also run the lifecycles against the rmcp peer (0: skip it)
//   BENCH_AGENTS=1                also measure the agents peer and the build without [assets] (0: skip)
//   BENCH_COLD_STARTS=5           cold starts of each Worker (rounds; 0: skip them)
// Output: the tables on stdout (./tables.mjs prints them), everything as JSON in
// tests/bench/last-run.json.
// The load loop is ./measure.mjs; the report's sizes, rows and logs are ./report.mjs; the
// agents peer's packages and the build without [assets] are ./agents.mjs.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT, TEST_VARS, startServer } from '../support/server.mjs';
import { peerAgentsPackages, writeNoAssetsConfig } from './agents.mjs';
import { coldStarts } from './coldstart.mjs';
import { printTables } from './tables.mjs';
import { ceilingTarget, lifecycleRuns } from './lifecycles.mjs';
import { measure as measureLoad, newAgent, pool } from './measure.mjs';
import { bundleSizes, hotPathRows, medianFigures, medianRows, serverLogs } from './report.mjs';
import { BENCH_KEYS, benchApiKeys, directPort, mcpRequest, resultOf, send, startPeer, startWrangler, workerdPorts, workerdProcesses } from './servers.mjs';

const env = (name, fallback) => (process.env[name] === undefined || process.env[name] === '' ? fallback : process.env[name]);
const SETTINGS = {
  connections: Number(env('BENCH_CONNECTIONS', 8)),
  seconds: Number(env('BENCH_SECONDS', 5)),
  warmupSeconds: Number(env('BENCH_WARMUP_SECONDS', 1)),
  maxRequests: Number(env('BENCH_MAX_REQUESTS', 200_000)),
  lifecycleSeconds: Number(env('BENCH_LIFECYCLE_SECONDS', 10)),
  lifecycleConcurrency: String(env('BENCH_LIFECYCLE_CONCURRENCY', '1,8,64')).split(',').map(Number).filter((n) => n > 0),
  direct: env('BENCH_DIRECT', '1') !== '0',
  peer: env('BENCH_PEER', '1') !== '0',
  agents: env('BENCH_AGENTS', '1') !== '0',
  coldStartRounds: Number(env('BENCH_COLD_STARTS', 5)),
  rounds: Math.max(1, Number(env('BENCH_ROUNDS', 3))),
  pollIntervalMs: 100,
};
const HERE = join(ROOT, 'tests', 'bench');
const started = Date.now();
const log = (msg) => console.error(`[bench +${((Date.now() - started) / 1000).toFixed(0)}s] ${msg}`);

// ---------------------------------------------------------------- requests

const mcp = (method, params, extraHeaders) => mcpRequest('bench', method, params, extraHeaders);

/** What the rmcp peer needs beyond the project's requests: rmcp answers 406 without it. */
const PEER_HEADERS = { accept: 'application/json, text/event-stream' };

const okStatus = ({ status, text }) => { if (status !== 200) throw new Error(`HTTP ${status}: ${text.slice(0, 300)}`); };

async function call(agent, port, req) { return resultOf(await send(agent, port, req.method, req.path, req.headers, req.body)); }

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const measure = (port, req, check) => measureLoad(port, req, check, SETTINGS);

/**
 * The project's request `req` as the Rust baseline repeats it at `path` (with nothing of
 * the protocol): the same request, asking for as many bytes as the project answered it with.
 */
async function sameExchange(port, req, path) {
  const answered = await fetch(`http://127.0.0.1:${port}${req.path}`, { method: req.method, headers: req.headers, body: req.body });
  const bytes = (await answered.arrayBuffer()).byteLength;
  return { bytes, request: { ...req, path, headers: { ...req.headers, 'x-answer-bytes': String(bytes) } } };
}

// ---------------------------------------------------------------- the run

const servers = [];
let failed = false;
const report = { date: new Date().toISOString(), machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, loadavgAtStart: loadavg() },
  settings: SETTINGS, client: `node:http keep-alive (Node ${process.version})`, servers: {}, sizes: {}, hotPaths: {}, baselines: {}, lifecycles: [], listeningLifecycles: [], coldStarts: null };

// Interrupted (Ctrl-C, timeout): stop the servers we started before leaving.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    await Promise.all(servers.map((s) => s.stop().catch(() => {})));
    process.exit(130);
  });
}
// Other workerd processes (someone else's tests) share the cores: say so in the report.
report.machine.otherWorkerdAtStart = workerdProcesses().length;
if (report.machine.otherWorkerdAtStart) log(`note: ${report.machine.otherWorkerdAtStart} other workerd process(es) are running on this machine`);
try {
  log('building the Rust no-op baseline (tests/bench/baseline-rust/build.sh)');
  const build = spawnSync('sh', [join(HERE, 'baseline-rust', 'build.sh')], { stdio: 'inherit', timeout: 900_000 });
  if (build.status !== 0) throw new Error(`the Rust baseline did not build (exit ${build.status})`);
  if (SETTINGS.agents) {
    log('installing the agents peer (tests/bench/peer-agents/install.sh)');
    const install = spawnSync('sh', [join(HERE, 'peer-agents', 'install.sh')], { stdio: 'inherit', timeout: 600_000 });
    if (install.status !== 0) throw new Error(`the agents peer did not install (exit ${install.status})`);
  }
  if (SETTINGS.peer) {
    log('building the rmcp peer (tests/bench/peer-rmcp/build.sh)');
    const peerBuild = spawnSync('sh', [join(HERE, 'peer-rmcp', 'build.sh')], { stdio: 'inherit', timeout: 900_000 });
    if (peerBuild.status !== 0) throw new Error(`the rmcp peer did not build (exit ${peerBuild.status})`);
  }

  const baselineProbe = (path) => async (url) => (await fetch(url + path)).status === 200;
  log('starting the baselines and the project under wrangler dev');
  const js = await startWrangler({ configDir: join(HERE, 'baseline-js'), probe: baselineProbe('/noop') });
  servers.push(js);
  const rust = await startWrangler({ configDir: join(HERE, 'baseline-rust'), probe: baselineProbe('/') });
  servers.push(rust);
  // Quotas off (QUOTA_*, where the server has them) so the load is never refused; the
  // server still counts each creation in its per-principal ledger. Every request comes from
  // one principal, anonymous, as in the other test layers.
  const projectVars = { TASK_POLL_INTERVAL_MS: String(SETTINGS.pollIntervalMs), QUOTA_TASKS_PER_MINUTE: 'unlimited', QUOTA_LIVE_TASKS: 'unlimited',
    API_KEYS: benchApiKeys(TEST_VARS.API_KEYS) };
  report.projectVars = projectVars;
  const project = await startServer({ vars: projectVars });
  servers.push(project);
  const mcpProbe = async (url) => {
    const r = mcp('tools/list');
    const res = await fetch(url + r.path, { method: r.method, headers: r.headers, body: r.body });
    return res.status === 200 && Array.isArray((await res.json()).result?.tools);
  };
  // The agents peer, and the project's own build served without [assets].
  let agents;
  let noAssets;
  if (SETTINGS.agents) {
    agents = await startWrangler({ configDir: join(HERE, 'peer-agents'), probe: mcpProbe });
    agents.name = 'agents peer';
    servers.push(agents);
    noAssets = await startWrangler({ configDir: writeNoAssetsConfig(), probe: mcpProbe, vars: { ...TEST_VARS, ...projectVars } });
    noAssets.name = 'project without [assets]';
    servers.push(noAssets);
  }
  // The rmcp peer, checked like the project: tools/list answers, slow_compute becomes a task.
  let peer;
  if (SETTINGS.peer) {
    const peerProbe = async (url) => {
      const r = mcp('tools/list', {}, PEER_HEADERS);
      const res = await fetch(url + r.path, { method: r.method, headers: r.headers, body: r.body });
      return res.status === 200 && Array.isArray((await res.json()).result?.tools);
    };
    peer = await startPeer({ binary: join(HERE, 'peer-rmcp', 'target', 'release', 'bench-peer-rmcp'), pollIntervalMs: SETTINGS.pollIntervalMs, probe: peerProbe });
    peer.name = 'rmcp peer';
    servers.push(peer);
    const peerAgent = newAgent(1);
    const peerTask = await call(peerAgent, peer.port, mcp('tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }, PEER_HEADERS));
    peerAgent.destroy();
    if (peerTask.resultType !== 'task') throw new Error(`the peer's slow_compute did not become a task: ${JSON.stringify(peerTask)}`);
    report.peerPollIntervalMs = peerTask.pollIntervalMs ?? null;
  }
  // wrangler dev rebuilds and restarts workerd when the project's sources change: a run
  // during which that happened measured a moving target (and workerd's own port moves).
  const logAtReady = project.log().length;
  const count = (re) => (project.log().slice(logAtReady).match(re) ?? []).length;
  const reloads = () => ({ builds: count(/\[custom build\] Running/g), reloads: count(/Reloading local server/g) });

  // Cold starts, while the servers above idle (wrangler has built the project's bundle):
  // a workerd of our own per start, one Worker in it (./coldstart.mjs says why and how).
  if (SETTINGS.coldStartRounds > 0) {
    log(`cold starts: spawn workerd → first good response, ${SETTINGS.coldStartRounds} rounds of JS no-op, Rust no-op, project`);
    const isToolList = (r) => { if (!Array.isArray(resultOf(r).tools)) throw new Error('no tools'); };
    const c = await coldStarts({
      js: { toml: join(HERE, 'baseline-js', 'wrangler.toml'), request: { method: 'GET', path: '/noop', headers: {} }, check: okStatus },
      rust: { toml: join(HERE, 'baseline-rust', 'wrangler.toml'), request: { method: 'GET', path: '/', headers: {} }, check: okStatus },
      project: { toml: join(ROOT, 'wrangler.toml'), vars: { ...TEST_VARS, ...projectVars }, request: mcp('tools/list'), check: isToolList },
    }, SETTINGS.coldStartRounds, log);
    report.coldStarts = { ...c, firstRequest: { js: 'GET /noop', rust: 'GET /', project: 'POST /mcp tools/list' },
      projectMinusJsMs: c.project.median - c.js.median, projectMinusRustMs: c.project.median - c.rust.median,
      ratioToJs: c.project.median / c.js.median, ratioToRust: c.project.median / c.rust.median };
  }

  // Fixtures the hot paths act on (through wrangler's port).
  const setupAgent = newAgent(8);
  const p = project.port;
  okStatus(await send(setupAgent, js.port, 'POST', '/write', {}, Buffer.alloc(0))); // the key /read reads
  // The ceiling's answers are checked ones: a task it made reads back under its id, an id it
  // never made is a 404 (not an empty 200 that would count as a poll).
  const ceilingTask = await ceilingTarget(js.port).create(setupAgent);
  await ceilingTarget(js.port).get(setupAgent, ceilingTask.taskId);
  const unknown = await send(setupAgent, js.port, 'GET', '/task/never-created', {});
  if (unknown.status !== 404) throw new Error(`the ceiling answered ${unknown.status} for a task it never created`);
  const working = await call(setupAgent, p, mcp('tools/call', { name: 'slow_compute', arguments: { seconds: 3600 } }));
  if (working.resultType !== 'task') throw new Error(`slow_compute did not become a task: ${JSON.stringify(working)}`);
  report.serverPollIntervalMs = working.pollIntervalMs ?? null; // what lifecycle clients wait between polls
  // The exchanges the Rust baseline repeats: tools/list's (POST /) and tasks/get's through
  // its object (POST /object).
  const listExchange = await sameExchange(p, mcp('tools/list'), '/');
  const getExchange = await sameExchange(p, mcp('tasks/get', { taskId: working.taskId }), '/object');
  report.toolsListBytes = listExchange.bytes;
  report.tasksGetBytes = getExchange.bytes;
  const asking = await call(setupAgent, p, mcp('tools/call', { name: 'confirm_delete', arguments: { filename: 'x' } }));
  for (let i = 0; asking.status !== 'input_required'; i++) {
    if (i > 100) throw new Error(`confirm_delete never reached input_required: ${JSON.stringify(asking)}`);
    await sleep(100);
    Object.assign(asking, await call(setupAgent, p, mcp('tasks/get', { taskId: asking.taskId })));
  }

  const ports = { wrangler: { js: js.port, rust: rust.port, project: p } };
  report.servers = { js: { wranglerPort: js.port }, rust: { wranglerPort: rust.port }, project: { wranglerPort: p } };
  if (agents) {
    Object.assign(ports.wrangler, { agents: agents.port, noAssets: noAssets.port });
    report.servers.agents = { wranglerPort: agents.port, packages: peerAgentsPackages() };
    report.servers.noAssets = { wranglerPort: noAssets.port };
  }
  if (peer) report.servers.peer = { port: peer.port, pid: peer.pid, sdk: 'rmcp 3.11.0 (native, tokio + hyper)' };
  if (SETTINGS.direct) {
    const d = { js: await directPort(js.port, baselineProbe('/noop')), rust: await directPort(rust.port, baselineProbe('/')),
      project: await directPort(p, mcpProbe) };
    if (agents) Object.assign(d, { agents: await directPort(agents.port, mcpProbe), noAssets: await directPort(noAssets.port, mcpProbe) });
    ports.direct = Object.fromEntries(Object.entries(d).map(([k, v]) => [k, v.port]));
    for (const k of Object.keys(d)) Object.assign(report.servers[k], { directPort: d[k].port, workerdPid: d[k].workerdPid, wranglerPid: d[k].wranglerPid, workerdListeners: d[k].listeners.map((l) => l.port) });
  }
  for (const [k, s] of Object.entries(report.servers)) {
    if (k === 'peer') log(`peer: port ${s.port} (pid ${s.pid})`);
    else log(`${k}: wrangler port ${s.wranglerPort}${s.directPort ? `, workerd port ${s.directPort} (pid ${s.workerdPid})` : ''}`);
  }

  const isTools = (r) => { if (!Array.isArray(resultOf(r).tools)) throw new Error('no tools'); };
  const isWorking = (r) => { const t = resultOf(r); if (t.status !== 'working') throw new Error(`task is ${t.status}`); };
  const isAck = (r) => { resultOf(r); };
  let created = [];
  const isCreated = (r) => { const t = resultOf(r); if (t.resultType !== 'task') throw new Error('not a task'); created.push(t.taskId); };

  // workerd's own port moves if wrangler restarts workerd: check it before each measurement.
  const probes = { js: baselineProbe('/noop'), rust: baselineProbe('/'), project: mcpProbe, agents: mcpProbe, noAssets: mcpProbe };
  const isEcho = (r) => { if (resultOf(r).content?.[0]?.text !== 'bench') throw new Error(`not the echo: ${r.text.slice(0, 200)}`); };
  const echo = mcp('tools/call', { name: 'echo', arguments: { text: 'bench' } });
  report.directPortMoves = [];
  /** The port of server `kind` in `mode`, workerd's own checked first (it may have moved). */
  const current = async (mode, kind) => {
    const port = ports[mode];
    if (mode === 'wrangler' || await probes[kind](`http://127.0.0.1:${port[kind]}`).catch(() => false)) return port[kind];
    const moved = await directPort(ports.wrangler[kind], probes[kind]);
    log(`    ${kind}: workerd's own port moved from ${port[kind]} to ${moved.port} (wrangler restarted workerd)`);
    report.directPortMoves.push({ server: kind, from: port[kind], to: moved.port, at: (Date.now() - started) / 1000 });
    port[kind] = moved.port;
    return moved.port;
  };
  // Every mode's pairs, round after round (BENCH_ROUNDS): the machine's load drifts over
  // minutes, so the ratios reported are the medians of the rounds' (tests/bench/report.mjs).
  const rounds = Object.fromEntries(Object.keys(ports).map((mode) => [mode, []]));
  for (let round = 1; round <= SETTINGS.rounds; round++) for (const mode of Object.keys(ports)) {
    const at = (kind) => current(mode, kind);
    log(`hot paths, ${mode === 'wrangler' ? "through wrangler's port" : 'straight to workerd'}, round ${round} of ${SETTINGS.rounds}`);
    const b = {};
    const m = {};
    const run = async (label, fn) => { log(`  ${label}`); const r = await fn(); if (r.errors) { failed = true; log(`    ${r.errors} errors, first: ${r.firstError}`); } return r; };
    // Each pair back to back, the baseline first.
    b.jsNoop = await run('JS no-op Worker', async () => measure(await at('js'), { method: 'GET', path: '/noop', headers: {} }, okStatus));
    b.rustNoop = await run('Rust no-op Worker', async () => measure(await at('rust'), { method: 'GET', path: '/', headers: {} }, okStatus));
    b.rustExchange = await run(`Rust Worker, tools/list's exchange (the POST read, ${listExchange.bytes} bytes answered)`, async () =>
      measure(await at('rust'), listExchange.request, okStatus));
    if (agents) b.agentsList = await run('agents peer: tools/list', async () => measure(await at('agents'), mcp('tools/list'), isTools));
    m.toolsList = await run('tools/list', async () => measure(await at('project'), mcp('tools/list'), isTools));
    if (agents) {
      m.toolsListNoAssets = await run('tools/list, the build without [assets]', async () => measure(await at('noAssets'), mcp('tools/list'), isTools));
      b.agentsEcho = await run('agents peer: tools/call echo', async () => measure(await at('agents'), echo, isEcho));
      m.echo = await run('tools/call echo', async () => measure(await at('project'), echo, isEcho));
    }
    b.doRead = await run('bare DO read', async () => measure(await at('js'), { method: 'GET', path: '/read', headers: {} }, okStatus));
    b.rustObject = await run(`Rust Worker and object, tasks/get's exchange (${getExchange.bytes} bytes answered)`, async () =>
      measure(await at('rust'), getExchange.request, okStatus));
    m.tasksGet = await run('tasks/get', async () => measure(await at('project'), mcp('tasks/get', { taskId: working.taskId }), isWorking));
    b.doWrite = await run('bare DO write', async () => measure(await at('js'), { method: 'POST', path: '/write', headers: {}, body: Buffer.alloc(0) }, okStatus));
    m.tasksUpdate = await run('tasks/update', async () => measure(await at('project'),
      mcp('tasks/update', { taskId: asking.taskId, inputResponses: { nope: { action: 'accept', content: {} } } }), isAck));
    const still = await call(setupAgent, p, mcp('tasks/get', { taskId: asking.taskId }));
    if (still.status !== 'input_required') { failed = true; log(`    the task answered by tasks/update is ${still.status}, not input_required`); }
    b.doNew = await run('bare DO write to a new object', async () => measure(await at('js'), { method: 'POST', path: '/new', headers: {}, body: Buffer.alloc(0) }, okStatus));
    created = [];
    m.create = await run('task creation', async () => measure(await at('project'), mcp('tools/call', { name: 'slow_compute', arguments: { seconds: 30 } }), isCreated));
    const ids = created;
    // The same creations, authenticated: all by one key, then spread over sixteen; each
    // task is cancelled afterwards by the key that created it.
    const byKey = (pick) => () => {
      const key = BENCH_KEYS[pick()];
      return { ...mcp('tools/call', { name: 'slow_compute', arguments: { seconds: 30 } }, { authorization: `Bearer ${key}` }), key };
    };
    const keyed = [];
    const isCreatedBy = (r, req) => { const t = resultOf(r); if (t.resultType !== 'task') throw new Error('not a task'); keyed.push([t.taskId, req.key]); };
    let n = 0;
    m.createOneKey = await run('task creation, one key', async () => measure(await at('project'), byKey(() => 0), isCreatedBy));
    m.createKeys = await run('task creation, 16 keys', async () => measure(await at('project'), byKey(() => n++ % BENCH_KEYS.length), isCreatedBy));
    const keyedCancelled = await pool(keyed, SETTINGS.connections, ([taskId, key]) =>
      call(setupAgent, p, mcp('tasks/cancel', { taskId }, { authorization: `Bearer ${key}` })));
    log(`    cancelled ${keyedCancelled}/${keyed.length} tasks created by key`);
    const t0 = Date.now();
    const cancelled = await pool(ids, SETTINGS.connections, (taskId) => call(setupAgent, p, mcp('tasks/cancel', { taskId })));
    log(`    cancelled ${cancelled}/${ids.length} created tasks in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    m.create.cancelled = cancelled;
    m.create.createdIncludingWarmup = ids.length;

    rounds[mode].push({ m, b });
  }
  for (const [mode, done] of Object.entries(rounds)) {
    report.baselines[mode] = medianFigures(done.map((r) => r.b));
    report.hotPaths[mode] = medianRows(done.map((r) => hotPathRows(r.m, r.b, agents)));
  }

  const checked = (label, r) => { if (r.errors) { failed = true; log(`    ${label}: ${r.errors} errors, first: ${r.firstError}`); } return r; };
  // Straight to workerd first (as in production, no proxy in front), then through wrangler's.
  const routes = [...(ports.direct ? ['direct'] : []), 'wrangler'].map((route) =>
    ({ route, ports: async () => ({ ceiling: await current(route, 'js'), project: await current(route, 'project') }) }));
  Object.assign(report, await lifecycleRuns({ routes, peerPort: peer?.port, peerHeaders: PEER_HEADERS, settings: SETTINGS, log, checked }));
  await call(setupAgent, p, mcp('tasks/cancel', { taskId: working.taskId }));
  await call(setupAgent, p, mcp('tasks/cancel', { taskId: asking.taskId }));
  setupAgent.destroy();

  report.projectReloads = reloads();
  if (report.projectReloads.builds || report.projectReloads.reloads) {
    failed = true;
    log(`the project's wrangler dev ran its build ${report.projectReloads.builds} time(s) and reloaded ${report.projectReloads.reloads} time(s) during the run (a file under src/ changed?): its numbers are not trustworthy`);
    report.projectLogTail = project.log().slice(-4000);
  }
  // The project's bundle directory is where wrangler.toml's `main` lives.
  const main = /^main\s*=\s*"([^"]+)"/m.exec(readFileSync(join(ROOT, 'wrangler.toml'), 'utf8'))?.[1];
  const ours = new Set([js.pid, rust.pid, workerdPorts(p).group, agents?.pid, noAssets?.pid]);
  report.machine.otherWorkerdAtEnd = workerdProcesses().filter((w) => !ours.has(w.pgid)).length;
  report.sizes.project = bundleSizes(dirname(join(ROOT, main ?? 'build/index.js')));
  report.sizes.rustNoop = bundleSizes(join(HERE, 'baseline-rust', 'build'));
} catch (e) {
  failed = true;
  report.error = e.stack ?? String(e);
  console.error(e);
}
if (failed) try { report.logs = serverLogs(servers); } catch (e) { console.error(e); }
for (const s of servers.reverse()) {
  await s.stop();
  if (s.persistDir) try { rmSync(s.persistDir, { recursive: true, force: true }); } catch { /* best effort */ }
}

// ---------------------------------------------------------------- the tables

report.loadavgAtEnd = loadavg();
report.wallSeconds = (Date.now() - started) / 1000;
writeFileSync(join(HERE, 'last-run.json'), `${JSON.stringify(report, null, 2)}\n`);

printTables(report, SETTINGS);
if (failed) {
  console.error(`bench: FAILED${report.error ? `: ${report.error.split('\n')[0]}` : ' (errors above)'}`);
  process.exit(1);
}
