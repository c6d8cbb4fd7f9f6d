// `make bench`'s gateway figures (docs/gateway.md, docs/benchmarks.md "The gateway"): what
// the gateway costs a call of an upstream tool, against calling the upstream directly and
// against the least any gateway on this runtime costs, IN THE SAME RUN. The upstream is an
// `agents` Worker (createMcpHandler with an SDK v2 McpServer,
// tests/bench/peer-agents/gateway-upstream.js) under its own `wrangler dev`; the floor is a
// JS Worker that passes each request on as it came (tests/bench/baseline-js, POST /mcp with
// FORWARD_URL); the gateway is the project's build with UPSTREAMS naming the upstream
// (prefix agents_). All three are measured straight to their workerd's own port (no
// wrangler proxy in front), c connections:
//   greet (readOnlyHint, so repeatable: the Worker calls it inline)
//     direct:    tools/call greet to the upstream
//     forwarder: the same request to the pass-through Worker
//     gateway:   tools/call agents_greet to the gateway (one upstream request inside), by a
//                caller with an API key (the test key alice), as
//                served with its console ([assets]) and without
//   slow_sum {seconds: 0} (no hints: the gateway never calls it twice, so a task object
//   holds the call), a client without the Tasks extension, so one request answers it
//     direct, forwarder: tools/call slow_sum
//     held forwarder: the same request to the pass-through Worker's POST /mcp-held, a new
//                Durable Object per call storing a checkpoint before the call and the
//                answer after it: the least a gateway that never calls twice costs
//     gateway:   tools/call agents_slow_sum (a job: created, run by its object, its result
//                answered within the wait)
// and, through the gateway only, lookup {key} of the SDK 1.x server of the e2e tests
// (tests/support/upstream.mjs, 2025-11-25 sessions, run in this process), readOnlyHint:
// requests per second and the upstream requests each call cost (the isolate keeps its
// session: one, the call).
// in two placements of the processes (below): sharing both cores, and one core each. Each
// placement is measured in rounds, every server once per round, the order turned by one
// each round, so a drift of the machine's speed during the run reaches them alike; the
// table gives the medians over the rounds of requests per second, of each round's ratios,
// and of the workerd CPU per call of each process.
// Settings: BENCH_CONNECTIONS=8, BENCH_SECONDS=5, BENCH_WARMUP_SECONDS=1, BENCH_ROUNDS=3.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { headersFor } from '../e2e/mcp.mjs';
import { listsTool, startAgentsUpstream, writeNoAssetsConfig } from './agents.mjs';
import { startUpstream } from '../support/upstream.mjs';
import { TEST_KEYS, TEST_VARS, startServer } from '../support/server.mjs';
import { directPort, groupCpu, pin, resultOf, send, startWrangler, workerdPorts } from './servers.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 8);
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS || 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const log = (m) => console.error(`[gateway bench] ${m}`);

let nextId = 1;
/**
 * A 2026-07-28 tools/call declaring `caps`, as a host sends it; with `token`, as a caller
 * with an API key (a deployed gateway lets no anonymous caller in).
 */
function call(name, args, caps, token) {
  const params = { name, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'gateway-bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': caps } };
  // Accept-Encoding as Node's fetch sends it (the SDKs' transports use fetch), so every
  // server here may compress its answer as it would for a real host.
  const headers = { ...headersFor('tools/call', params), accept: 'application/json, text/event-stream', 'accept-encoding': 'gzip, deflate',
    ...(token && { authorization: `Bearer ${token}` }) };
  return { headers, body: () => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params })) };
}

/** CPU seconds so far of the workerd processes of each process group in `groups`. */
const cpuOf = (groups) => groups.map((g) => groupCpu(g).workerd ?? 0);

/**
 * Requests per second of `request` on `port`, every answer checked, and the workerd CPU
 * (µs per request) each of `groups` (the upstream's, the forwarder's, the gateway's) spent meanwhile.
 */
