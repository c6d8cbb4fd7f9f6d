// The gateway (docs/gateway.md) under wrangler dev, in front of a server written with the
// official TypeScript SDK 1.x (tests/support/upstream.mjs) whose `survey` tool asks in the
// middle of its call, as SDK 1.x servers ask: `server.elicitInput(...)`, an
// `elicitation/create` request on the call's own response stream. The question reaches a
// client with the Tasks extension as the task's `input_required` (answered with
// `tasks/update`) and the SDK 1.x client as its job's question (its own elicitation
// handler, or job_status and job_answer through mcp-remote for a host that cannot be
// asked), and the official Tasks client's own input handler; the answer goes upstream and
// the tool goes on, its progress shown while it runs; a decline is the upstream's own
// answer; a cancel (tasks/cancel, job_cancel) while the question is pending stops the
// upstream call.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sdkClient } from '../support/sdk-client.mjs';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { startBridge } from '../support/mcp-remote.mjs';
import { connect, within } from '../interop/host.mjs';
import { gatewayVars, startUpstream } from '../support/upstream.mjs';
import { ALL_CAPS, ok, terminal } from './mcp.mjs';

const WAIT_MS = 3000;
const LONG = { timeout: 60_000 };
const QUESTION = 'Which colour?';
let upstream;
let gateway;
const clients = [];

const vars = () => gatewayVars(upstream, 'upstream-only-secret', WAIT_MS);

before(async () => {
  upstream = await startUpstream();
  gateway = await startServer({ vars: vars() });
});
after(async () => {
  for (const c of clients) { try { await c.close(); } catch { /* closed */ } }
  await gateway?.stop();
  await upstream?.close();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const callsOf = (label) => upstream.record.calls.filter((c) => c.tool === 'survey' && c.args.label === label);
const asking = (t) => t.status === 'input_required' || terminal(t);

/** Waits for `check()` (true) until `timeoutMs`; whether it came. */
async function eventually(check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await sleep(100);
  return check();
}

/**
 * Polls tasks/get every 300 ms until `done(task)` or the deadline, keeping every read in
 * `seen` (progress shows in reads that come between the end states); the last read.
 */
async function follow(taskId, done, seen, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await ok(gateway.mcpUrl, 'tasks/get', { taskId });
    seen.push(task);
    if (done(task) || Date.now() > deadline) return task;
    await sleep(300);
  }
}

/** ts_survey as a task, for a client with the extension (and elicitation: ALL_CAPS). */
async function surveyTask(seconds, label) {
  const created = await ok(gateway.mcpUrl, 'tools/call', { name: 'ts_survey', arguments: { seconds, label } }, { caps: ALL_CAPS });
  assert.equal(created.resultType, 'task', JSON.stringify(created));
  return created.taskId;
}

/** The task's one question: its key, after checking it is the upstream's, as asked. */
function theQuestion(task) {
  assert.equal(task.status, 'input_required', `the upstream's question is the task's: ${JSON.stringify(task)}`);
  const entries = Object.entries(task.inputRequests ?? {});
  assert.equal(entries.length, 1, JSON.stringify(task.inputRequests));
  const [[key, question]] = entries;
  assert.equal(question.method, 'elicitation/create');
  assert.equal(question.params.message, QUESTION);
  assert.deepEqual(question.params.requestedSchema.properties.colour.enum, ['red', 'green', 'blue']);
  assert.ok(question.params.mode === undefined || question.params.mode === 'form', JSON.stringify(question.params));
  return key;
}

/** Whether a read shows the upstream's progress: its message ("page 3") or its counts. */
const showsProgress = (t) => /page [1-6]|[1-6]\/6/.test(t.statusMessage ?? '')
  || (t._meta?.['mcp-tasks-edge/task']?.progress ?? 0) > 0;

test('the asking tool is listed under the prefix, as the upstream declares it', async () => {
  const { tools } = await ok(gateway.mcpUrl, 'tools/list', {});
  const survey = tools.find((t) => t.name === 'ts_survey');
  assert.ok(survey, JSON.stringify(tools.map((t) => t.name)));
  assert.deepEqual(Object.keys(survey.inputSchema.properties).sort(), ['label', 'seconds']);
  assert.deepEqual(survey.outputSchema.required.sort(), ['answer', 'label', 'pages']);
  assert.equal(survey.annotations, undefined, 'not idempotent: no hints');
});

test('the Tasks extension: the question mid-call is the task\'s, answered with tasks/update; progress shows while it runs', async () => {
  const taskId = await surveyTask(6, 'task');
  const seen = [];
  const asked = await follow(taskId, asking, seen);
  const key = theQuestion(asked);
  assert.equal(callsOf('task').length, 1, 'the call reached the upstream');
  assert.equal(callsOf('task')[0].outcome, 'running', 'held while it asks');
  const ack = await ok(gateway.mcpUrl, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { colour: 'green' } } } });
  assert.ok(ack, 'tasks/update acknowledged');
  const done = await follow(taskId, terminal, seen);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.deepEqual(done.result.structuredContent, { label: 'task', answer: 'green', pages: 6 });
  assert.equal(done.result.content[0].text, 'Surveyed 6 pages for task: green');
  // Upstream progress reached the task while the call ran, not only at its end.
  const running = seen.filter((t) => !terminal(t));
  assert.ok(running.some(showsProgress), `progress while running: ${JSON.stringify(running.map((t) => [t.status, t.statusMessage, t._meta]))}`);
  const [entry] = callsOf('task');
  assert.equal(callsOf('task').length, 1, 'called once');
  assert.equal(entry.outcome, 'completed');
  assert.equal(entry.answer, 'green', 'the answer went upstream');
});

