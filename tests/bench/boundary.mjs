// The wasm boundary and the allocator per request (`make bench`, after cost.mjs): how many
// calls cross between JavaScript and the Worker's wasm, each way, and how many allocations
// (with their bytes) each kind of request makes, counted by the instance itself in the
// bench build (WORKER_FEATURES=bench-counters: src/cloudflare/bench.rs; the calls by
// src/cloudflare/bench/boundary.js, the allocations by the global allocator of
// src/cloudflare/bench/alloc.rs; read at GET /__bench/counters, `wasm`). Counts, not
// times: the same on every machine for the same build and requests, so a change that saves
// a crossing or a copy shows exactly.
//
// Under `wrangler dev` the Worker and its Durable Objects share one wasm instance, so a
// request's counts are both hops' (the Worker's, then the object's). Each kind is sent
// BOUNDARY_REQUESTS times (40) one after the other, after 5 unmeasured; the counters are
// read before and after (a read's own counts, measured alone, are taken off), and divided.
//   tools/list      the demo's 9.4 KB list (with the conformance fixtures)
//   echo            tools/call echo: a synchronous tool
//   tasks/get       a working task (slow_compute 3600 s)
//   tasks/update    a no-op acknowledgement to a task waiting for input
//   lifecycle       a polling lifecycle per task: slow_compute 0.2 s created, its step,
//                   tasks/get every pollIntervalMs until completed (BOUNDARY_SETTLE_MS,
//                   1500, after the last, for what the objects do after answering)
//
// Usage: node tests/bench/boundary.mjs   Output: the table, and target/bench/boundary.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';
import { ok } from '../e2e/mcp.mjs';
import { counters } from './servers.mjs';

const REQUESTS = Number(process.env.BOUNDARY_REQUESTS ?? 40);
const SETTLE_MS = Number(process.env.BOUNDARY_SETTLE_MS ?? 1500);
const FIELDS = ['callsIn', 'callsOut', 'allocations', 'allocatedBytes'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function wasmCounts(server) {
  const { instance, wasm } = await counters(server);
  if (!wasm) throw new Error('the counters have no `wasm` counts');
  return { instance, ...wasm };
}

const minus = (a, b) => Object.fromEntries(FIELDS.map((k) => [k, a[k] - b[k]]));

/** What `times` runs of `send` count, per run, without the counter reads' own. */
async function counted(server, send, times, read, settleMs = 0) {
  for (let i = 0; i < 5; i++) await send();
  await sleep(settleMs);
  const before = await wasmCounts(server);
  for (let i = 0; i < times; i++) await send();
  await sleep(settleMs);
  const after = await wasmCounts(server);
  if (after.instance !== before.instance) throw new Error('the counters started again (the wasm instance was reinitialised): run again');
  const delta = minus(minus(after, before), read);
  return Object.fromEntries(FIELDS.map((k) => [k, delta[k] / times]));
}

async function pollToCompletion(url) {
  let task = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0.2 } });
  if (task.resultType !== 'task') throw new Error(`slow_compute did not become a task: ${JSON.stringify(task).slice(0, 200)}`);
  for (let polls = 0; task.status !== 'completed'; polls++) {
    if (polls > 100 || ['failed', 'cancelled'].includes(task.status)) throw new Error(`task ${task.taskId} is ${task.status}`);
    await sleep(task.pollIntervalMs ?? 100);
    task = { ...task, ...(await ok(url, 'tasks/get', { taskId: task.taskId })) };
  }
}

/** Every kind's counts per request on `server` (a bench build). */
export async function measureBoundary(server) {
  const url = server.mcpUrl;
  // One read of the counters, alone: what every measurement's two reads add.
  const first = await wasmCounts(server);
  const second = await wasmCounts(server);
  const read = minus(second, first);
  const working = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 3600 } });
  let asking = await ok(url, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'x' } });
  for (let i = 0; asking.status !== 'input_required'; i++) {
    if (i > 100) throw new Error(`confirm_delete never reached input_required: ${JSON.stringify(asking)}`);
    await sleep(100);
    asking = await ok(url, 'tasks/get', { taskId: asking.taskId });
  }
  const kinds = {
    'tools/list': () => ok(url, 'tools/list', {}),
    echo: () => ok(url, 'tools/call', { name: 'echo', arguments: { text: 'boundary' } }),
    'tasks/get': () => ok(url, 'tasks/get', { taskId: working.taskId }),
    'tasks/update': () => ok(url, 'tasks/update', { taskId: asking.taskId, inputResponses: { nope: { action: 'accept', content: {} } } }),
  };
  const results = { read };
  for (const [name, send] of Object.entries(kinds)) results[name] = await counted(server, send, REQUESTS, read);
  results.lifecycle = await counted(server, () => pollToCompletion(url), Math.max(5, REQUESTS / 4), read, SETTLE_MS);
  await ok(url, 'tasks/cancel', { taskId: working.taskId });
  await ok(url, 'tasks/cancel', { taskId: asking.taskId });
  return results;
}

export function printBoundary(results) {
  console.log(`\nThe wasm boundary and the allocator per request (bench build, both hops of a request counted; ${REQUESTS} requests each)`);
  console.log(`${'request'.padEnd(16)}${'calls in'.padStart(10)}${'calls out'.padStart(11)}${'allocs'.padStart(10)}${'KB alloc'.padStart(10)}`);
  for (const [name, r] of Object.entries(results)) {
    if (name === 'read') continue;
    console.log(`${name.padEnd(16)}${r.callsIn.toFixed(1).padStart(10)}${r.callsOut.toFixed(1).padStart(11)}`
      + `${r.allocations.toFixed(1).padStart(10)}${(r.allocatedBytes / 1024).toFixed(1).padStart(10)}`);
  }
  const r = results.read;
  console.log(`  (a read of the counters, taken off each: ${r.callsIn} in, ${r.callsOut} out, ${r.allocations} allocations)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const vars = { QUOTA_TASKS_PER_MINUTE: 'unlimited', QUOTA_LIVE_TASKS: 'unlimited', QUOTA_LISTEN_STREAMS: 'unlimited' };
  const server = await startServer({ env: { WORKER_FEATURES: 'bench-counters' }, vars });
  try {
    const results = await measureBoundary(server);
    printBoundary(results);
    const dir = join(ROOT, 'target', 'bench');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'boundary.json'), `${JSON.stringify({ requests: REQUESTS, results }, null, 2)}\n`);
  } finally {
    await server.stop();
  }
}
