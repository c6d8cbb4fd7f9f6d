// The bench build's billable-operation counters (src/cloudflare/bench.rs, read by
// tests/bench/cost.mjs): absent from the ordinary build, exact in the bench build (the
// Worker built with WORKER_FEATURES=bench-counters), and not counting their own route.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';
import { startUpstream } from '../support/upstream.mjs';
import { ok, rpc } from './mcp.mjs';
import { openSession, responseOf } from '../support/legacy.mjs';

const BENCH = { WORKER_FEATURES: 'bench-counters' };
/** How long a job's call waits in the bench server (INLINE_BUDGET_MS). */
const JOB_WAIT_MS = 5000;
const BUILD_TIMEOUT_MS = 15 * 60_000;
let server;
/** A server of the TypeScript SDK 1.x without tasks, behind the bench server's gateway. */
let upstream;

before(async () => {
  upstream = await startUpstream();
});

/** Builds the Worker as wrangler would (a no-op when its inputs did not change). */
const build = (env = {}) => promisify(execFile)('sh', [join(ROOT, 'scripts', 'build-worker.sh')],
  { cwd: ROOT, env: { ...process.env, ...env }, timeout: BUILD_TIMEOUT_MS, maxBuffer: 64 << 20 });

after(async () => {
  await server?.stop();
  await upstream?.close();
  // Leave the ordinary build behind for the tests that follow.
  await build();
});

const counters = async () => {
  const res = await fetch(`${server.url}/__bench/counters`);
  return { status: res.status, text: await res.text() };
};

test('the ordinary build has no counters route', { timeout: BUILD_TIMEOUT_MS }, async () => {
  await build();
  server = await startServer();
  await ok(server.mcpUrl, 'tools/list', {});
  const { status, text } = await counters();
  assert.notEqual(status, 200, text);
  assert.doesNotMatch(text, /"classes"/);
  await server.stop();
  server = undefined;
});

test('the bench build counts what a tasks/get bills, and not its own route', { timeout: BUILD_TIMEOUT_MS }, async () => {
  await build(BENCH);
  server = await startServer({ env: BENCH, startTimeoutMs: BUILD_TIMEOUT_MS,
    vars: { QUOTA_TASKS_PER_MINUTE: 'unlimited', QUOTA_LIVE_TASKS: 'unlimited', INLINE_BUDGET_MS: String(JOB_WAIT_MS),
      UPSTREAMS: JSON.stringify([{ name: 'ts', url: upstream.url, prefix: 'ts_' }]) } });
  /** The billable counts (the wasm boundary's, which a read itself moves, apart). */
  const read = async () => {
    const { status, text } = await counters();
    assert.equal(status, 200, text);
    const { wasm, ...billable } = JSON.parse(text);
    assert.ok(wasm.callsIn > 0 && wasm.callsOut > 0 && wasm.allocations > 0, text);
    return billable;
  };
  /** `after` minus `before` for a class's count (a class not yet counted: zeros). */
  const delta = (before, after, cls, key) => (after.classes[cls]?.[key] ?? 0) - (before.classes[cls]?.[key] ?? 0);
  const start = await read();
  assert.ok(start.instance, JSON.stringify(start));
  // Reading the counts is not counted.
  assert.deepEqual(await read(), start);

  const task = await ok(server.mcpUrl, 'tools/call', { name: 'slow_compute', arguments: { seconds: 600 } });
  assert.equal(task.resultType, 'task');
  const created = await read();
  // Creation: one Worker request, one request to the new task's object, which read one row
  // (the absent record: a new instance knows nothing) and wrote rows (its record, its
  // alarm); no ledger without quotas for an anonymous caller.
  assert.equal(delta(start, created, 'Worker', 'requests'), 1);
  assert.equal(delta(start, created, 'TaskObject', 'requests'), 1);
  assert.equal(delta(start, created, 'TaskObject', 'rowsRead'), 1, JSON.stringify(created));
  assert.ok(delta(start, created, 'TaskObject', 'rowsWritten') >= 2, JSON.stringify(created));
  assert.equal(delta(start, created, 'PrincipalObject', 'requests'), 0);

  await ok(server.mcpUrl, 'tasks/get', { taskId: task.taskId });
  const got = await read();
  assert.equal(got.instance, start.instance);
  // A working task's tasks/get: one Worker request, one object request, no row read (the
  // object's instance holds the record it wrote: src/cloudflare/task_object/store.rs),
  // nothing written, no alarm.
  assert.equal(delta(created, got, 'Worker', 'requests'), 1);
  assert.equal(delta(created, got, 'TaskObject', 'requests'), 1);
  assert.equal(delta(created, got, 'TaskObject', 'rowsRead'), 0);
  assert.equal(delta(created, got, 'TaskObject', 'rowsWritten'), 0);
  assert.equal(delta(created, got, 'TaskObject', 'alarms'), 0);
  assert.ok(delta(created, got, 'TaskObject', 'awakeMs') >= 0);
  await ok(server.mcpUrl, 'tasks/cancel', { taskId: task.taskId });
});