test('the SDK 1.x client without tasks: a job whose question reaches its own elicitation handler', async () => {
  // As Claude Code does: elicitation declared, no extension; the question comes on the
  // stream of whichever call waits for the job (the first one, or a job_status).
  const asked = [];
  const client = await sdkClient(gateway.mcpUrl, { name: 'gateway-questions', capabilities: { elicitation: {} }, token: TEST_KEYS.alice, clients,
    setup: (c) => c.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { colour: 'blue' } };
    }) });
  const pending = await client.callTool({ name: 'ts_survey', arguments: { seconds: 6, label: 'job' } }, undefined, LONG);
  assert.equal(pending.isError, false, JSON.stringify(pending));
  const { job, status } = pending.structuredContent;
  assert.ok(job && ['working', 'input_required'].includes(status), JSON.stringify(pending));
  let read;
  for (let i = 0; i < 15; i += 1) {
    read = await within(60_000, client.callTool({ name: 'job_status', arguments: { job, waitSeconds: WAIT_MS / 1000 } }, undefined, LONG), 'job_status');
    const state = read._meta['mcp-tasks-edge/job'].status;
    if (state !== 'working' && state !== 'input_required') break;
  }
  assert.deepEqual(asked.map((p) => p.message), [QUESTION], `asked once, by the host's own elicitation: ${JSON.stringify(read)}`);
  assert.deepEqual(asked[0].requestedSchema.required, ['colour']);
  assert.equal(read._meta['mcp-tasks-edge/job'].status, 'completed', JSON.stringify(read));
  assert.deepEqual(read.structuredContent, { label: 'job', answer: 'blue', pages: 6 });
  assert.equal(callsOf('job').length, 1, 'called once');
  assert.equal(callsOf('job')[0].answer, 'blue');
});

test('cancelling the task while its question is pending cancels the upstream call', async () => {
  const taskId = await surveyTask(30, 'cancel');
  const asked = await follow(taskId, asking, []);
  theQuestion(asked);
  await ok(gateway.mcpUrl, 'tasks/cancel', { taskId });
  assert.equal((await ok(gateway.mcpUrl, 'tasks/get', { taskId })).status, 'cancelled');
  assert.equal(callsOf('cancel').length, 1);
  // notifications/cancelled, or the session's DELETE: either aborts the SDK's handler.
  await eventually(() => callsOf('cancel')[0].outcome !== 'running', 10_000);
  assert.equal(callsOf('cancel')[0].outcome, 'cancelled', JSON.stringify(callsOf('cancel')[0]));
  assert.equal(callsOf('cancel')[0].answer, undefined, 'never answered');
  assert.equal((await ok(gateway.mcpUrl, 'tasks/get', { taskId })).status, 'cancelled', 'still cancelled');
});

