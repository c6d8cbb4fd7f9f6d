// The official TypeScript SDK 1.x client (@modelcontextprotocol/sdk, speaks 2025-11-25)
// against this server: initialize + Mcp-Session-Id, tools, an inline elicitation, legacy
// experimental tasks (task-augmented tools/call, tasks/get, tasks/result with an
// elicitation tagged with the task, tasks/cancel, tasks/list) and DELETE of the session.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startServer } from '../support/server.mjs';

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const TASK_ID = /^[0-9a-f]{32}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const LONG = { timeout: 120_000 };

let server;
let client;
let transport;
/** Every elicitation/create the client received: { params, meta }. */
const elicitations = [];
/** How the client answers the next elicitation; each test sets it. */
let answer = () => ({ action: 'decline' });
/** Task ids this session created, for tasks/list. */
const created = {};

before(async () => {
  server = await startServer();
  client = new Client(
    { name: 'sdk-v1-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicitations.push({ params: request.params, meta: request.params._meta ?? {} });
    return answer(request.params);
  });
  transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl));
  await client.connect(transport);
});

after(async () => {
  try { await client?.close(); } catch { /* already closed */ }
  await server?.stop();
});

/** Every tool over every page of tools/list (this also fills the SDK's taskSupport cache). */
async function allTools() {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

function assertLegacyTask(task, taskId) {
  if (taskId) assert.equal(task.taskId, taskId);
  else assert.match(task.taskId, TASK_ID);
  assert.ok(['working', 'input_required', 'completed', 'failed', 'cancelled'].includes(task.status), task.status);
  assert.match(task.createdAt, ISO);
  assert.match(task.lastUpdatedAt, ISO);
  assert.ok('ttl' in task, 'ttl is required in a Task (number or null)');
  assert.ok(task.ttl === null || Number.isInteger(task.ttl), `ttl: ${task.ttl}`);
  // The 2026-07-28 names must not leak into the legacy shape.
  for (const modern of ['ttlMs', 'pollIntervalMs', 'resultType', 'inputRequests', 'result', 'error']) {
    assert.ok(!(modern in task), `legacy Task carries ${modern}: ${JSON.stringify(task)}`);
  }
}

test('initialize: a session, 2025-11-25, and legacy tasks in the capabilities', () => {
  assert.match(transport.sessionId ?? '', /^[\x21-\x7e]+$/, 'Mcp-Session-Id is visible ASCII');
  assert.equal(transport.protocolVersion, '2025-11-25');
  const caps = client.getServerCapabilities();
  assert.ok(caps.tools, 'tools capability');
  assert.ok(caps.tasks?.requests?.tools?.call, 'tasks.requests.tools.call');
  assert.ok(caps.tasks?.list, 'tasks.list');
  assert.ok(caps.tasks?.cancel, 'tasks.cancel');
  assert.equal(typeof client.getServerVersion()?.name, 'string');
});

test('tools/list: the fixtures, each with execution.taskSupport', async () => {
  // The SDK compiles each outputSchema with Ajv, which prints "unknown format" for a format
  // JSON Schema does not define (schemars' `uint64`, say): the server derives none.
  const warned = [];
  const warn = console.warn;
  console.warn = (...args) => { warned.push(args.join(' ')); };
  let tools;
  try {
    tools = await allTools();
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(warned.filter((w) => /format/.test(w)), []);
  const numbers = tools.filter((t) => Object.values(t.outputSchema?.properties ?? {}).some((p) => p.type === 'integer'));
  assert.ok(numbers.length > 0, 'some outputSchema has an integer to compile');
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const name of ['greet', 'slow_compute', 'confirm_delete', 'test_elicitation', 'process_batch', 'hello_world']) {
    assert.ok(byName[name], `tools/list has ${name}`);
  }
  for (const tool of tools) {
    assert.ok(['forbidden', 'optional', 'required'].includes(tool.execution?.taskSupport),
      `${tool.name}: execution.taskSupport = ${JSON.stringify(tool.execution)}`);
  }
  assert.equal(byName.greet.execution.taskSupport, 'forbidden');
  assert.equal(byName.slow_compute.execution.taskSupport, 'optional');
  assert.equal(byName.process_batch.execution.taskSupport, 'optional');
  assert.equal(byName.confirm_delete.execution.taskSupport, 'required');
  assert.equal(byName.confirm_delete.inputSchema.type, 'object');
});

test('tools/call greet', async () => {
  const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
  assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
  assert.notEqual(result.isError, true);
  for (const modern of ['resultType', 'ttlMs', 'cacheScope']) assert.ok(!(modern in result), modern);
});

test('tools/call test_elicitation: the elicitation reaches the handler, its answer the result', async () => {
  const before = elicitations.length;
  answer = () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } });
  const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } },
    undefined, LONG);
  assert.equal(elicitations.length, before + 1, 'exactly one elicitation');
  const { params, meta } = elicitations[before];
  assert.equal(params.message, 'Who are you?');
  assert.equal(params.mode ?? 'form', 'form');
  assert.deepEqual(Object.keys(params.requestedSchema.properties).sort(), ['email', 'username']);
  assert.ok(!(RELATED_TASK in meta), 'an inline elicitation is not tagged with a task');
  assert.equal(result.content.length, 1);
  const text = result.content[0].text;
  const m = /^User response: action=accept, content=(\{.*\})$/.exec(text);
  assert.ok(m, `result text: ${text}`);
  assert.deepEqual(JSON.parse(m[1]), { username: 'ada', email: 'ada@example.com' });
});

