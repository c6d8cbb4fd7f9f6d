// Cost per task (`make bench`, after run.mjs and notifications.mjs): what each task
// lifecycle makes Cloudflare bill, counted by the Worker and the objects themselves in a
// bench build (WORKER_FEATURES=bench-counters: src/cloudflare/bench.rs, read at
// GET /__bench/counters), priced at the list prices of tests/bench/prices.mjs, beside the
// protocol's floor (below) and the ratio measured ÷ floor.
//
// Lifecycles, COST_TASKS tasks each (COST_CONCURRENCY at once), one after the other on one
// `wrangler dev`; the counters are read before and COST_SETTLE_MS after each batch (so the
// listen streams' teardown and any alarm left behind are in it), averaged per task:
//   polling    tools/call slow_compute 0.2 s (a task), tasks/get every pollIntervalMs
//              until completed
//   listening  the same task, one subscriptions/listen stream read to its end (the
//              completed notification, which carries the result), nothing polled
//   input      tools/call confirm_delete (asks once inside the task), tasks/get until
//              input_required, tasks/update with the answer, tasks/get until completed
//   cancelled  tools/call slow_compute 1 s, tasks/cancel at once
//   sync       tools/call echo: a synchronous call, no task (what it logs: a fast call
//              that completes prints no line at info, src/ops/log/events.rs)
// The task's expiry (TASK_TTL_MS, 1 h) comes after the window: neither the measure nor the
// floor counts it. The Worker's CPU is not counted inside it: the column is the CPU time
// of the whole workerd process group per task (/proc), the objects' included, an upper
// bound; it is priced as Worker CPU. Quotas: COST_QUOTAS=0 (the default) runs without the
// principal's ledger (QUOTA_*=unlimited, as run.mjs), 1 with the test servers' quotas
// (tests/support/server.mjs TEST_VARS): every run and task then also asks the ledger.
//
// The floor: what a minimal implementation of the protocol must have billed for the same
// client behaviour, in the same accounting (a key read or written is a row; setting an
// alarm is a row written; a finished or waiting task sets its expiry alarm, one row):
//   create     1 Worker request, 1 object request (the new task's), 2 rows written (the
//              record, the alarm of its next step or its expiry)
//   a step     1 alarm, 1 row read (the record), 2 rows written (the outcome, the
//              expiry alarm or the next step's)
//   a poll     1 Worker request, 1 object request, 1 row read
//   a listen   1 Worker request (the stream), 1 object request (its socket to the task's
//              object, which pushes every change: outgoing messages are free), 1 row read
//              (the current state)
//   an answer  (tasks/update) 1 Worker request, 1 object request, 1 row read, 2 rows
//              written (the answer, the alarm of the step that resumes)
//   a cancel   1 Worker request, 1 object request, 1 row read, 2 rows written (the
//              status, the expiry alarm replacing the step's)
//   a sync call 1 Worker request
// so polling = create + 1 step + its polls; listening = create + 1 step + 1 listen;
// input = create + 2 steps (the one that asks, the one that finishes) + 1 answer + its
// polls; cancelled = create + 1 cancel. The objects' awake time and the CPU have no floor.
//
// Workers Logs (a second table): with [observability] enabled every invocation (a Worker
// request, an object request, an alarm, a WebSocket message or event an object handles)
// emits one execution log, and every structured line printed (LOG_LEVEL info, the default)
// one more, each a billed event. The floor's: one per request and alarm, no line of its own.
//
// Usage: node tests/bench/cost.mjs   Output: the table, and target/bench/cost.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';
import { openListen } from '../support/listen.mjs';
import { ok } from '../e2e/mcp.mjs';
import { counters, groupCpu, workerdPorts } from './servers.mjs';
import { PRICES, PRICES_READ_ON, dollarsPerMillionTasks } from './prices.mjs';

const TASKS = Number(process.env.COST_TASKS ?? 20);
const CONCURRENCY = Number(process.env.COST_CONCURRENCY ?? 4);
const SETTLE_MS = Number(process.env.COST_SETTLE_MS ?? 2500);
const QUOTAS = (process.env.COST_QUOTAS ?? '0') === '1';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const COLUMNS = ['workerRequests', 'objectRequests', 'alarms', 'websocketMessages', 'rowsRead', 'rowsWritten'];

