// `make profile`: where the Worker's CPU goes on one hot path. Starts the project under
// `wrangler dev` (fixtures on, quotas off, as `make bench`), drives a closed-loop load on the
// chosen path, and samples the isolate's CPU through wrangler's DevTools port (the V8
// profiler: the Worker and its Durable Objects share the isolate locally). Prints self time
// per function, grouped by kind (wasm function, JS glue, runtime, idle), and the wasm
// functions with the most inclusive time. Before sampling, an unprofiled window of the same
// load measures the CPU time each process spent per operation (/proc/<pid>/stat: workerd,
// wrangler's proxy, this load generator): the profiler's own figures are inflated by its
// sampling and by the 2 cores being shared, so only its shares are meant to be compared, and
// even they can be far off for a single function: `jsonrpc::parse_message` showed 177 µs per
// `tools/list` here, while a build parsing every request ten more times cost 75 µs more of
// workerd CPU (docs/benchmarks.md, "Where the time goes"). A change is judged by
// `node tests/bench/ab.mjs`, not by the profile. A JS function is named by its line and column
// in the bundle and the start of its source (the bundle is minified and the runtime's glue
// anonymous). The profile itself is written next to this file (last-profile.cpuprofile) for
// Chrome DevTools' Performance panel.
//
// Settings (environment):
//   PROFILE_PATH=tools/list     tools/list | echo | tasks/get | tasks/update | create | lifecycle |
//                               listening (the same lifecycle on a listen stream), or
//                               noop | read | new-alarm: the JS baselines (tests/bench/baseline-js),
//                               to compare (new-alarm: a new object's write and alarm, the
//                               floor of `create`),
//                               or gateway: the gateway's inline call of the `agents` upstream's
//                               `greet` (tests/bench/gateway.mjs), the upstream under its own
//                               `wrangler dev`, the gateway's isolate profiled; or
//                               gateway-held: its `slow_sum` of 0 s (no hints: a job whose
//                               task object holds the call)
//   PROFILE_SECONDS=5           sampled seconds (after 1 s of warm-up)
//   PROFILE_CONNECTIONS=8
//   PROFILE_TOP=40              rows per table
//   PROFILE_LOG_LEVEL           the project's LOG_LEVEL (default: the test servers'; the
//                               gateway paths: warn)
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { openListen } from '../support/listen.mjs';
import { ROOT, TEST_KEYS, startServer } from '../support/server.mjs';
import { startAgentsUpstream } from './agents.mjs';
import { groupCpu, mcpRequest, resultOf, send, startWrangler, workerdPorts } from './servers.mjs';
import WebSocket from 'ws';

const mcp = (method, params) => mcpRequest('profile', method, params);

const env = (name, fallback) => process.env[name] || fallback;
const PATH = env('PROFILE_PATH', 'tools/list');
const SECONDS = Number(env('PROFILE_SECONDS', 5));
const CONNECTIONS = Number(env('PROFILE_CONNECTIONS', 8));
const TOP = Number(env('PROFILE_TOP', 40));

/**
 * A minimal DevTools protocol client, connected straight to workerd's own inspector (found
 * among the ports workerd listens on), not through wrangler's inspector proxy: a DevTools
 * client on the proxy makes it send Debugger.enable, and V8 then runs WebAssembly in its
 * unoptimized debugging tier, which would be profiled instead of the real code. (The `ws`
 * package: workerd's inspector refuses Node's own WebSocket.) Ids start high, above any
 * the runtime's other clients use.
 */