test('the bench build counts the calls across the wasm boundary and the allocations of a request', async () => {
  const wasm = async () => JSON.parse((await counters()).text).wasm;
  const fields = ['callsIn', 'callsOut', 'allocations', 'allocatedBytes'];
  const minus = (a, b) => Object.fromEntries(fields.map((k) => [k, a[k] - b[k]]));
  // A read of the counters costs the same each time: what it adds is taken off below.
  const [a, b, c] = [await wasm(), await wasm(), await wasm()];
  assert.deepEqual(minus(c, b), minus(b, a));
  const read = minus(b, a);
  const perList = async (times) => {
    const before = await wasm();
    for (let i = 0; i < times; i++) await ok(server.mcpUrl, 'tools/list', {});
    return minus(minus(await wasm(), before), read);
  };
  await perList(1);
  // A warm tools/list costs the same every time: three cost three times one. (This server's
  // gateway asks its upstream's watcher every few seconds, which may land in one trial.)
  let one, three;
  for (let trial = 1; ; trial++) {
    [one, three] = [await perList(1), await perList(3)];
    const tripled = Object.fromEntries(fields.map((k) => [k, one[k] * 3]));
    if (trial === 3 || JSON.stringify(three) === JSON.stringify(tripled)) {
      assert.deepEqual(three, tripled);
      break;
    }
  }
  // At least the handler's own call in, the runtime's response out, and the request's
  // allocations.
  assert.ok(one.callsIn >= 1 && one.callsOut >= 1 && one.allocations >= 1, JSON.stringify(one));
  console.log(`# a warm tools/list: ${JSON.stringify(one)}`);
});

test("a job's wait costs the same object requests however long it lasts: fewer than polling", { timeout: BUILD_TIMEOUT_MS }, async () => {
  // The bench server of the test above (INLINE_BUDGET_MS = JOB_WAIT_MS), a client without
  // the extension (docs/hosts.md): slow_compute's next step is 600 s away, so no step runs
  // during the wait, and the call answers with the job's handle once the wait is over.
  const read = async () => JSON.parse((await counters()).text);
  const count = (c, cls) => c.classes[cls]?.requests ?? 0;
  const before = await read();
  const started = Date.now();
  const { body } = await rpc(server.mcpUrl, 'tools/call', { name: 'slow_compute', arguments: { seconds: 600 } }, { caps: {} });
  const waitedMs = Date.now() - started;
  assert.equal(body.result.structuredContent.status, 'working', JSON.stringify(body));
  const after = await read();
  // One request creates the task, one opens its watch socket: two for the whole wait.
  const objectRequests = count(after, 'TaskObject') - count(before, 'TaskObject');
  assert.equal(objectRequests, 2, JSON.stringify(after));
  // A client polling at pollIntervalMs (1000 ms) would have sent one per second of it.
  const polls = Math.floor(waitedMs / 1000);
  assert.ok(polls >= JOB_WAIT_MS / 1000 - 1, `waited ${waitedMs} ms`);
  console.log(`# a job's ${waitedMs} ms wait: ${objectRequests} TaskObject requests (creation + watch); polling at 1000 ms: 1 + ${polls}`);
  await ok(server.mcpUrl, 'tasks/cancel', { taskId: body.result.structuredContent.job });
});

