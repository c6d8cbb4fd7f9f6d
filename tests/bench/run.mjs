// `make bench`: request rates of the hot paths under `wrangler dev`, as ratios to the
// runtime's measured ceiling on this kind of machine (DESIGN.md "The local runtime's
// ceiling", through wrangler's port: no-op Worker ~660 req/s, DO read ~520, write to a new
// object ~100). Absolute numbers are noisy; compare the ratios within one run.
import { startServer } from '../support/server.mjs';
import { headersFor } from '../e2e/mcp.mjs';

const CONNECTIONS = 8;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CEILING = { noop: 660, read: 520, create: 100 };
const caps = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps };

function request(url, method, params) {
  const full = { ...params, _meta: meta };
  return () => fetch(url, { method: 'POST', headers: headersFor(method, full), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: full }) })
    .then(async (r) => { const body = await r.json(); if (body.error) throw new Error(JSON.stringify(body.error)); return body.result; });
}

async function rate(send) {
  const end = Date.now() + SECONDS * 1000;
  let count = 0;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < end) { await send(); count++; }
  }));
  return count / SECONDS;
}

const server = await startServer({ vars: { TASK_TTL_MS: '120000' } });
try {
  const url = server.mcpUrl;
  const created = await request(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 600 } })();
  await rate(request(url, 'tools/list', {})); // warm-up
  const rows = [
    ['tools/list (Worker only)', await rate(request(url, 'tools/list', {})), CEILING.noop],
    ['tasks/get (one object read)', await rate(request(url, 'tasks/get', { taskId: created.taskId })), CEILING.read],
    ['tools/call → new task (new object write)', await rate(request(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 600 } })), CEILING.create],
  ];
  console.log(`${CONNECTIONS} connections, ${SECONDS} s each, through wrangler's port`);
  for (const [name, rps, ceiling] of rows) {
    console.log(`${name.padEnd(44)} ${rps.toFixed(0).padStart(6)} req/s   ${(rps / ceiling).toFixed(2)} × the runtime ceiling (${ceiling})`);
  }
} finally {
  await server.stop();
}