async function devtools(wranglerPort) {
  let port;
  for (const l of workerdPorts(wranglerPort).workerd) {
    const answer = await fetch(`http://127.0.0.1:${l.port}/json/version`, { signal: AbortSignal.timeout(5_000) })
      .then((r) => r.ok && r.json()).catch(() => null);
    if (answer && answer['Protocol-Version']) { port = l.port; break; }
  }
  if (!port) throw new Error("workerd's inspector port not found");
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  // Every wait has a deadline: a promise nothing settles would otherwise let Node exit
  // quietly with the server still running.
  const within = (promise, what, ms = 30_000) => {
    let timer;
    return Promise.race([promise, new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`devtools: ${what} did not answer within ${ms} ms`)), ms);
    })]).finally(() => clearTimeout(timer));
  };
  await within(new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); }), 'the WebSocket');
  let id = 1_000_000_000;
  const pending = new Map();
  ws.on('close', () => { for (const { reject } of pending.values()) reject(new Error('devtools: the inspector closed the connection')); });
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data));
    const waiter = pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id);
    if (msg.error) waiter.reject(new Error(`${msg.error.message}`)); else waiter.resolve(msg.result);
  });
  const cmd = (method, params = {}) => within(new Promise((resolve, reject) => {
    const n = ++id;
    pending.set(n, { resolve, reject });
    ws.send(JSON.stringify({ id: n, method, params }));
  }), method);
  return { cmd, close: () => ws.close(), title: target.title };
}

/** The request each loop sends, and its check. */
async function workload(server, agent) {
  const call = async (req) => resultOf(await send(agent, server.port, req.method, req.path, req.headers, req.body));
  switch (PATH) {
    case 'new-alarm':
      return async () => {
        const { status } = await send(agent, server.port, 'POST', '/new-alarm', {}, undefined);
        if (status !== 200) throw new Error(`/new-alarm: HTTP ${status}`);
      };
    case 'noop':
    case 'read':
      // The bare object answers a read 404 until its key is written once.
      if (PATH === 'read') await send(agent, server.port, 'POST', '/write', {}, undefined);
      return async () => {
        const { status } = await send(agent, server.port, 'GET', `/${PATH}`, {}, undefined);
        if (status !== 200) throw new Error(`/${PATH}: HTTP ${status}`);
      };
    case 'tools/list':
      return () => call(mcp('tools/list'));
    case 'echo':
      // The synchronous call `make bench` measures against the `agents` peer's.
      return () => call(mcp('tools/call', { name: 'echo', arguments: { text: 'bench' } }));
    case 'tasks/get':
    case 'tasks/update': {
      const task = await call(mcp('tools/call', { name: 'slow_compute', arguments: { seconds: 600 } }));
      const taskId = task.task?.taskId ?? task.taskId;
      return PATH === 'tasks/get'
        ? () => call(mcp('tasks/get', { taskId }))
        : () => call(mcp('tasks/update', { taskId, inputResponses: {} }));
    }
    case 'create':
      return () => call(mcp('tools/call', { name: 'slow_compute', arguments: { seconds: 30 } }));
    case 'lifecycle':
      return async () => {
        const task = await call(mcp('tools/call', { name: 'slow_compute', arguments: { seconds: 0.2 } }));
        const taskId = task.task?.taskId ?? task.taskId;
        for (;;) {
          await new Promise((r) => setTimeout(r, 100));
          const got = await call(mcp('tasks/get', { taskId }));
          if ((got.task?.status ?? got.status) === 'completed') return;
        }
      };
    case 'listening':
      // The listening lifecycle of tests/bench/lifecycles.mjs: the task's notifications
      // pushed on a subscriptions/listen stream, read to its end (no polls).
      return async () => {
        const task = await call(mcp('tools/call', { name: 'slow_compute', arguments: { seconds: 0.2 } }));
        const taskId = task.task?.taskId ?? task.taskId;
        const stream = await openListen(`http://127.0.0.1:${server.port}/mcp`, [taskId]);
        try {
          const rest = await stream.all(30_000);
          if (!rest.some((m) => m.method === 'notifications/tasks' && m.params?.status === 'completed')) {
            throw new Error(`listening: no completed notification (${stream.endedBy})`);
          }
        } finally {
          stream.close();
        }
      };
    case 'gateway':
      // Keyed, as a deployed gateway is called (and so on a kept upstream session).
      return () => call(mcpRequest('profile', 'tools/call', { name: 'agents_greet', arguments: { name: 'profile' } },
        { authorization: `Bearer ${TEST_KEYS.alice}` }));
    case 'gateway-held':
      return () => call(mcpRequest('profile', 'tools/call', { name: 'agents_slow_sum', arguments: { a: 1, b: 2, seconds: 0 } },
        { authorization: `Bearer ${TEST_KEYS.alice}` }));
    default:
      throw new Error(`PROFILE_PATH ${PATH}: not one of tools/list, echo, tasks/get, tasks/update, create, lifecycle, listening, gateway, gateway-held`);
  }
}

