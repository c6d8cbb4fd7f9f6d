// Tasks end to end under wrangler dev: one Durable Object per task.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { ACK, ok, pollUntil, rpc, terminal } from './mcp.mjs';

let server, url;
before(async () => { server = await startServer(); url = server.mcpUrl; });
after(async () => { await server?.stop(); });

test('create → poll → complete, durable on creation', async () => {
  const created = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 'e2e' } });
  assert.equal(created.resultType, 'task');
  assert.match(created.taskId, /^[0-9a-f]{32}$/);
  // Strong consistency: the task resolves immediately.
  const first = await ok(url, 'tasks/get', { taskId: created.taskId });
  assert.equal(first.taskId, created.taskId);
  assert.equal(first.status, 'working');
  const done = await pollUntil(url, created.taskId, terminal);
  assert.equal(done.status, 'completed');
  assert.equal(done.result.content[0].text, 'e2e: computed after 1 s');
  assert.equal(done.resultType, 'complete');
});

test('input_required → tasks/update → complete', async () => {
  const { taskId } = await ok(url, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'notes.txt' } });
  const waiting = await pollUntil(url, taskId, (t) => t.status === 'input_required');
  const [key] = Object.keys(waiting.inputRequests);
  assert.equal(waiting.inputRequests[key].method, 'elicitation/create');
  const ack = await ok(url, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } });
  assert.deepEqual(ack, ACK);
  const done = await pollUntil(url, taskId, terminal);
  assert.equal(done.status, 'completed');
  assert.equal(done.result.content[0].text, 'Deleted notes.txt.');
});

test('cancel while working, while waiting for input, and after the end', async () => {
  const working = await ok(url, 'tools/call', { name: 'process_batch', arguments: { items: 50, delayMs: 200 } });
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(await ok(url, 'tasks/cancel', { taskId: working.taskId }), ACK);
  const cancelled = await ok(url, 'tasks/get', { taskId: working.taskId });
  assert.equal(cancelled.status, 'cancelled');
  // No further steps run after the cancel.
  await new Promise((r) => setTimeout(r, 600));
  assert.equal((await ok(url, 'tasks/get', { taskId: working.taskId })).lastUpdatedAt, cancelled.lastUpdatedAt);

  const waiting = await ok(url, 'tools/call', { name: 'hello_world', arguments: {} });
  await pollUntil(url, waiting.taskId, (t) => t.status === 'input_required');
  await ok(url, 'tasks/cancel', { taskId: waiting.taskId });
  const after = await ok(url, 'tasks/get', { taskId: waiting.taskId });
  assert.equal(after.status, 'cancelled');
  assert.equal('inputRequests' in after, false);
  assert.deepEqual(await ok(url, 'tasks/cancel', { taskId: waiting.taskId }), ACK);
});

test('a tool error completes; a JSON-RPC error and a panic fail', async () => {
  const toolError = await ok(url, 'tools/call', { name: 'failing_job', arguments: {} });
  const completed = await pollUntil(url, toolError.taskId, terminal);
  assert.equal(completed.status, 'completed');
  assert.equal(completed.result.isError, true);

  const protocolError = await ok(url, 'tools/call', { name: 'protocol_error_job', arguments: {} });
  const failed = await pollUntil(url, protocolError.taskId, terminal);
  assert.equal(failed.status, 'failed');
  assert.equal(failed.error.code, -32603);
  assert.equal('result' in failed, false);

  const panicking = await ok(url, 'tools/call', { name: 'panic_job', arguments: {} });
  const crashed = await pollUntil(url, panicking.taskId, terminal, { timeoutMs: 60_000 });
  assert.equal(crashed.status, 'failed');
  assert.equal(crashed.error.code, -32603);
  // Each attempt crashed the instance; the lease re-ran the step, then gave up.
  assert.match(crashed.error.message, /"panic_job" did not finish a step in 3 attempts/);
  // The Worker still serves after the panic poisoned an instance.
  assert.equal((await ok(url, 'tools/call', { name: 'greet', arguments: { name: 'after' } })).content[0].text, 'Hello, after!');
});

test('a task belongs to its creator', async () => {
  const { taskId } = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30 } }, { token: 'alice-token' });
  assert.equal((await ok(url, 'tasks/get', { taskId }, { token: 'alice-token' })).taskId, taskId);
  for (const options of [{ token: 'mallory-token' }, {}]) {
    const { status, body } = await rpc(url, 'tasks/get', { taskId }, options);
    assert.equal(status, 400);
    assert.equal(body.error.code, -32602);
    const cancel = await rpc(url, 'tasks/cancel', { taskId }, options);
    assert.equal(cancel.body.error.code, -32602);
  }
  assert.equal((await ok(url, 'tasks/get', { taskId }, { token: 'alice-token' })).status, 'working');
  await ok(url, 'tasks/cancel', { taskId }, { token: 'alice-token' });
});

test('subscriptions/listen streams notifications/tasks until the task ends', async () => {
  const { taskId } = await ok(url, 'tools/call', { name: 'process_batch', arguments: { items: 3, delayMs: 300 } });
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'sub-1', method: 'subscriptions/listen', params: {
      notifications: { taskIds: [taskId, 'ffffffffffffffffffffffffffffffff'], toolsListChanged: true },
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } } } }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /text\/event-stream/);
  const text = await res.text(); // the server ends the stream once the task is terminal
  const messages = text.split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.parse(f.slice(6)));
  assert.equal(messages[0].method, 'notifications/subscriptions/acknowledged');
  assert.deepEqual(messages[0].params.notifications, { taskIds: [taskId] });
  const updates = messages.filter((m) => m.method === 'notifications/tasks');
  assert.ok(updates.length >= 2, text);
  for (const u of updates) {
    assert.equal(u.params.taskId, taskId);
    assert.equal(u.params._meta['io.modelcontextprotocol/subscriptionId'], 'sub-1');
  }
  assert.equal(updates.at(-1).params.status, 'completed');
  assert.ok(updates.some((u) => /Processed \d\/3 items/.test(u.params.statusMessage ?? '')), text);
  const closing = messages.at(-1);
  assert.equal(closing.id, 'sub-1');
  assert.equal(closing.result.resultType, 'complete');
});

test('MRTR, then a task on the final round (composition)', async () => {
  const r1 = await ok(url, 'tools/call', { name: 'test_tool_with_task', arguments: {} });
  assert.equal(r1.resultType, 'input_required');
  const r2 = await ok(url, 'tools/call', { name: 'test_tool_with_task', arguments: {}, requestState: r1.requestState,
    inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } } });
  assert.equal(r2.resultType, 'task');
  const done = await pollUntil(url, r2.taskId, terminal);
  assert.equal(done.result.content[0].text, 'Task finished for Alice.');
});
