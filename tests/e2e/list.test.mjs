// Listing a principal's tasks page by page (`mcp-tasks-edge/tasks/list` and the
// 2025-11-25 `tasks/list` read the same pages, src/cloudflare/my_tasks.rs): 50 a page,
// newest first, every task once, the cursor the index key a page ends at; a cursor that
// cannot be one is refused before it reaches storage, and another caller lists nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { ok, rpc } from './mcp.mjs';

let server;
before(async () => { server = await startServer(); });
after(() => server?.stop());

test('55 tasks list as a page of 50 and a page of 5, newest first, each once', async () => {
  const url = server.mcpUrl;
  const alice = { token: TEST_KEYS.alice };
  const created = [];
  for (let i = 0; i < 55; i++) {
    const task = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 60 } }, alice);
    assert.equal(task.resultType, 'task');
    created.push(task.taskId);
  }
  const first = await ok(url, 'mcp-tasks-edge/tasks/list', {}, alice);
  assert.equal(first.tasks.length, 50);
  assert.equal(typeof first.nextCursor, 'string');
  const second = await ok(url, 'mcp-tasks-edge/tasks/list', { cursor: first.nextCursor }, alice);
  assert.equal(second.tasks.length, 5);
  assert.equal(second.nextCursor, undefined);
  const listed = [...first.tasks, ...second.tasks].map((t) => t.taskId);
  assert.deepEqual(listed, [...created].reverse());
  assert.ok(first.tasks.every((t) => t.status === 'working'), JSON.stringify(first.tasks[0]));

  // A cursor that is not an index key, and one of the right shape from nowhere.
  for (const cursor of ['50', 'task:junk']) {
    const bad = await rpc(url, 'mcp-tasks-edge/tasks/list', { cursor }, alice);
    assert.equal(bad.body.error?.code, -32602, JSON.stringify(bad.body));
    assert.match(bad.body.error.message, /Invalid cursor/);
  }
  const beyond = await ok(url, 'mcp-tasks-edge/tasks/list', { cursor: 'task:0000000000000000:x' }, alice);
  assert.deepEqual(beyond.tasks, []);
  // Another principal's cursor positions only in its own (empty) index.
  const mallory = await ok(url, 'mcp-tasks-edge/tasks/list', { cursor: first.nextCursor },
    { token: TEST_KEYS.mallory });
  assert.deepEqual(mallory.tasks, []);
  for (const taskId of created) await ok(url, 'tasks/cancel', { taskId }, alice);
});

test('a task names its tool and shows its progress in numbers; my tasks filter by status and tool', async () => {
  const url = server.mcpUrl;
  const bob = { token: TEST_KEYS.browser }; // a principal of its own here
  const facts = (task) => task._meta?.['mcp-tasks-edge/task'];
  // process_batch reports each item as progress (and in its statusMessage).
  const batch = await ok(url, 'tools/call', { name: 'process_batch', arguments: { items: 5, delayMs: 400, label: 'facts' } }, bob);
  assert.equal(batch.resultType, 'task');
  // Its first step (item 1) ran before the task existed: the created task says so.
  assert.deepEqual(facts(batch), { tool: 'process_batch', title: 'Process a batch (long task)', progress: 1, total: 5 });
  let seen;
  for (let i = 0; i < 50 && !(facts(seen ?? {})?.progress >= 2); i++) {
    seen = await ok(url, 'tasks/get', { taskId: batch.taskId }, bob);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(facts(seen).total, 5, JSON.stringify(seen));
  assert.ok(facts(seen).progress >= 2 && facts(seen).progress <= 5, JSON.stringify(seen));
  assert.match(seen.statusMessage, new RegExp(`Processed ${facts(seen).progress}/5 items`));
  const waiting = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 60 } }, bob);
  const list = async (params) => (await ok(url, 'mcp-tasks-edge/tasks/list', params, bob)).tasks.map((t) => t.taskId);
  assert.deepEqual(await list({ tool: 'process_batch' }), [batch.taskId]);
  assert.deepEqual(await list({ tool: 'slow_compute', status: 'working' }), [waiting.taskId]);
  assert.deepEqual(await list({ status: 'completed' }), []);
  const listed = (await ok(url, 'mcp-tasks-edge/tasks/list', {}, bob)).tasks;
  assert.deepEqual(listed.map((t) => facts(t).tool), ['slow_compute', 'process_batch']);
  const bad = await rpc(url, 'mcp-tasks-edge/tasks/list', { status: 'finished' }, bob);
  assert.equal(bad.body.error?.code, -32602, JSON.stringify(bad.body));
  // Another principal filtering by the same tool sees none of them.
  assert.deepEqual((await ok(url, 'mcp-tasks-edge/tasks/list', { tool: 'process_batch' }, { token: TEST_KEYS.mallory })).tasks, []);
  for (const taskId of [batch.taskId, waiting.taskId]) await ok(url, 'tasks/cancel', { taskId }, bob);
});