test('a 2025-11-25 tasks/result follows its task on the watch socket: the same object requests however long it runs', { timeout: BUILD_TIMEOUT_MS }, async () => {
  // The bench server of the tests above; a session's task of 3 s, then tasks/result, which
  // blocks until the task ends (legacy tasks "Result Retrieval").
  const read = async () => JSON.parse((await counters()).text);
  const count = (c, cls, key = 'requests') => c.classes[cls]?.[key] ?? 0;
  const session = await openSession(server.mcpUrl);
  const before = await read();
  const created = responseOf(await session.call('tools/call', { name: 'slow_compute', arguments: { seconds: 3 }, task: {} }));
  const { taskId } = created.result.task;
  const started = Date.now();
  const { result } = responseOf(await session.call('tasks/result', { taskId }));
  const waitedMs = Date.now() - started;
  assert.equal(result.content[0].text, 'slow_compute: computed after 3 s', JSON.stringify(result));
  const after = await read();
  // One request creates the task, one reads it (an anonymous session learns whose task it
  // reaches: legacy::reach), one opens its watch socket, whose pushes carry every state up
  // to the result; the steps' alarms are the task's own work, not the follow's.
  const objectRequests = count(after, 'TaskObject') - count(before, 'TaskObject');
  assert.equal(objectRequests, 3, JSON.stringify(after));
  const polls = Math.floor(waitedMs / 1000);
  console.log(`# a tasks/result of ${waitedMs} ms: ${objectRequests} TaskObject requests (creation, reach, watch); reading at 1000 ms: 2 + ${polls}`);
});

test("a job's wait through the gateway costs the same object requests: the held call's progress comes as pushes", { timeout: BUILD_TIMEOUT_MS }, async () => {
  // ts_report (not repeatable: its task object holds the upstream call) for a client
  // without the extension, reporting progress each second while the call is held.
  const read = async () => JSON.parse((await counters()).text);
  const delta = (before, after, key) => (after.classes.TaskObject?.[key] ?? 0) - (before.classes.TaskObject?.[key] ?? 0);
  const before = await read();
  const started = Date.now();
  const { body } = await rpc(server.mcpUrl, 'tools/call', { name: 'ts_report', arguments: { seconds: 600, label: 'bench' } }, { caps: {} });
  const waitedMs = Date.now() - started;
  const { job, status, statusMessage } = body.result.structuredContent;
  assert.equal(status, 'working', JSON.stringify(body));
  assert.match(statusMessage ?? '', /page \d+/, 'the held call\'s progress reached the waiting call');
  const after = await read();
  // Creation and the watch socket, as for a native job; the held call is the alarm's.
  assert.equal(delta(before, after, 'requests'), 2, JSON.stringify(after));
  const written = delta(before, after, 'rowsWritten');
  console.log(`# a gateway job's ${waitedMs} ms wait: ${delta(before, after, 'requests')} TaskObject requests, ${delta(before, after, 'alarms')} alarm, ${written} rows written (the record, its checkpoint, progress at most once a second)`);
  await ok(server.mcpUrl, 'tasks/cancel', { taskId: job });
});

test('a warm 2025-11-25 session answers without reading its row again', { timeout: BUILD_TIMEOUT_MS }, async () => {
  // The session object keeps its row as it last read or wrote it (src/cloudflare/mirror.rs):
  // after initialize, its requests read nothing (and write nothing until the session's
  // last use is worth recording, `Session::touched`).
  const read = async () => JSON.parse((await counters()).text);
  const rows = (c, key) => c.classes.SessionObject?.[key] ?? 0;
  const session = await openSession(server.mcpUrl);
  const before = await read();
  for (const method of ['ping', 'tools/list', 'ping']) {
    assert.ok(responseOf(await session.call(method, {})).result, method);
  }
  const after = await read();
  assert.equal(rows(after, 'requests') - rows(before, 'requests'), 3, JSON.stringify(after));
  assert.equal(rows(after, 'rowsRead') - rows(before, 'rowsRead'), 0, JSON.stringify(after));
  console.log(`# 3 requests of a warm session: ${rows(after, 'rowsRead') - rows(before, 'rowsRead')} SessionObject rows read, ${rows(after, 'rowsWritten') - rows(before, 'rowsWritten')} written`);
});
