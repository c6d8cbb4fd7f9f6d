// The gateway (docs/gateway.md) in front of an upstream with tasks: this project's demo,
// served by a second `wrangler dev` and reached at 2026-07-28 (its server/discover says so)
// with the Tasks extension. A slow upstream tool is followed by its upstream task's id, so a
// kill -9 of the gateway mid-way loses nothing and repeats nothing; the upstream task's
// question becomes the gateway task's, and its answer goes back; cancel reaches it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { ok, pollUntil, terminal } from './mcp.mjs';

let upstream;
let gateway;
const gatewayVars = () => ({
  UPSTREAMS: JSON.stringify([{ name: 'demo', url: upstream.mcpUrl, prefix: 'demo_', tools: ['echo', 'process_batch', 'confirm_delete'] }]),
  FETCH_ALLOWED_HOSTS: 'nothing.invalid',
});

before(async () => {
  upstream = await startServer();
  gateway = await startServer({ vars: gatewayVars() });
});
after(async () => {
  await gateway?.stop();
  await upstream?.stop();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const upstreamEvents = (event, tool) => upstream.events().filter((e) => e.event === event && (!tool || e.tool === tool));

async function eventually(check, what, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await sleep(100);
  }
}

test('the allow-listed tools of the upstream are listed, and a synchronous one answers', async () => {
  const { tools } = await ok(gateway.mcpUrl, 'tools/list', {});
  const names = tools.map((t) => t.name).filter((n) => n.startsWith('demo_'));
  assert.deepEqual(names.sort(), ['demo_confirm_delete', 'demo_echo', 'demo_process_batch']);
  const created = await ok(gateway.mcpUrl, 'tools/call', { name: 'demo_echo', arguments: { text: 'through the gateway' } });
  const result = created.resultType === 'task'
    ? (await pollUntil(gateway.mcpUrl, created.taskId, terminal)).result
    : created;
  assert.equal(result.content[0].text, 'through the gateway');
});

test('an upstream task is followed by id: a kill -9 of the gateway loses and repeats nothing', async () => {
  const created = await ok(gateway.mcpUrl, 'tools/call', { name: 'demo_process_batch', arguments: { items: 6, delayMs: 1000 } });
  assert.equal(created.resultType, 'task');
  await eventually(() => upstreamEvents('task.created', 'process_batch').length === 1, 'the upstream task is created');
  // The upstream's progress reaches the gateway's task.
  const moving = await pollUntil(gateway.mcpUrl, created.taskId, (t) => /Processed [1-9]\/6 items/.test(t.statusMessage ?? ''), { timeoutMs: 20_000 });
  assert.equal(moving.status, 'working');
  await gateway.kill();
  gateway = await startServer({ vars: gatewayVars(), port: gateway.port, persistDir: gateway.persistDir });
  const done = await pollUntil(gateway.mcpUrl, created.taskId, terminal, { timeoutMs: 40_000 });
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.match(done.result.content.map((c) => c.text).join('\n'), /Processed 6 items/);
  assert.equal(upstreamEvents('task.created', 'process_batch').length, 1, 'the upstream work was not started again');
  assert.equal(upstreamEvents('task.completed', 'process_batch').length, 1);
});

test('cancelling the task cancels the upstream task', async () => {
  const before = upstreamEvents('task.created', 'process_batch').length;
  const created = await ok(gateway.mcpUrl, 'tools/call', { name: 'demo_process_batch', arguments: { items: 60, delayMs: 1000 } });
  await eventually(() => upstreamEvents('task.created', 'process_batch').length === before + 1, 'the upstream task is created');
  // The gateway's task holds the upstream task's id once its first step has run.
  await pollUntil(gateway.mcpUrl, created.taskId, (t) => /Processed/.test(t.statusMessage ?? ''), { timeoutMs: 20_000 });
  await ok(gateway.mcpUrl, 'tasks/cancel', { taskId: created.taskId });
  assert.equal((await ok(gateway.mcpUrl, 'tasks/get', { taskId: created.taskId })).status, 'cancelled');
  await eventually(() => upstreamEvents('task.cancelled', 'process_batch').length === 1, 'the upstream task is cancelled');
});

test('the upstream task\'s question is the task\'s: answered here, sent upstream with tasks/update', async () => {
  const created = await ok(gateway.mcpUrl, 'tools/call', { name: 'demo_confirm_delete', arguments: { filename: 'a.txt' } });
  assert.equal(created.resultType, 'task');
  const asking = await pollUntil(gateway.mcpUrl, created.taskId, (t) => t.status === 'input_required' || terminal(t), { timeoutMs: 30_000 });
  assert.equal(asking.status, 'input_required', JSON.stringify(asking));
  const [[key, question]] = Object.entries(asking.inputRequests);
  assert.equal(question.params.message, 'Delete a.txt?');
  await ok(gateway.mcpUrl, 'tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } });
  const done = await pollUntil(gateway.mcpUrl, created.taskId, terminal, { timeoutMs: 30_000 });
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.result.content[0].text, 'Deleted a.txt.');
  assert.equal(upstreamEvents('task.input_answered', 'confirm_delete').length, 1, 'answered upstream once');
});