async function load(step, ms) {
  let count = 0;
  const end = performance.now() + ms;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < end) { await step(); count++; }
  }));
  return count;
}

/**
 * What each JS function of the profile is: the bundle is minified, many functions to a line,
 * and workerd's glue functions are anonymous, so a function's line and column are looked up
 * in its script's source (read after the profile: `Debugger.enable` makes V8 run WebAssembly
 * in its debugging tier). `at(frame)` gives « the source from the function's start », or ''.
 */
async function scriptSources(dt, profile) {
  const ids = new Set(profile.nodes.map((n) => n.callFrame).filter((f) => f.url && !f.url.startsWith('wasm://') && f.scriptId !== '0').map((f) => f.scriptId));
  const texts = new Map();
  try {
    await dt.cmd('Debugger.enable');
    for (const id of ids) texts.set(id, (await dt.cmd('Debugger.getScriptSource', { scriptId: id })).scriptSource.split('\n'));
  } catch (error) {
    console.error(`devtools: the sources of the profiled functions were not read (${error.message})`);
  }
  return {
    at(f) {
      const lines = f && texts.get(f.scriptId);
      if (!lines?.[f.lineNumber]) return '';
      const text = [lines[f.lineNumber].slice(f.columnNumber), ...lines.slice(f.lineNumber + 1, f.lineNumber + 4)].join(' ');
      return `  « ${text.replace(/\s+/g, ' ').slice(0, 90)} »`;
    },
  };
}

/** Self and inclusive sample time per node, grouped by function. */
function summarize(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const dt = new Map();
  profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0)));
  const total = [...dt.values()].reduce((a, b) => a + b, 0);
  const kind = (f) => {
    const name = f.functionName;
    if (name === '(idle)') return 'idle';
    if (name === '(program)' || name === '(garbage collector)') return 'runtime';
    if (f.url.startsWith('wasm://') || /^\$|wasm-function/.test(name)) return 'wasm';
    return 'js';
  };
  const label = (f) => `${f.functionName || '(anonymous)'}${f.url && !f.url.startsWith('wasm://') ? ` ${f.url.split('/').pop()}:${f.lineNumber + 1}:${f.columnNumber + 1}` : ''}`;
  const self = new Map();
  const frames = new Map(); // a label's call frame, for its source (`scriptSources`)
  const inclusive = new Map();
  const kinds = new Map();
  for (const [id, t] of dt) {
    const f = byId.get(id).callFrame;
    self.set(label(f), (self.get(label(f)) ?? 0) + t);
    frames.set(label(f), f);
    kinds.set(kind(f), (kinds.get(kind(f)) ?? 0) + t);
    const seen = new Set();
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const g = byId.get(n).callFrame;
      if (kind(g) !== 'wasm' || seen.has(label(g))) continue;
      seen.add(label(g));
      inclusive.set(label(g), (inclusive.get(label(g)) ?? 0) + t);
    }
  }
  return { total, self, frames, inclusive, kinds };
}

const BASELINE = ['noop', 'read', 'new-alarm'].includes(PATH);
const QUOTAS = { QUOTA_TASKS_PER_MINUTE: 'unlimited', QUOTA_LIVE_TASKS: 'unlimited', QUOTA_LISTEN_STREAMS: 'unlimited',
  ...(process.env.PROFILE_LOG_LEVEL && { LOG_LEVEL: process.env.PROFILE_LOG_LEVEL }) };