test('legacy task: callToolStream on confirm_delete, elicitation answered through the handler', async () => {
  const before = elicitations.length;
  answer = () => ({ action: 'accept', content: { confirm: true } });
  const messages = [];
  for await (const message of client.experimental.tasks.callToolStream(
    { name: 'confirm_delete', arguments: { filename: 'notes.txt' } }, undefined, LONG)) {
    messages.push(message);
  }
  const kinds = messages.map((m) => m.type);
  assert.equal(kinds[0], 'taskCreated', `stream: ${kinds}`);
  assert.equal(kinds.at(-1), 'result', `stream: ${JSON.stringify(messages.at(-1))}`);
  const { task } = messages[0];
  assertLegacyTask(task);
  assert.ok(['working', 'input_required'].includes(task.status));
  const taskId = task.taskId;
  created.confirm = taskId;
  for (const m of messages.filter((m) => m.type === 'taskStatus')) assertLegacyTask(m.task, taskId);

  // The question travelled as a server→client request tagged with the task.
  assert.equal(elicitations.length, before + 1, 'exactly one elicitation');
  const { params, meta } = elicitations[before];
  assert.equal(params.message, 'Delete notes.txt?');
  assert.deepEqual(params.requestedSchema.properties, { confirm: { type: 'boolean' } });
  assert.deepEqual(meta[RELATED_TASK], { taskId });

  const { result } = messages.at(-1);
  assert.deepEqual(result.content, [{ type: 'text', text: 'Deleted notes.txt.' }]);
  // 2025-11-25 tasks "Related Task Metadata": tasks/result MUST carry it.
  assert.deepEqual(result._meta?.[RELATED_TASK], { taskId });

  const done = await client.experimental.tasks.getTask(taskId);
  assertLegacyTask(done, taskId);
  assert.equal(done.status, 'completed');
  // A completed task's result can be fetched again, unchanged.
  const again = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, LONG);
  assert.deepEqual(again.content, [{ type: 'text', text: 'Deleted notes.txt.' }]);
});

test('legacy task: declining keeps the file', async () => {
  answer = () => ({ action: 'decline' });
  let last;
  let taskId;
  for await (const message of client.experimental.tasks.callToolStream(
    { name: 'confirm_delete', arguments: { filename: 'keep.txt' } }, undefined, LONG)) {
    if (message.type === 'taskCreated') taskId = message.task.taskId;
    last = message;
  }
  assert.equal(last.type, 'result', JSON.stringify(last));
  assert.deepEqual(last.result.content, [{ type: 'text', text: 'Kept keep.txt.' }]);
  created.declined = taskId;
});