/** The floor of one lifecycle, from the client's polls (see the comment above). */
const op = (w, o, a, r, wr) => ({ workerRequests: w, objectRequests: o, alarms: a, websocketMessages: 0, rowsRead: r, rowsWritten: wr });
const CREATE = op(1, 1, 0, 0, 2);
const STEP = op(0, 0, 1, 1, 2);
const POLL = op(1, 1, 0, 1, 0);
const LISTEN = op(1, 1, 0, 1, 0);
const ANSWER = op(1, 1, 0, 1, 2);
const CANCEL = op(1, 1, 0, 1, 2);
function sum(parts) {
  const out = op(0, 0, 0, 0, 0);
  for (const [times, part] of parts) for (const k of COLUMNS) out[k] += times * part[k];
  return out;
}
const FLOORS = {
  polling: (polls) => sum([[1, CREATE], [1, STEP], [polls, POLL]]),
  listening: () => sum([[1, CREATE], [1, STEP], [1, LISTEN]]),
  input: (polls) => sum([[1, CREATE], [2, STEP], [1, ANSWER], [polls, POLL]]),
  cancelled: () => sum([[1, CREATE], [1, CANCEL]]),
  sync: () => op(1, 0, 0, 0, 0),
};

async function createTask(url, name, args) {
  const task = await ok(url, 'tools/call', { name, arguments: args });
  if (task.resultType !== 'task') throw new Error(`${name} did not become a task: ${JSON.stringify(task).slice(0, 200)}`);
  return task;
}

/** Polls tasks/get (every pollIntervalMs) until `done`; returns [task, polls]. */
async function pollUntil(url, task, done) {
  let polls = 0;
  const deadline = Date.now() + 30_000;
  while (!done(task)) {
    if (['failed', 'cancelled'].includes(task.status)) throw new Error(`task ended ${task.status}`);
    if (Date.now() > deadline) throw new Error(`task ${task.taskId} stuck in ${task.status}`);
    await sleep(task.pollIntervalMs ?? 1000);
    task = { ...task, ...(await ok(url, 'tasks/get', { taskId: task.taskId })) };
    polls++;
  }
  return [task, polls];
}

/** Each lifecycle: runs one task, returns the polls it made. */
const LIFECYCLES = {
  async polling(url) {
    const task = await createTask(url, 'slow_compute', { seconds: 0.2 });
    return (await pollUntil(url, task, (t) => t.status === 'completed'))[1];
  },
  async listening(url) {
    const task = await createTask(url, 'slow_compute', { seconds: 0.2 });
    const stream = await openListen(url, [task.taskId]);
    try {
      const done = await stream.until((m) => m.method === 'notifications/tasks' && m.params?.taskId === task.taskId
        && ['completed', 'failed', 'cancelled'].includes(m.params.status), 30_000);
      if (done.params.status !== 'completed' || !done.params.result) throw new Error(`task ended ${done.params.status}`);
      await stream.all(30_000); // to the graceful end, as a client reads it
    } finally {
      stream.close();
    }
    return 0;
  },
  async input(url) {
    const task = await createTask(url, 'confirm_delete', { filename: 'cost.txt' });
    const [waiting, asked] = await pollUntil(url, task, (t) => t.status === 'input_required');
    const key = Object.keys(waiting.inputRequests)[0];
    await ok(url, 'tasks/update', { taskId: task.taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } });
    const [, done] = await pollUntil(url, { ...waiting, status: 'working' }, (t) => t.status === 'completed');
    return asked + done;
  },
  async cancelled(url) {
    const task = await createTask(url, 'slow_compute', { seconds: 1 });
    const cancelled = await ok(url, 'tasks/cancel', { taskId: task.taskId });
    if (cancelled.resultType !== 'complete') throw new Error(`tasks/cancel answered ${JSON.stringify(cancelled).slice(0, 200)}`);
    return 0;
  },
  async sync(url) {
    const echoed = await ok(url, 'tools/call', { name: 'echo', arguments: { text: 'cost' } });
    if (echoed.content?.[0]?.text !== 'cost') throw new Error(`echo answered ${JSON.stringify(echoed).slice(0, 200)}`);
    return 0;
  },
};