test('a declined question is the upstream\'s to answer: the task completes with its text', async () => {
  const taskId = await surveyTask(6, 'decline');
  const key = theQuestion(await follow(taskId, asking, []));
  await ok(gateway.mcpUrl, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'decline' } } });
  const done = await follow(taskId, terminal, []);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.result.isError, false, JSON.stringify(done.result));
  assert.equal(done.result.content[0].text, 'The colour question was declined: survey stopped after page 1');
  assert.deepEqual(done.result.structuredContent, { label: 'decline', answer: 'decline', pages: 1 });
  assert.equal(callsOf('decline').length, 1);
  assert.equal(callsOf('decline')[0].answer, 'decline');
});

test('the official Tasks client (V2): the question reaches its input handler, the answer the upstream', async () => {
  const asked = [];
  const onInputRequest = async (request) => {
    asked.push(request);
    return { action: 'accept', content: { colour: 'red' } };
  };
  const client = await connect(gateway.mcpUrl, { generation: 'v2', token: TEST_KEYS.alice, onInputRequest });
  clients.push(client);
  const execution = await client.session.callTool('ts_survey', { seconds: 3, label: 'ext-tasks' });
  assert.equal(execution.kind, 'task');
  const { outcome } = await within(45_000, execution.settle(), 'ts_survey');
  assert.equal(outcome.status, 'completed', String(outcome.error));
  assert.deepEqual(resultFromTaskOutcome(outcome).structuredContent, { label: 'ext-tasks', answer: 'red', pages: 3 });
  assert.deepEqual(asked.map((r) => r.kind), ['elicitation']);
  assert.equal(asked[0].params.message, QUESTION);
  assert.equal(callsOf('ext-tasks')[0].answer, 'red');
});

test('mcp-remote, a desktop host that cannot be asked: job_status shows the question, job_answer answers it, job_cancel stops another', async () => {
  const bridge = startBridge(gateway.mcpUrl, TEST_KEYS.alice);
  clients.push(bridge);
  const { request } = bridge;
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'desktop-host', version: '1' } });
  bridge.notify('notifications/initialized');
  const jobOf = async (label) => {
    const pending = (await request('tools/call', { name: 'ts_survey', arguments: { seconds: 4, label } })).result;
    return pending._meta['mcp-tasks-edge/job'].job;
  };
  const status = async (job) => (await request('tools/call', { name: 'job_status', arguments: { job, waitSeconds: 2 } })).result;
  const job = await jobOf('bridged');
  let read = await status(job);
  for (let i = 0; i < 10 && read._meta['mcp-tasks-edge/job'].status === 'working'; i += 1) read = await status(job);
  assert.equal(read._meta['mcp-tasks-edge/job'].status, 'input_required', JSON.stringify(read));
  const [key] = Object.keys(read.structuredContent.inputRequests);
  assert.match(read.content[0].text, /Which colour\?.*job_answer/s);
  const wrong = (await request('tools/call', { name: 'job_answer', arguments: { job, answers: { [key]: { action: 'accept', content: { colour: 'mauve' } } } } })).result;
  assert.equal(wrong.isError, true, 'an answer outside the upstream\'s schema is refused before it goes upstream');
  await request('tools/call', { name: 'job_answer', arguments: { job, answers: { [key]: { action: 'accept', content: { colour: 'blue' } } } } });
  for (let i = 0; i < 10 && read._meta['mcp-tasks-edge/job'].status !== 'completed'; i += 1) read = await status(job);
  assert.ok(read.content.some((c) => c.text === 'Surveyed 4 pages for bridged: blue'), JSON.stringify(read));
  assert.equal(callsOf('bridged')[0].answer, 'blue');
  const other = await jobOf('bridged-cancel');
  await eventually(() => callsOf('bridged-cancel').length === 1, 10_000);
  const cancelled = (await request('tools/call', { name: 'job_cancel', arguments: { job: other } })).result;
  assert.equal(cancelled._meta['mcp-tasks-edge/job'].status, 'cancelled', JSON.stringify(cancelled));
  await eventually(() => callsOf('bridged-cancel')[0].outcome !== 'running', 10_000);
  assert.equal(callsOf('bridged-cancel')[0].outcome, 'cancelled');
});
