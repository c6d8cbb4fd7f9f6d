// A completed task's result as each era reads it, under wrangler dev: 2026-07-28 readers
// (tasks/get, notifications/tasks on a listen stream) get a CallToolResult with
// resultType "complete"; 2025-11-25 readers (tasks/result) get it without, whichever era
// created the task (tests/wire_tasks.rs pins the bytes).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { openListen } from '../support/listen.mjs';
import { openSession, responseOf } from '../support/legacy.mjs';
import { ok, pollUntil, terminal } from './mcp.mjs';

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

let server, url;
before(async () => { server = await startServer(); url = server.mcpUrl; });
after(async () => { await server?.stop(); });

test('2026-07-28: tasks/get and notifications/tasks carry resultType inside the result', async () => {
  const created = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1 } });
  assert.equal(created.resultType, 'task');
  const stream = await openListen(url, [created.taskId]);
  const pushed = await stream.until((m) => m.params?.status === 'completed');
  stream.close();
  assert.equal(pushed.params.result.resultType, 'complete');
  assert.equal(pushed.params.result.content[0].text, 'slow_compute: computed after 1 s');
  const done = await pollUntil(url, created.taskId, terminal);
  assert.equal(done.resultType, 'complete');
  assert.deepEqual(done.result, pushed.params.result);
  // Every 2026-07-28 result names the server (tests/server_info.rs); the task's own
  // result inside it does not, nor does a 2025-11-25 one (below).
  for (const result of [created, done]) assert.equal(result._meta[SERVER_INFO].name, 'mcp-tasks-edge');
  assert.equal(done.result._meta?.[SERVER_INFO], undefined);
});

test('2025-11-25: tasks/result of the same kind of task has no resultType, tasks/get no result', async () => {
  const token = TEST_KEYS.alice;
  const session = await openSession(url, { token });
  const created = responseOf(await session.call('tools/call', { name: 'slow_compute', arguments: { seconds: 1 }, task: {} }));
  const { taskId } = created.result.task;
  const result = responseOf(await session.call('tasks/result', { taskId })).result;
  assert.deepEqual(result, { content: [{ type: 'text', text: 'slow_compute: computed after 1 s' }], isError: false,
    _meta: { 'io.modelcontextprotocol/related-task': { taskId } } });
  const task = responseOf(await session.call('tasks/get', { taskId })).result;
  assert.equal(task.status, 'completed');
  assert.equal(task.result, undefined);
  assert.equal(task.resultType, undefined);
  // The same task read by the other era: the modern reader gets resultType.
  const modern = await ok(url, 'tasks/get', { taskId }, { token });
  assert.equal(modern.result.resultType, 'complete');
});
