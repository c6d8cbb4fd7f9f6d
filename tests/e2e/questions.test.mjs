// Typed questions under wrangler dev (the demo's approve_release and hello_world, which
// ask with `call.ask::<T>` from their first step): in a task for a client with the
// Tasks extension, by MRTR for one without; the form derived from the Rust type; wrong
// answers refused with their path, right ones decoded into the typed result.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openSession, responseOf } from '../support/legacy.mjs';
import { startServer } from '../support/server.mjs';
import { ok, pollUntil, rpc, terminal } from './mcp.mjs';

let server, url;
before(async () => { server = await startServer(); url = server.mcpUrl; });
after(async () => { await server?.stop(); });

const NO_TASKS = { caps: { elicitation: {} } };
const APPROVED = { approve: true, environment: 'production', note: 'ship it' };

function checkForm(request) {
  assert.equal(request.method, 'elicitation/create');
  assert.equal(request.params.message, 'Release version 2.1.0?');
  const form = request.params.requestedSchema;
  assert.deepEqual(form.required, ['approve', 'environment']);
  assert.deepEqual(form.properties.environment.oneOf,
    [{ const: 'staging', title: 'Staging' }, { const: 'production', title: 'Production' }]);
  assert.equal(form.properties.note.maxLength, 200);
}

test('with the Tasks extension the first question is the task: input_required from creation', async () => {
  const created = await ok(url, 'tools/call', { name: 'approve_release', arguments: { version: '2.1.0' } });
  assert.equal(created.resultType, 'task');
  assert.equal(created.status, 'input_required');
  assert.equal(created._meta['mcp-tasks-edge/task'].tool, 'approve_release');
  const [key] = Object.keys(created.inputRequests);
  checkForm(created.inputRequests[key]);

  const wrong = await rpc(url, 'tasks/update', { taskId: created.taskId,
    inputResponses: { [key]: { action: 'accept', content: { approve: true, environment: 'moon' } } } });
  assert.equal(wrong.body.error.code, -32602, JSON.stringify(wrong.body));
  assert.match(wrong.body.error.message, /\/environment/);
  assert.equal((await ok(url, 'tasks/get', { taskId: created.taskId })).status, 'input_required');

  await ok(url, 'tasks/update', { taskId: created.taskId,
    inputResponses: { [key]: { action: 'accept', content: APPROVED } } });
  const done = await pollUntil(url, created.taskId, terminal);
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.result.structuredContent,
    { version: '2.1.0', decision: 'approved', environment: 'production', note: 'ship it' });
});

test('without it the same question is an MRTR round; the answer arrives typed', async () => {
  const asked = await ok(url, 'tools/call', { name: 'approve_release', arguments: { version: '2.1.0' } }, NO_TASKS);
  assert.equal(asked.resultType, 'input_required');
  checkForm(asked.inputRequests.approval);
  const retry = (content) => rpc(url, 'tools/call', { name: 'approve_release', arguments: { version: '2.1.0' },
    requestState: asked.requestState, inputResponses: { approval: { action: 'accept', content } } }, NO_TASKS);

  const wrong = await retry({ approve: 'yes', environment: 'staging' });
  assert.equal(wrong.body.error.code, -32602, JSON.stringify(wrong.body));
  assert.match(wrong.body.error.message, /"approval".*\/approve/);
  const right = await retry(APPROVED);
  assert.equal(right.body.result.resultType, 'complete');
  assert.equal(right.body.result.structuredContent.decision, 'approved');
});

test('decline and cancel reach the step as such, inline and in a task', async () => {
  const asked = await ok(url, 'tools/call', { name: 'hello_world', arguments: {} }, NO_TASKS);
  const declined = await ok(url, 'tools/call', { name: 'hello_world', arguments: {},
    requestState: asked.requestState, inputResponses: { name: { action: 'decline' } } }, NO_TASKS);
  assert.equal(declined.content[0].text, 'Hello, stranger!');

  const task = await ok(url, 'tools/call', { name: 'hello_world', arguments: {} });
  assert.equal(task.status, 'input_required');
  const [key] = Object.keys(task.inputRequests);
  await ok(url, 'tasks/update', { taskId: task.taskId, inputResponses: { [key]: { action: 'cancel' } } });
  const done = await pollUntil(url, task.taskId, terminal);
  assert.equal(done.result.isError, true);
  assert.equal(done.result.content[0].text, 'The user cancelled the question.');
});

test('a tool that asks late is refused before working when its task could not ask: -32021, in both eras', async () => {
  // publish_report renders its pages, then asks: without elicitation its task would fail at
  // the question with the pages thrown away, so the call is refused before the first page.
  const before = (await ok(url, 'mcp-tasks-edge/tasks/list', {})).tasks.length;
  const { status, body } = await rpc(url, 'tools/call', { name: 'publish_report', arguments: { pages: 3, delayMs: 100 } },
    { caps: { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
  assert.equal(body.error?.code, -32021, JSON.stringify(body));
  assert.equal(status, 400);
  assert.match(body.error.message, /elicitation.*publish_report asks the user/);
  assert.equal((await ok(url, 'mcp-tasks-edge/tasks/list', {})).tasks.length, before, 'no task was created');
  // 2025-11-25: a task-augmented call from a session without elicitation.
  const session = await openSession(url, { capabilities: {} });
  const legacy = responseOf(await session.call('tools/call', { name: 'publish_report', arguments: { pages: 3 }, task: {} }));
  assert.equal(legacy.error?.code, -32021, JSON.stringify(legacy));
  // Declaring elicitation: the pages, then the question, answered; the work was kept.
  const created = await ok(url, 'tools/call', { name: 'publish_report', arguments: { pages: 3, delayMs: 100 } });
  const asking = await pollUntil(url, created.taskId, (t) => t.status === 'input_required' || terminal(t));
  const [[key, question]] = Object.entries(asking.inputRequests);
  assert.equal(question.params.message, '3 pages are rendered. Publish the report?');
  await ok(url, 'tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: { publish: true } } } });
  const done = await pollUntil(url, created.taskId, terminal);
  assert.equal(done.result.content[0].text, 'Published 3 pages.');
});