/** The total of every class's counts in a snapshot, with the awake time, the invocations
 * (each an execution log with Workers Logs) and the structured log lines. */
function totals(snapshot) {
  const out = { ...op(0, 0, 0, 0, 0), awakeMs: 0, invocations: 0, logLines: snapshot.logLines };
  for (const [cls, c] of Object.entries(snapshot.classes)) {
    out[cls === 'Worker' ? 'workerRequests' : 'objectRequests'] += c.requests;
    out.alarms += c.alarms;
    out.websocketMessages += c.websocketMessages;
    out.rowsRead += c.rowsRead;
    out.rowsWritten += c.rowsWritten;
    out.awakeMs += c.awakeMs;
    out.invocations += c.requests + c.alarms + c.websocketMessages + c.websocketEvents;
  }
  return out;
}

/** Workers Logs events per task: an execution log per invocation, and each structured line
 * (the floor prints none, and is invoked once per request and alarm). */
const logEvents = (c) => (c.invocations ?? c.workerRequests + c.objectRequests + c.alarms) + (c.logLines ?? 0);
const logDollars = (c) => logEvents(c) * PRICES.logEventsPerMillion;

function perClass(before, after) {
  const out = {};
  for (const [cls, c] of Object.entries(after.classes)) {
    const b = before.classes[cls] ?? {};
    out[cls] = Object.fromEntries(Object.entries(c).map(([k, v]) => [k, (v - (b[k] ?? 0)) / TASKS]));
  }
  return out;
}

async function measure(server, group, name) {
  const before = await counters(server);
  const cpuBefore = groupCpu(group).workerd ?? 0;
  let polls = 0;
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < TASKS) {
      next++;
      const made = await LIFECYCLES[name](server.mcpUrl);
      polls += made;
    }
  }));
  await sleep(SETTLE_MS);
  const after = await counters(server);
  const cpuAfter = groupCpu(group).workerd ?? 0;
  if (after.instance !== before.instance) throw new Error('the counters started again (the wasm instance was reinitialised): run again');
  const [a, b] = [totals(after), totals(before)];
  const measured = Object.fromEntries(Object.keys(a).map((k) => [k, (a[k] - b[k]) / TASKS]));
  if (measured.objectRequests === 0 && name !== 'sync') {
    throw new Error('no object request was counted: the objects do not share the Worker\'s isolate, so its counters miss them (see src/cloudflare/bench.rs)');
  }
  measured.workerCpuMs = ((cpuAfter - cpuBefore) * 1000) / TASKS;
  const floor = FLOORS[name](polls / TASKS);
  return { name, polls: polls / TASKS, measured, floor, byClass: perClass(before, after),
    dollars: { measured: dollarsPerMillionTasks(measured), floor: dollarsPerMillionTasks(floor) } };
}