// The gateway's upstream (PROFILE_PATH=gateway or gateway-held): the `agents` Worker, on
// its workerd's port.
const upstream = PATH.startsWith('gateway') ? await startAgentsUpstream() : null;
const server = BASELINE
  ? await startWrangler({ configDir: join(ROOT, 'tests', 'bench', 'baseline-js'), probe: async (url) => (await fetch(`${url}/noop`)).ok })
  : await startServer({ vars: { ...QUOTAS, ...(upstream && {
    UPSTREAMS: JSON.stringify([{ name: 'agents', url: `http://127.0.0.1:${upstream.port}/mcp`, prefix: 'agents_' }]),
    LOG_LEVEL: 'warn' }) } }); // as tests/bench/gateway.mjs: each upstream call is an info line
const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS, maxFreeSockets: CONNECTIONS });
try {
  const step = await workload(server, agent);
  await load(step, 1000);
  const { group } = workerdPorts(server.port);
  const cpu0 = groupCpu(group);
  const self0 = process.cpuUsage();
  const plain = await load(step, SECONDS * 1000);
  const cpu1 = groupCpu(group);
  const selfUs = process.cpuUsage(self0);
  console.log(`${PATH}, unprofiled: ${plain} operations in ${SECONDS} s = ${(plain / SECONDS).toFixed(0)}/s over ${CONNECTIONS} connections; CPU per operation:`);
  for (const comm of Object.keys(cpu1)) {
    console.log(`  ${comm.padEnd(16)} ${((1e6 * (cpu1[comm] - (cpu0[comm] ?? 0))) / plain).toFixed(0).padStart(6)} µs`);
  }
  console.log(`  ${'load generator'.padEnd(16)} ${((selfUs.user + selfUs.system) / plain).toFixed(0).padStart(6)} µs\n`);
  // workerd's inspector sometimes drops a second DevTools session (wrangler holds one for
  // the logs): the profile is then taken again, up to three times.
  let dt, count, profile, sources;
  for (let attempt = 1; ; attempt++) {
    try {
      dt = await devtools(server.port);
      await dt.cmd('Profiler.enable');
      await dt.cmd('Profiler.setSamplingInterval', { interval: 100 });
      await dt.cmd('Profiler.start');
      count = await load(step, SECONDS * 1000);
      ({ profile } = await dt.cmd('Profiler.stop'));
      sources = await scriptSources(dt, profile);
      dt.close();
      break;
    } catch (error) {
      if (attempt === 3 || !/closed the connection/.test(error.message)) throw error;
      console.error(`${error.message}; profiling again (attempt ${attempt + 1} of 3)`);
    }
  }
  writeFileSync(join(ROOT, 'tests', 'bench', 'last-profile.cpuprofile'), JSON.stringify(profile));
  const { total, self, frames, inclusive, kinds } = summarize(profile);
  const busy = total - (kinds.get('idle') ?? 0);
  const us = (t) => `${(t / count).toFixed(1).padStart(8)} µs/req`;
  const pct = (t) => `${((100 * t) / busy).toFixed(1).padStart(5)}%`;
  console.log(`${PATH}: ${count} operations in ${SECONDS} s over ${CONNECTIONS} connections (isolate "${dt.title}")`);
  console.log(`isolate busy ${(busy / 1000).toFixed(0)} ms of ${(total / 1000).toFixed(0)} ms sampled = ${(busy / count).toFixed(1)} µs per operation`);
  for (const [k, t] of [...kinds].sort((a, b) => b[1] - a[1])) if (k !== 'idle') console.log(`  ${k.padEnd(8)} ${pct(t)} ${us(t)}`);
  console.log(`\nself time (busy), top ${TOP}:`);
  for (const [name, t] of [...self].filter(([n]) => n !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${pct(t)} ${us(t)}  ${name}${sources.at(frames.get(name))}`);
  console.log(`\nwasm functions by inclusive time, top ${TOP}:`);
  for (const [name, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${pct(t)} ${us(t)}  ${name}`);
} finally {
  agent.destroy();
  await server.stop();
  await upstream?.server.stop();
}