test('hello_world (taskSupport optional): inline, then as a task; both ask through the handler', async () => {
  answer = () => ({ action: 'accept', content: { name: 'Lin' } });
  let before = elicitations.length;
  const inline = await client.callTool({ name: 'hello_world', arguments: {} }, undefined, LONG);
  assert.deepEqual(inline.content, [{ type: 'text', text: 'Hello, Lin!' }]);
  assert.equal(elicitations.length, before + 1);
  assert.equal(elicitations[before].params.message, 'Please enter your name.');
  assert.ok(!(RELATED_TASK in elicitations[before].meta));

  before = elicitations.length;
  const messages = [];
  for await (const message of client.experimental.tasks.callToolStream(
    { name: 'hello_world', arguments: {} }, undefined, LONG)) {
    messages.push(message);
  }
  assert.equal(messages[0].type, 'taskCreated');
  const taskId = messages[0].task.taskId;
  created.hello = taskId;
  assert.equal(messages.at(-1).type, 'result', JSON.stringify(messages.at(-1)));
  assert.deepEqual(messages.at(-1).result.content, [{ type: 'text', text: 'Hello, Lin!' }]);
  assert.equal(elicitations.length, before + 1);
  assert.deepEqual(elicitations[before].meta[RELATED_TASK], { taskId });
});

test('legacy task: tasks/cancel on a long process_batch', async () => {
  const messages = [];
  let cancelled;
  for await (const message of client.experimental.tasks.callToolStream(
    { name: 'process_batch', arguments: { items: 100, delayMs: 500, label: 'doomed' } },
    undefined, { ...LONG, task: { ttl: 600_000 } })) {
    messages.push(message);
    if (message.type === 'taskCreated') {
      assertLegacyTask(message.task);
      assert.equal(message.task.status, 'working');
      created.batch = message.task.taskId;
      cancelled = await client.experimental.tasks.cancelTask(message.task.taskId);
    }
  }
  const taskId = created.batch;
  assert.ok(taskId, 'a task was created');
  assertLegacyTask(cancelled, taskId);
  assert.equal(cancelled.status, 'cancelled', 'tasks/cancel answers with the task, cancelled');
  // The stream sees the cancellation and ends with an error naming it.
  const statuses = messages.filter((m) => m.type === 'taskStatus').map((m) => m.task.status);
  assert.deepEqual(statuses, ['cancelled']);
  const last = messages.at(-1);
  assert.equal(last.type, 'error');
  assert.match(last.error.message, /cancelled/);

  // It stays cancelled, and a second cancel is -32602 (tasks "Task Cancellation" 1).
  await new Promise((r) => setTimeout(r, 1200));
  const later = await client.experimental.tasks.getTask(taskId);
  assert.equal(later.status, 'cancelled');
  await assert.rejects(client.experimental.tasks.cancelTask(taskId), (e) => e.code === -32602);
});

const expectCode = (code) => (e) => e.code === code || assert.fail(`expected ${code}, got ${e.code}: ${e.message}`);

test('a taskSupport "required" tool called without params.task: -32601 (tasks "Tool-Level Negotiation" 2.3, MUST)', async () => {
  await assert.rejects(
    client.request({ method: 'tools/call', params: { name: 'confirm_delete', arguments: { filename: 'x' } } },
      CallToolResultSchema),
    expectCode(-32601));
});

test('protocol errors of legacy tasks (tasks "Tool-Level Negotiation" 2.1, "Protocol Errors")', async () => {
  // taskSupport "forbidden" called with params.task: an error, not a task (Servers SHOULD
  // answer -32601; this asserts only that it is refused).
  await assert.rejects(
    client.request({ method: 'tools/call', params: { name: 'greet', arguments: { name: 'x' } } },
      CreateTaskResultSchema, { task: { ttl: 60_000 } }),
    (e) => Number.isInteger(e.code) || assert.fail(`not a JSON-RPC error: ${e}`));
  // A nonexistent taskId in tasks/get, tasks/result, tasks/cancel; a bad cursor: -32602.
  const missing = '0123456789abcdef0123456789abcdef';
  const tasks = client.experimental.tasks;
  for (const [what, send] of [
    ['tasks/get', () => tasks.getTask(missing)],
    ['tasks/result', () => tasks.getTaskResult(missing, CallToolResultSchema)],
    ['tasks/cancel', () => tasks.cancelTask(missing)],
    ['tasks/get (not an id)', () => tasks.getTask('not-a-task')],
    ['tasks/list (bad cursor)', () => tasks.listTasks('no-such-cursor')],
  ]) {
    await assert.rejects(send, (e) => e.code === -32602 || assert.fail(`${what}: expected -32602, got ${e.code}: ${e.message}`));
  }
});

