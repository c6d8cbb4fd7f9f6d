// `make bench`'s gateway figures (docs/gateway.md, docs/benchmarks.md "The gateway"): what
// the gateway costs a call of an upstream tool, against calling the upstream directly, IN
// THE SAME RUN. The upstream is an `agents` Worker (createMcpHandler with an SDK v2
// McpServer, tests/bench/peer-agents/gateway-upstream.js) under its own `wrangler dev`; the
// gateway is the project's build with UPSTREAMS naming it (prefix agents_). Both are
// measured straight to their workerd's own port (no wrangler proxy in front), c connections:
//   greet (readOnlyHint, so repeatable: the Worker calls it inline)
//     direct:  tools/call greet to the upstream
//     gateway: tools/call agents_greet to the gateway (one upstream request inside)
//   slow_sum {seconds: 0} (no hints: the gateway never calls it twice, so a task object
//   holds the call), a client without the Tasks extension, so one request answers it
//     direct:  tools/call slow_sum
//     gateway: tools/call agents_slow_sum (a job: created, run by its object, its result
//              answered within the wait)
// Each pair back to back; the table gives requests per second, gateway ÷ direct, and the
// workerd CPU per call of the upstream (direct) and of the gateway: on this 2-core machine
// both processes share the cores, so through the gateway a call pays both CPUs.
// Settings: BENCH_CONNECTIONS=8, BENCH_SECONDS=5, BENCH_WARMUP_SECONDS=1.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { headersFor } from '../e2e/mcp.mjs';
import { TEST_VARS, startServer } from '../support/server.mjs';
import { directPort, groupCpu, resultOf, send, startWrangler, workerdPorts } from './servers.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 8);
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS || 1);
const log = (m) => console.error(`[gateway bench] ${m}`);

let nextId = 1;
/** A 2026-07-28 tools/call declaring `caps`. */
function call(name, args, caps) {
  const params = { name, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'gateway-bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': caps } };
  const headers = { ...headersFor('tools/call', params), accept: 'application/json, text/event-stream' };
  return { headers, body: () => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params })) };
}

/** CPU seconds so far of the workerd processes of each process group in `groups`. */
const cpuOf = (groups) => groups.map((g) => groupCpu(g).workerd ?? 0);

/**
 * Requests per second of `request` on `port`, every answer checked, and the workerd CPU
 * (µs per request) each of `groups` (the upstream's, the gateway's) spent meanwhile.
 */
async function measure(port, request, check, groups) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS, maxFreeSockets: CONNECTIONS });
  const loop = async (ms) => {
    let n = 0;
    const end = performance.now() + ms;
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const answer = await send(agent, port, 'POST', '/mcp', request.headers, request.body());
        check(resultOf(answer));
        n++;
      }
    }));
    return n;
  };
  try {
    await loop(WARMUP * 1000);
    const before = cpuOf(groups);
    const n = await loop(SECONDS * 1000);
    const after = cpuOf(groups);
    return { rps: n / SECONDS, cpu: after.map((a, i) => Math.round((1e6 * (a - before[i])) / n)) };
  } finally {
    agent.destroy();
  }
}

const install = spawnSync('sh', [join(HERE, 'peer-agents', 'install.sh')], { stdio: 'inherit', timeout: 600_000 });
if (install.status !== 0) throw new Error('the agents peer did not install');
const mcpProbe = async (url) => (await fetch(`${url}/mcp`, { method: 'OPTIONS' })).status < 500;
log('starting the agents upstream and the gateway');
const upstream = await startWrangler({ configDir: join(HERE, 'peer-agents'), config: 'gateway-upstream.toml', probe: mcpProbe });
let gateway;
try {
  // workerd's own port is the one whose tools/list has the tool (others answer too).
  const lists = (tool) => async (url) => {
    const list = call('x', {}, {});
    const r = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...list.headers, 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: JSON.parse(list.body()).params._meta } }) });
    const text = await r.text();
    return r.status === 200 && text.includes(`"${tool}"`);
  };
  const up = (await directPort(upstream.port, lists('greet'))).port;
  // The gateway reaches the upstream as the direct measurement does: its workerd's port.
  gateway = await startServer({ vars: { ...TEST_VARS, QUOTA_TASKS_PER_MINUTE: 'unlimited', QUOTA_LIVE_TASKS: 'unlimited',
    UPSTREAMS: JSON.stringify([{ name: 'agents', url: `http://127.0.0.1:${up}/mcp`, prefix: 'agents_' }]), LOG_LEVEL: 'warn' } });
  const gw = (await directPort(gateway.port, lists('agents_greet'))).port;
  const groups = [workerdPorts(upstream.port).group, workerdPorts(gateway.port).group];
  const greeted = (r) => { if (r.content?.[0]?.text !== 'Hello from agents, bench!') throw new Error(JSON.stringify(r)); };
  const summed = (r) => { if (r.structuredContent?.sum !== 3) throw new Error(JSON.stringify(r)); };
  const rows = [];
  for (const [what, direct, through, check] of [
    ['greet (read-only: inline in the Worker)', call('greet', { name: 'bench' }, {}), call('agents_greet', { name: 'bench' }, {}), greeted],
    ['slow_sum 0 s (no hints: held by a task object, a job)', call('slow_sum', { a: 1, b: 2, seconds: 0 }, {}), call('agents_slow_sum', { a: 1, b: 2, seconds: 0 }, {}), summed],
  ]) {
    log(`measuring ${what}`);
    const d = await measure(up, direct, check, groups);
    const g = await measure(gw, through, check, groups);
    rows.push({ what, direct: d.rps, gateway: g.rps, ratio: g.rps / d.rps,
      upstreamCpuDirect: d.cpu[0], upstreamCpuThrough: g.cpu[0], gatewayCpu: g.cpu[1] });
  }
  console.log(`\nThe gateway: a call of an agents Worker's tool, direct vs through the gateway, straight to each workerd, ${CONNECTIONS} connections, ${SECONDS} s each (load ${loadavg()[0].toFixed(2)})`);
  console.log('| call | direct req/s | through the gateway req/s | gateway ÷ direct | upstream workerd CPU µs/call (direct) | gateway workerd CPU µs/call |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.what} | ${r.direct.toFixed(0)} | ${r.gateway.toFixed(0)} | ${r.ratio.toFixed(2)}× | ${r.upstreamCpuDirect} | ${r.gatewayCpu} |`);
  }
  writeFileSync(join(HERE, 'last-gateway.json'), `${JSON.stringify({ connections: CONNECTIONS, seconds: SECONDS, rows }, null, 2)}\n`);
} finally {
  await gateway?.stop();
  await upstream.stop();
}
