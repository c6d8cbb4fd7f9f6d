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