test('tasks/list: the tasks this session created, with their final statuses', async () => {
  assert.ok(created.confirm && created.declined && created.hello && created.batch);
  const tasks = [];
  let cursor;
  do {
    const page = await client.experimental.tasks.listTasks(cursor);
    tasks.push(...page.tasks);
    cursor = page.nextCursor;
  } while (cursor);
  for (const t of tasks) assertLegacyTask(t);
  const byId = Object.fromEntries(tasks.map((t) => [t.taskId, t]));
  assert.equal(byId[created.confirm]?.status, 'completed');
  assert.equal(byId[created.declined]?.status, 'completed');
  assert.equal(byId[created.hello]?.status, 'completed');
  assert.equal(byId[created.batch]?.status, 'cancelled');
  // Newest first is this server's documented order (not required by the spec).
  const ours = [created.batch, created.hello, created.declined, created.confirm];
  assert.deepEqual(tasks.map((t) => t.taskId).filter((id) => ours.includes(id)), ours);
});

/** Creates a task for `name` with a raw task-augmented tools/call and waits for its end. */
async function runTask(name, args = {}) {
  const { task } = await client.request({ method: 'tools/call', params: { name, arguments: args } },
    CreateTaskResultSchema, { task: { ttl: 600_000 } });
  const deadline = Date.now() + 60_000;
  let now = task;
  while (!['completed', 'failed', 'cancelled'].includes(now.status)) {
    assert.ok(Date.now() < deadline, `task ${task.taskId} never ended: ${JSON.stringify(now)}`);
    await new Promise((r) => setTimeout(r, 200));
    now = await client.experimental.tasks.getTask(task.taskId);
  }
  return now;
}

test('a task ending in a JSON-RPC error: failed, and tasks/result returns that error', async () => {
  const task = await runTask('protocol_error_job');
  assert.equal(task.status, 'failed');
  await assert.rejects(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
    (e) => (e.code === -32603 && /protocol_error_job raised an internal error on purpose/.test(e.message))
      || assert.fail(`${e.code}: ${e.message}`));
});

test('a task whose tool result has isError: tasks/result returns that result', async () => {
  const task = await runTask('failing_job');
  const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
  assert.equal(result.isError, true);
  assert.deepEqual(result.content, [{ type: 'text', text: 'The job failed: the input could not be processed.' }]);
  assert.deepEqual(result._meta?.[RELATED_TASK], { taskId: task.taskId });
});

test('a task whose tool result has isError ends "failed" (tasks "Task Execution Errors")', async () => {
  const task = await runTask('failing_job');
  assert.equal(task.status, 'failed', JSON.stringify(task));
});

test('a task another session can tasks/get is in that session\'s tasks/list (tasks "Task Listing" 4, MUST)', async () => {
  const other = new Client({ name: 'sdk-v1-test-other', version: '1.0.0' }, { capabilities: {} });
  const otherTransport = new StreamableHTTPClientTransport(new URL(server.mcpUrl));
  await other.connect(otherTransport);
  try {
    assert.notEqual(otherTransport.sessionId, transport.sessionId);
    let visible = true;
    try {
      await other.experimental.tasks.getTask(created.confirm);
    } catch (e) {
      assert.equal(e.code, -32602);
      visible = false;
    }
    if (visible) {
      const { tasks } = await other.experimental.tasks.listTasks();
      assert.ok(tasks.some((t) => t.taskId === created.confirm),
        `tasks/get in session B finds ${created.confirm} (created in session A), tasks/list in B does not: ${JSON.stringify(tasks)}`);
    }
  } finally {
    await otherTransport.terminateSession().catch(() => {});
    await other.close();
  }
});

test('DELETE ends the session: its id answers 404 afterwards', async () => {
  const sessionId = transport.sessionId;
  assert.ok(sessionId);
  await transport.terminateSession();
  assert.equal(transport.sessionId, undefined);
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    'mcp-session-id': sessionId,
  };
  const post = await fetch(server.mcpUrl, { method: 'POST', headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list', params: {} }) });
  await post.body?.cancel();
  assert.equal(post.status, 404, 'POST with a terminated session id');
  const get = await fetch(server.mcpUrl, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } });
  await get.body?.cancel();
  assert.equal(get.status, 404, 'GET with a terminated session id');
  const del = await fetch(server.mcpUrl, { method: 'DELETE', headers });
  await del.body?.cancel();
  assert.equal(del.status, 404, 'DELETE with a terminated session id');
});
