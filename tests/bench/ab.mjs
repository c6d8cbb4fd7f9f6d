// A/B comparison of Worker builds on one hot path (a development tool for optimizing, not
// part of `make bench`): `node tests/bench/ab.mjs <dirA> <dirB> ...`, each dir holding a
// wrangler.toml whose `main` points at a built bundle (copy demo/build and wrangler.toml
// there, drop the [build] command, and give [assets] the absolute path of www/). The variants run one at a time, in rounds (A B A B ...), so a change in
// the machine's load affects them alike; each round reports requests per second and the
// CPU time workerd and wrangler's proxy spent per request (/proc/<pid>/stat), which the
// 2 shared cores disturb less than throughput.
//
// Settings: AB_PATH=tools/list | tasks/get | tasks/update | create | gateway (the inline
// call of the `agents` upstream's `greet`, keyed, as tests/bench/gateway.mjs and
// PROFILE_PATH=gateway make it; the upstream under its own `wrangler dev`, started once),
// AB_ROUNDS=3, AB_SECONDS=5, AB_CONNECTIONS=8, AB_DIRECT=1 (straight to workerd's own port,
// not wrangler's; the CPU columns count the same processes). A dir named `js` is the JS
// baseline's floor of the path (tests/bench/baseline-js: `/noop`, `/read`, `/write`,
// `/new-alarm`), to compare a build with. AB_LOG_LEVEL: the builds' LOG_LEVEL. AB_PATH=coldstart times cold starts instead
// (./coldstart.mjs: a workerd of its own per start, to the first `tools/list`), one of each
// build and of the JS no-op per round, and prints their medians.
import { rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { TEST_KEYS, TEST_VARS } from '../support/server.mjs';
import { startAgentsUpstream } from './agents.mjs';
import { coldStarts } from './coldstart.mjs';
import { benchApiKeys, directPort, groupCpu, mcpRequest, resultOf, send, startWrangler, workerdPorts } from './servers.mjs';

const mcp = (method, params) => mcpRequest('ab', method, params);

const PATH = process.env.AB_PATH || 'tools/list';
const ROUNDS = Number(process.env.AB_ROUNDS || 3);
const SECONDS = Number(process.env.AB_SECONDS || 5);
const CONNECTIONS = Number(process.env.AB_CONNECTIONS || 8);
const DIRECT = process.env.AB_DIRECT === '1';
const dirs = process.argv.slice(2);
if (!dirs.length) throw new Error('usage: node tests/bench/ab.mjs <dirA> <dirB> ...');

if (PATH === 'coldstart') {
  const vars = { ...TEST_VARS, API_KEYS: benchApiKeys(TEST_VARS.API_KEYS) };
  const isToolList = (r) => { if (!Array.isArray(resultOf(r).tools)) throw new Error('no tools'); };
  const workers = { 'JS no-op': { toml: join(import.meta.dirname, 'baseline-js', 'wrangler.toml'), request: { method: 'GET', path: '/noop', headers: {} },
    check: (r) => { if (r.status !== 200) throw new Error(`HTTP ${r.status}`); } } };
  for (const dir of dirs) workers[dir] = { toml: join(dir, 'wrangler.toml'), vars, request: mcpRequest('bench', 'tools/list'), check: isToolList };
  const c = await coldStarts(workers, ROUNDS);
  console.log(`cold starts to the first tools/list, medians of ${ROUNDS} rounds:`);
  for (const [name, r] of Object.entries(c)) console.log(`  ${name}: ${r.median.toFixed(1)} ms (the next request ${r.nextMedian.toFixed(2)} ms)`);
  process.exit(0);
}

async function call(agent, port, req) {
  return resultOf(await send(agent, port, req.method, req.path, req.headers, req.body));
}

const upstream = PATH === 'gateway' ? await startAgentsUpstream() : null;

/** The JS baseline's floor of each path (the pseudo-build `js`). */
const FLOORS = { 'tools/list': ['GET', '/noop'], 'tasks/get': ['GET', '/read'], 'tasks/update': ['POST', '/write'], create: ['POST', '/new-alarm'] };

async function round(dir) {
  const vars = { ...TEST_VARS, QUOTA_TASKS_PER_MINUTE: 'unlimited', QUOTA_LIVE_TASKS: 'unlimited', QUOTA_LISTEN_STREAMS: 'unlimited',
    ...(upstream && { UPSTREAMS: JSON.stringify([{ name: 'agents', url: `http://127.0.0.1:${upstream.port}/mcp`, prefix: 'agents_' }]),
      LOG_LEVEL: 'warn' }), ...(process.env.AB_LOG_LEVEL && { LOG_LEVEL: process.env.AB_LOG_LEVEL }) };
  const floor = dir === 'js' ? FLOORS[PATH] : null;
  if (dir === 'js' && !floor) throw new Error(`the JS baseline has no floor for ${PATH}`);
  const probe = floor ? async (url) => (await fetch(`${url}/noop`)).ok : async (url) => (await fetch(`${url}/mcp`, { method: 'OPTIONS' })).status < 500;
  const server = await startWrangler({ configDir: floor ? join(import.meta.dirname, 'baseline-js') : dir, probe, vars: floor ? {} : vars });
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS, maxFreeSockets: CONNECTIONS });
  try {
    // An answer only the Worker gives (other workerd ports answer OPTIONS too).
    const answers = floor ? probe : async (url) => {
      const r = mcp('tools/list');
      const res = await fetch(url + r.path, { method: r.method, headers: r.headers, body: r.body });
      return res.status === 200 && Array.isArray((await res.json()).result?.tools);
    };
    const port = DIRECT ? (await directPort(server.port, answers)).port : server.port;
    let step;
    if (floor) {
      // The bare object answers a read 404 until its key is written once.
      if (PATH === 'tasks/get') await send(agent, port, 'POST', '/write', {}, undefined);
      step = async () => {
        const { status } = await send(agent, port, floor[0], floor[1], {}, undefined);
        if (status !== 200) throw new Error(`${floor[1]}: HTTP ${status}`);
      };
    } else if (PATH === 'tools/list') step = () => call(agent, port, mcp('tools/list'));
    else if (PATH === 'gateway') {
      step = () => call(agent, port, mcpRequest('ab', 'tools/call', { name: 'agents_greet', arguments: { name: 'ab' } },
        { authorization: `Bearer ${TEST_KEYS.alice}` }));
    } else if (PATH === 'create') step = () => call(agent, port, mcp('tools/call', { name: 'slow_compute', arguments: { seconds: 30 } }));
    else {
      const task = await call(agent, port, mcp('tools/call', { name: 'slow_compute', arguments: { seconds: 600 } }));
      const taskId = task.task?.taskId ?? task.taskId;
      step = PATH === 'tasks/get'
        ? () => call(agent, port, mcp('tasks/get', { taskId }))
        : () => call(agent, port, mcp('tasks/update', { taskId, inputResponses: {} }));
    }
    const loop = async (ms) => {
      let n = 0;
      const end = performance.now() + ms;
      await Promise.all(Array.from({ length: CONNECTIONS }, async () => { while (performance.now() < end) { await step(); n++; } }));
      return n;
    };
    await loop(2000);
    const { group } = workerdPorts(server.port);
    const before = groupCpu(group);
    const n = await loop(SECONDS * 1000);
    const after = groupCpu(group);
    const per = (comm) => Math.round((1e6 * ((after[comm] ?? 0) - (before[comm] ?? 0))) / n);
    return { rps: n / SECONDS, workerd: per('workerd'), proxy: per('node') };
  } finally {
    agent.destroy();
    await server.stop();
    rmSync(server.persistDir, { recursive: true, force: true });
  }
}

const results = Object.fromEntries(dirs.map((d) => [d, []]));
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const dir of dirs) {
      const m = await round(dir);
      results[dir].push(m);
      console.log(`round ${r + 1} ${dir}: ${m.rps.toFixed(0)} req/s, workerd ${m.workerd} µs/req, proxy ${m.proxy} µs/req`);
    }
  }
} finally {
  await upstream?.server.stop();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`\n${PATH}, ${CONNECTIONS} connections, medians of ${ROUNDS} rounds:`);
for (const dir of dirs) {
  const ms = results[dir];
  console.log(`  ${dir}: ${median(ms.map((m) => m.rps)).toFixed(0)} req/s, workerd ${median(ms.map((m) => m.workerd))} µs/req`);
}