async function measure(port, request, check, groups, path = '/mcp') {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS, maxFreeSockets: CONNECTIONS });
  const loop = async (ms) => {
    let n = 0;
    const end = performance.now() + ms;
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const answer = await send(agent, port, 'POST', path, request.headers, request.body());
        check(resultOf(answer));
        n++;
      }
    }));
    return n;
  };
  try {
    const warm = await loop(WARMUP * 1000);
    const before = cpuOf(groups);
    const n = await loop(SECONDS * 1000);
    const after = cpuOf(groups);
    return { rps: n / SECONDS, all: warm + n, cpu: after.map((a, i) => Math.round((1e6 * (a - before[i])) / n)) };
  } finally {
    agent.destroy();
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * One row of the table from its rounds: the medians of each server's rate and CPU, and of
 * each round's ratios (the gateway's to the direct call, and to the floor: the
 * pass-through, or where the gateway holds the call, the held pass-through).
 */
function summarize(placement, what, rounds) {
  const of = (f) => median(rounds.map(f));
  const floor = (g) => g.held ?? g.forwarder;
  return {
    placement, what, rounds,
    direct: of((g) => g.direct.rps), forwarder: of((g) => g.forwarder.rps),
    held: rounds[0].held && of((g) => g.held.rps),
    gateway: of((g) => g.gateway.rps), bare: of((g) => g.bare.rps),
    gatewayDirect: of((g) => g.gateway.rps / g.direct.rps), bareDirect: of((g) => g.bare.rps / g.direct.rps),
    gatewayFloor: of((g) => g.gateway.rps / floor(g).rps), bareFloor: of((g) => g.bare.rps / floor(g).rps),
    upstreamCpu: of((g) => g.direct.cpu[0]), forwarderCpu: of((g) => g.forwarder.cpu[1]),
    heldCpu: rounds[0].held && of((g) => g.held.cpu[1]),
    gatewayCpu: of((g) => g.gateway.cpu[2]), bareCpu: of((g) => g.bare.cpu[3]),
  };
}