const fmt = (x, width = 8, digits = 2) => (x === undefined ? '' : Number(x).toFixed(digits)).padStart(width);
function print(results) {
  console.log(`\nCost per task (${TASKS} tasks per lifecycle, ${CONCURRENCY} at once; quotas ${QUOTAS ? 'on (the principal\'s ledger)' : 'off'}); `
    + `$ per million tasks at the list prices read ${PRICES_READ_ON} (tests/bench/prices.mjs), beyond the plans' included amounts`);
  console.log(`${'lifecycle'.padEnd(22)}${'Worker'.padStart(8)}${'object'.padStart(8)}${'alarms'.padStart(8)}${'WS in'.padStart(8)}`
    + `${'rows'.padStart(8)}${'rows'.padStart(8)}${'awake'.padStart(8)}${'CPU'.padStart(8)}${'$/M'.padStart(9)}${'$/M'.padStart(9)}`);
  console.log(`${''.padEnd(22)}${'req'.padStart(8)}${'req'.padStart(8)}${''.padStart(8)}${'msgs'.padStart(8)}`
    + `${'read'.padStart(8)}${'written'.padStart(8)}${'ms'.padStart(8)}${'ms'.padStart(8)}${'ops'.padStart(9)}${'total'.padStart(9)}`);
  for (const r of results) {
    const m = r.measured;
    const row = (label, c, d, extra) => console.log(`${label.padEnd(22)}${COLUMNS.map((k) => fmt(c[k])).join('')}${extra}`
      + `${fmt(d?.ops, 9)}${fmt(d?.total, 9)}`.trimEnd());
    row(`${r.name} (${r.polls.toFixed(1)} polls)`, m, r.dollars.measured, `${fmt(m.awakeMs, 8, 1)}${fmt(m.workerCpuMs, 8, 1)}`);
    row('  floor', r.floor, { ops: r.dollars.floor.ops }, `${''.padStart(16)}`);
    const ratio = Object.fromEntries(COLUMNS.map((k) => [k, r.floor[k] ? m[k] / r.floor[k] : undefined]));
    console.log(`${'  ratio ×'.padEnd(22)}${COLUMNS.map((k) => fmt(ratio[k])).join('')}${''.padStart(16)}${fmt(r.dollars.measured.ops / r.dollars.floor.ops, 9)}`);
  }
  console.log(`\nWorkers Logs events per task ([observability] enabled, as wrangler.toml; LOG_LEVEL=info): `
    + `an execution log per invocation and one per structured line, at $${PRICES.logEventsPerMillion} per million beyond the included; `
    + 'the floor: one per request and alarm, no line');
  console.log(`${'lifecycle'.padEnd(22)}${'invoked'.padStart(8)}${'lines'.padStart(8)}${'events'.padStart(8)}${'$/M'.padStart(9)}`
    + `${'floor'.padStart(8)}${'$/M'.padStart(9)}${'ratio ×'.padStart(9)}${'$/M ops'.padStart(10)}${'ratio ×'.padStart(9)}`);
  console.log(`${''.padEnd(22)}${''.padStart(8)}${''.padStart(8)}${''.padStart(8)}${'logs'.padStart(9)}`
    + `${'events'.padStart(8)}${'logs'.padStart(9)}${''.padStart(9)}${'+ logs'.padStart(10)}${''.padStart(9)}`);
  for (const r of results) {
    const m = r.measured;
    const withLogs = r.dollars.measured.ops + logDollars(m);
    const floorWithLogs = r.dollars.floor.ops + logDollars(r.floor);
    console.log(`${r.name.padEnd(22)}${fmt(m.invocations)}${fmt(m.logLines)}${fmt(logEvents(m))}${fmt(logDollars(m), 9)}`
      + `${fmt(logEvents(r.floor))}${fmt(logDollars(r.floor), 9)}${fmt(logEvents(m) / logEvents(r.floor), 9)}`
      + `${fmt(withLogs, 10)}${fmt(withLogs / floorWithLogs, 9)}`);
  }
  console.log('\nObject requests and rows per task by class:');
  for (const r of results) {
    const parts = Object.entries(r.byClass).filter(([cls]) => cls !== 'Worker')
      .map(([cls, c]) => `${cls} ${c.requests.toFixed(2)} req, ${c.alarms.toFixed(2)} alarms, ${c.rowsRead.toFixed(2)} read, ${c.rowsWritten.toFixed(2)} written`);
    console.log(`  ${r.name.padEnd(10)} ${parts.join('; ')}`);
  }
}

const vars = QUOTAS ? {} : { QUOTA_TASKS_PER_MINUTE: 'unlimited', QUOTA_LIVE_TASKS: 'unlimited', QUOTA_LISTEN_STREAMS: 'unlimited' };
const server = await startServer({ env: { WORKER_FEATURES: 'bench-counters' }, vars });
try {
  const { group } = workerdPorts(server.port);
  await LIFECYCLES.polling(server.mcpUrl); // warm-up: the isolate, the first objects
  await sleep(SETTLE_MS);
  const results = [];
  for (const name of Object.keys(LIFECYCLES)) results.push(await measure(server, group, name));
  print(results);
  const dir = join(ROOT, 'target', 'bench');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'cost.json'), `${JSON.stringify({ tasks: TASKS, concurrency: CONCURRENCY, quotas: QUOTAS, pricesReadOn: PRICES_READ_ON, results }, null, 2)}\n`);
} finally {
  await server.stop();
}
