// subscriptions/listen with pushed notifications (tasks::watch, server::fanin) under
// wrangler dev: many tasks on one stream, order, the clean close, big results, and an
// object failure that must not look like a clean close.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { openListen } from '../support/listen.mjs';
import { ok, pollUntil } from './mcp.mjs';

let server, url;
// One reopen per task per stream: the failure test below exhausts it with two crashes.
before(async () => { server = await startServer({ vars: { LISTEN_RECONNECTS: '1' } }); url = server.mcpUrl; });
after(async () => { await server?.stop(); });

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const progress = (t) => Number(/Processed (\d+)\//.exec(t.statusMessage ?? '')?.[1] ?? 0);

test('20 tasks on one stream: all acknowledged, each in order to its end, then the clean close', async () => {
  const ids = [];
  for (let i = 0; i < 20; i++) {
    const { taskId } = await ok(url, 'tools/call', { name: 'process_batch', arguments: { items: 3, delayMs: 300 + 20 * i } });
    ids.push(taskId);
  }
  const stream = await openListen(url, ids, { id: 'many' });
  const messages = await stream.all(60_000);
  assert.equal(messages[0].method, 'notifications/subscriptions/acknowledged');
  assert.deepEqual([...messages[0].params.notifications.taskIds].sort(), [...ids].sort());
  const byTask = new Map(ids.map((id) => [id, []]));
  for (const m of messages.slice(1, -1)) {
    assert.equal(m.method, 'notifications/tasks', JSON.stringify(m));
    assert.equal(m.params._meta['io.modelcontextprotocol/subscriptionId'], 'many');
    byTask.get(m.params.taskId).push(m.params);
  }
  for (const [id, states] of byTask) {
    assert.ok(states.length >= 1, `no notification for ${id}`);
    assert.equal(states.at(-1).status, 'completed', `${id}: ${JSON.stringify(states.at(-1))}`);
    assert.equal(states.at(-1).result.content[0].type, 'text');
    // Never an older state after a newer one.
    for (let i = 1; i < states.length; i++) {
      assert.ok(!TERMINAL.has(states[i - 1].status), `${id}: a notification after the terminal one`);
      assert.ok(Date.parse(states[i].lastUpdatedAt) >= Date.parse(states[i - 1].lastUpdatedAt), `${id}: time went back`);
      if (states[i].status === 'working') assert.ok(progress(states[i]) >= progress(states[i - 1]), `${id}: progress went back`);
    }
  }
  const closing = messages.at(-1);
  assert.equal(closing.id, 'many');
  assert.equal(closing.result.resultType, 'complete');
});

test('tasks/update: the next notification arrives promptly (latency printed, not asserted)', async () => {
  const { taskId } = await ok(url, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'a.txt' } });
  const stream = await openListen(url, [taskId]);
  const waiting = await stream.until((m) => m.params?.status === 'input_required');
  const [key] = Object.keys(waiting.params.inputRequests);
  const sent = performance.now();
  await ok(url, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } });
  const next = await stream.until((m) => m.method === 'notifications/tasks');
  const latency = performance.now() - sent;
  assert.notEqual(next.params.status, 'input_required');
  console.log(`# tasks/update → next notification: ${latency.toFixed(1)} ms (${next.params.status})`);
  const rest = await stream.all(20_000);
  assert.equal(rest.at(-1).result?.resultType, 'complete');
});

test('a result too large to push arrives whole (read once by the Worker)', async () => {
  const { taskId } = await ok(url, 'tools/call', { name: 'big_result', arguments: { bytes: 1_000_000 } });
  const stream = await openListen(url, [taskId]);
  const messages = await stream.all(60_000);
  const last = messages.at(-2);
  assert.equal(last.params.status, 'completed');
  assert.equal(last.params.result.content[0].text.length, 1_000_000);
  assert.equal(messages.at(-1).result.resultType, 'complete');
});

test('unknown ids are not acknowledged; none at all: acknowledged empty, then the clean close', async () => {
  const stream = await openListen(url, ['ffffffffffffffffffffffffffffffff']);
  const messages = await stream.all(10_000);
  assert.deepEqual(messages[0].params.notifications.taskIds, []);
  assert.equal(messages.length, 2);
  assert.equal(messages[1].result.resultType, 'complete');
});

test('another principal is not acknowledged', async () => {
  const { taskId } = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 2, label: 'x' } }, { token: 'alice-token' });
  const stream = await openListen(url, [taskId], { token: 'mallory-token' });
  const messages = await stream.all(10_000);
  assert.deepEqual(messages[0].params.notifications.taskIds, []);
  assert.equal(messages.length, 2);
});

test('an object failure mid-stream ends the stream without the graceful result', async () => {
  // panic_job's second step panics in every attempt: each crash closes the object's
  // watch sockets (src/cloudflare/guard.js). The first is reopened (LISTEN_RECONNECTS=1); the second
  // exhausts the budget and the stream must end as an error, not as a clean close.
  // (Under wrangler dev the Worker shares the object's wasm instance, so the panic may
  // also break the stream's connection: either way there must be no result.)
  const { taskId } = await ok(url, 'tools/call', { name: 'panic_job', arguments: {} });
  const stream = await openListen(url, [taskId], { id: 'broken' });
  const messages = await stream.all(90_000);
  assert.equal(messages[0].method, 'notifications/subscriptions/acknowledged');
  assert.ok(!messages.some((m) => 'result' in m || 'error' in m), JSON.stringify(messages));
  assert.ok(stream.endedBy, 'the stream ended');
  console.log(`# the broken stream ended by: ${stream.endedBy}`);
  // The task itself goes on: it still ends (failed after its attempts), readable by get.
  const done = await pollUntil(url, taskId, (t) => TERMINAL.has(t.status), { timeoutMs: 90_000 });
  assert.equal(done.status, 'failed');
});