log('starting the agents upstream and the gateway');
const { server: upstream, port: up } = await startAgentsUpstream();
let gateway;
let forwarder;
let bare;
// The SDK 1.x upstream of the e2e tests (2025-11-25 sessions, in this process: its CPU is
// the load generator's, on the same core).
const sdk = await startUpstream();
try {
  const upstreamUrl = `http://127.0.0.1:${up}/mcp`;
  // The gateway and the forwarder reach the upstream as the direct measurement does: its workerd's port.
  forwarder = await startWrangler({ configDir: join(HERE, 'baseline-js'), vars: { FORWARD_URL: upstreamUrl }, probe: listsTool('greet') });
  const fw = (await directPort(forwarder.port, listsTool('greet'))).port;
  const gatewayVars = { ...TEST_VARS, QUOTA_TASKS_PER_MINUTE: 'unlimited', QUOTA_LIVE_TASKS: 'unlimited',
    UPSTREAMS: JSON.stringify([{ name: 'agents', url: upstreamUrl, prefix: 'agents_' }, { name: 'ts', url: sdk.url, prefix: 'ts_' }]),
    LOG_LEVEL: 'warn' };
  gateway = await startServer({ vars: gatewayVars });
  const gw = (await directPort(gateway.port, listsTool('agents_greet'))).port;
  // The same build without [assets]: under wrangler dev an assets router (JS Workers of its
  // own, in the same workerd) runs in front of the Worker on every request; on Cloudflare it
  // is the platform's, not the Worker's CPU.
  bare = await startWrangler({ configDir: writeNoAssetsConfig(), probe: listsTool('agents_greet'), vars: gatewayVars });
  const gwBare = (await directPort(bare.port, listsTool('agents_greet'))).port;
  const groups = [upstream, forwarder, gateway, bare].map((s) => workerdPorts(s.port).group);
  const greeted = (r) => { if (r.content?.[0]?.text !== 'Hello from agents, bench!') throw new Error(JSON.stringify(r)); };
  const summed = (r) => { if (r.structuredContent?.sum !== 3) throw new Error(JSON.stringify(r)); };
  const looked = (r) => { if (r.structuredContent?.value !== 'value-of-bench') throw new Error(JSON.stringify(r)); };
  // Two placements of the same processes. "shared": every process may run on both cores, so
  // a call through the gateway (or the forwarder) pays its CPU and the upstream's on the
  // same two cores. "one core each": the upstream's workerd on CPU 0, the forwarder's and
  // the gateway's on CPU 1 (one measured at a time), as in production, where the gateway
  // runs on Cloudflare and the upstream elsewhere; the load generator shares the upstream's
  // core in every run, so a direct call is limited by that core alone.
  const placements = [['shared', '0,1', '0,1'], ['one core each', '0', '1']];
  const rows = [];
  try {
    for (const [placement, upCpus, inFront] of placements) {
      pin(groups[0], upCpus);
      pin(groups[1], inFront);
      pin(groups[2], inFront);
      pin(groups[3], inFront);
      pin({ pid: process.pid }, upCpus);
      for (const [what, direct, through, check, held] of [
        ['greet (read-only: inline in the Worker)', call('greet', { name: 'bench' }, {}), call('agents_greet', { name: 'bench' }, {}, TEST_KEYS.alice), greeted, false],
        ['slow_sum 0 s (no hints: held by a task object, a job)', call('slow_sum', { a: 1, b: 2, seconds: 0 }, {}), call('agents_slow_sum', { a: 1, b: 2, seconds: 0 }, {}, TEST_KEYS.alice), summed, true],
      ]) {
        // Every server of the row, measured once per round.
        const servers = [
          ['direct', () => measure(up, direct, check, groups)],
          ['forwarder', () => measure(fw, direct, check, groups)],
          ...(held ? [['held', () => measure(fw, direct, check, groups, '/mcp-held')]] : []),
          ['gateway', () => measure(gw, through, check, groups)],
          ['bare', () => measure(gwBare, through, check, groups)],
        ];
        const rounds = [];
        for (let r = 0; r < ROUNDS; r++) {
          log(`measuring ${what}, ${placement}, round ${r + 1} of ${ROUNDS}`);
          const got = {};
          for (let i = 0; i < servers.length; i++) {
            const [name, run] = servers[(i + r) % servers.length];
            got[name] = await run();
          }
          rounds.push(got);
        }
        rows.push(summarize(placement, what, rounds));
      }
    }
  } finally {
    pin({ pid: process.pid }, '0,1');
  }
  console.log(`\nThe gateway: a call of an agents Worker's tool, direct, through a pass-through Worker (held: under a checkpoint in a new Durable Object) and through the gateway, straight to each workerd, ${CONNECTIONS} connections, ${SECONDS} s each, medians of ${ROUNDS} rounds (load ${loadavg()[0].toFixed(2)})`);
  console.log('| placement | call | direct req/s | pass-through req/s (held) | gateway req/s (without [assets]) | gateway ÷ direct (without [assets]) | gateway ÷ pass-through, held where the gateway holds (without [assets]) | workerd CPU µs/call: upstream (direct), pass-through (held), gateway (without [assets]) |');
  console.log('|---|---|---|---|---|---|---|---|');
  const x = (v) => `${v.toFixed(2)}×`;
  const held = (v, f) => (v === undefined ? '' : ` (${f(v)})`);
  for (const r of rows) {
    console.log(`| ${r.placement} | ${r.what} | ${r.direct.toFixed(0)} | ${r.forwarder.toFixed(0)}${held(r.held, (v) => v.toFixed(0))} | ${r.gateway.toFixed(0)} (${r.bare.toFixed(0)}) | ${x(r.gatewayDirect)} (${x(r.bareDirect)}) | ${x(r.gatewayFloor)} (${x(r.bareFloor)}) | ${r.upstreamCpu}, ${r.forwarderCpu}${held(r.heldCpu, String)}, ${r.gatewayCpu} (${r.bareCpu}) |`);
  }
  // A 2025-11-25 upstream: what a call costs it. Before its isolate kept sessions, the
  // gateway sent four requests per call (initialize, initialized, the call, DELETE).
  log('measuring lookup of the SDK 1.x upstream through the gateway');
  const sent = sdk.record.methods.length + sdk.record.deletes;
  const ts = await measure(gw, call('ts_lookup', { key: 'bench' }, {}, TEST_KEYS.alice), looked, groups);
  const perCall = (sdk.record.methods.length + sdk.record.deletes - sent) / ts.all;
  console.log(`\nAn SDK 1.x server's read-only tool (lookup, tests/support/upstream.mjs, 2025-11-25 sessions) through the gateway: ${ts.rps.toFixed(0)} req/s, ${perCall.toFixed(2)} upstream requests per call (${ts.all} calls, warm-up included)`);
  writeFileSync(join(HERE, 'last-gateway.json'), `${JSON.stringify({ connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, rows, sdk: { rps: ts.rps, upstreamRequestsPerCall: perCall } }, null, 2)}\n`);
} finally {
  await gateway?.stop();
  await forwarder?.stop();
  await bare?.stop();
  await sdk.close();
  await upstream.stop();
}
