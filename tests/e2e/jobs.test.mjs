// Jobs for hosts without the Tasks extension (docs/hosts.md), under wrangler dev: a call
// that needs more time than INLINE_BUDGET_MS answers with a handle instead of -32021, and
// the handle tools read, answer and cancel the job, in both eras; a job's question
// reaches a client that declared elicitation through its own flow (MRTR at 2026-07-28,
// elicitation/create on the call's stream at 2025-11-25); another key's handle is
// unknown; a kill -9 of workerd does not lose the job.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { headersFor, rpc } from './mcp.mjs';
import { openSession, responseOf } from '../support/legacy.mjs';
import { readSse } from '../support/sse.mjs';

// A short wait keeps the suite fast; the rules are the same at the default 30 s.
const WAIT_MS = 3000;
let server, url;
before(async () => { server = await startServer({ vars: { INLINE_BUDGET_MS: String(WAIT_MS) } }); url = server.mcpUrl; });
after(async () => { await server?.stop(); });

const NO_TASKS = {};
const options = (caps = NO_TASKS, token = TEST_KEYS.alice) => ({ caps, token });

/** tools/call without the extension; the result (an error throws). */
async function call(name, args, opts = options()) {
  const { status, body } = await rpc(url, 'tools/call', { name, arguments: args }, opts);
  if (status !== 200 || body.error) throw new Error(`${name}: ${status} ${JSON.stringify(body)}`);
  return body.result;
}

/** job_status with a wait, until the job has ended. */
async function finished(job, opts = options(), timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const read = await call('job_status', { job, waitSeconds: WAIT_MS / 1000 }, opts);
    const status = read._meta['mcp-tasks-edge/job'].status;
    if (status !== 'working' && status !== 'input_required') return read;
    if (Date.now() > deadline) throw new Error(`job ${job} still ${status}`);
  }
}

test('a long call answers with a handle within the wait, never -32021; job_status gets the result', async () => {
  const started = Date.now();
  const pending = await call('process_batch', { items: 6, delayMs: 1000, label: 'long' });
  const waited = Date.now() - started;
  assert.ok(waited >= WAIT_MS - 100 && waited < WAIT_MS + 2500, `answered after ${waited} ms`);
  assert.equal(pending.isError, false);
  assert.equal(pending.resultType, 'complete');
  const { job, status, statusMessage, tool, next } = pending.structuredContent;
  assert.match(job, /^[0-9a-f]{32}$/);
  assert.deepEqual([status, tool], ['working', 'process_batch']);
  // The next calls with their exact arguments, for hosts that show a model structuredContent alone.
  assert.deepEqual(next.map((n) => n.tool), ['job_status', 'job_cancel']);
  assert.deepEqual(next[0].arguments, { job, waitSeconds: WAIT_MS / 1000 });
  assert.match(pending.structuredContent.message, new RegExp(`job ${job}; nothing is lost`));
  assert.match(statusMessage, /^Processed [1-5]\/6 items$/);
  assert.match(pending.content[0].text, new RegExp(`goes on as a job.*${job}.*job_status`, 's'));
  const done = await finished(job);
  assert.equal(done.isError, false);
  assert.match(done.content[0].text, new RegExp(`${job}.*has completed`));
  assert.match(done.content[1].text, /^Processed 6 items of long/);
  assert.equal(done.structuredContent.items, 6);
});

test('a job that ends within the wait is the ordinary result', async () => {
  const result = await call('process_batch', { items: 2, delayMs: 300, label: 'short' });
  assert.match(result.content[0].text, /^Processed 2 items of short/);
  assert.equal(result.structuredContent.items, 2);
  assert.equal(result._meta?.['mcp-tasks-edge/job'], undefined);
});

test('with a progressToken the wait streams notifications/progress from the status messages', async () => {
  const params = { name: 'process_batch', arguments: { items: 4, delayMs: 700, label: 'p' },
    _meta: { progressToken: 'tok', 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': NO_TASKS } };
  const headers = { ...headersFor('tools/call', params), accept: 'application/json, text/event-stream' };
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) });
  assert.match(res.headers.get('content-type'), /text\/event-stream/);
  const messages = [];
  for await (const m of readSse(res.body)) messages.push(m);
  const progress = messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
  assert.ok(progress.length >= 2, JSON.stringify(messages));
  assert.ok(progress.every((p, i) => p.progressToken === 'tok' && p.progress === i + 1 && /^Processed \d\/4 items$/.test(p.message)));
  const response = messages.find((m) => m.id === 1);
  assert.match(response.result.content[0].text, /^Processed 4 items of p/);
});

test('job_cancel stops the job; its tool is told; job_status then says cancelled', async () => {
  const { job } = (await call('process_batch', { items: 50, delayMs: 1000, label: 'c' })).structuredContent;
  const cancelled = await call('job_cancel', { job });
  assert.equal(cancelled.structuredContent.status, 'cancelled');
  assert.equal(cancelled.isError, false);
  const read = await call('job_status', { job });
  assert.equal(read.structuredContent.status, 'cancelled');
});

test('a question without elicitation: job_status shows it, job_answer checks and delivers the answer', async () => {
  const asked = await call('confirm_delete', { filename: 'a.txt' });
  const { job, status, inputRequests } = asked.structuredContent;
  assert.equal(status, 'input_required');
  // The task names its questions with keys unique over its life (ext-tasks "Input Requests").
  const [key] = Object.keys(inputRequests);
  assert.match(key, /^confirm/);
  assert.equal(inputRequests[key].params.message, 'Delete a.txt?');
  assert.match(asked.content[0].text, /Delete a\.txt\?.*job_answer/s);
  const wrong = await call('job_answer', { job, answers: { [key]: { action: 'accept', content: { confirm: 'yes' } } } });
  assert.equal(wrong.isError, true);
  assert.match(wrong.content[0].text, /confirm/);
  assert.equal(wrong.structuredContent.error, 'refused');
  const answered = await call('job_answer', { job, answers: { [key]: { action: 'accept', content: { confirm: true } } }, waitSeconds: 3 });
  assert.equal(answered.content[1].text, 'Deleted a.txt.');
});

test('a client that declares elicitation is asked by MRTR during the wait; the retry delivers the answer', async () => {
  const caps = { elicitation: {} };
  // slow_confirm works a second (so it is a job), then asks.
  const args = { seconds: 1 };
  const first = await call('slow_confirm', args, options(caps));
  assert.equal(first.resultType, 'input_required');
  const [key] = Object.keys(first.inputRequests);
  assert.equal(first.inputRequests[key].params.message, 'Go on?');
  const answer = (confirm, token) => rpc(url, 'tools/call', { name: 'slow_confirm', arguments: args,
    inputResponses: { [key]: { action: 'accept', content: { confirm } } }, requestState: first.requestState }, options(caps, token));
  // An answer that does not fit the question is refused with its path; the job still asks.
  const wrong = await answer('yes');
  assert.equal(wrong.body.error.code, -32602);
  assert.match(wrong.body.error.message, /confirm/);
  // Replayed by another key, the state is refused.
  assert.match((await answer(true, TEST_KEYS.mallory)).body.error.message, /different principal/);
  const retry = await answer(true);
  assert.equal(retry.body.result.content[0].text, 'Confirmed.');
});

test("another key's handle is an unknown job, as one that never existed; a malformed one names the rule", async () => {
  const { job } = (await call('process_batch', { items: 20, delayMs: 1000, label: 'mine' })).structuredContent;
  const other = await call('job_status', { job }, options(NO_TASKS, TEST_KEYS.mallory));
  const never = await call('job_status', { job: 'f'.repeat(32) }, options(NO_TASKS, TEST_KEYS.mallory));
  assert.equal(other.isError, true);
  assert.equal(other.structuredContent.error, 'unknown_job');
  assert.equal(other.content[0].text.replace(job, 'ID'), never.content[0].text.replace('f'.repeat(32), 'ID'));
  assert.equal((await call('job_cancel', { job }, options(NO_TASKS, TEST_KEYS.mallory))).structuredContent.error, 'unknown_job');
  const malformed = await call('job_status', { job: 'nope' });
  assert.equal(malformed.structuredContent.error, 'malformed_handle');
  assert.equal((await call('job_cancel', { job })).structuredContent.status, 'cancelled');
});

test('tools/list offers the handle tools only to clients without the extension', async () => {
  const names = async (caps) => (await rpc(url, 'tools/list', {}, options(caps))).body.result.tools.map((t) => t.name);
  assert.deepEqual((await names(NO_TASKS)).slice(-3), ['job_status', 'job_answer', 'job_cancel']);
  assert.ok(!(await names({ extensions: { 'io.modelcontextprotocol/tasks': {} } })).includes('job_status'));
});

test('2025-11-25 without tasks: a handle, the handle tools, and questions by elicitation/create on the stream', async () => {
  const plain = await openSession(url, { capabilities: {}, token: TEST_KEYS.alice });
  const tools = responseOf(await plain.call('tools/list')).result.tools;
  assert.ok(tools.some((t) => t.name === 'job_status'));
  // A required tool stays required at 2025-11-25 (that spec's -32601 without params.task).
  assert.equal(tools.find((t) => t.name === 'confirm_delete').execution.taskSupport, 'required');
  const pending = responseOf(await plain.call('tools/call', { name: 'process_batch', arguments: { items: 5, delayMs: 1000, label: 'l' } })).result;
  assert.equal(pending.structuredContent.status, 'working');
  assert.equal(pending.resultType, undefined, 'a 2025-11-25 result has no resultType');
  const job = pending.structuredContent.job;
  const done = await (async () => {
    for (;;) {
      const read = responseOf(await plain.call('tools/call', { name: 'job_status', arguments: { job, waitSeconds: 3 } })).result;
      if (read._meta['mcp-tasks-edge/job'].status === 'completed') return read;
    }
  })();
  assert.match(done.content[1].text, /^Processed 5 items of l/);
  // With elicitation declared, the job's question arrives on the call's own stream.
  const asking = await openSession(url, { capabilities: { elicitation: {} }, token: TEST_KEYS.alice });
  const asked = [];
  const answer = await asking.call('tools/call', { name: 'slow_confirm', arguments: { seconds: 1 } }, (question) => {
    asked.push(question);
    return { action: 'accept', content: { confirm: true } };
  });
  assert.equal(asked.length, 1);
  assert.equal(asked[0].method, 'elicitation/create');
  assert.equal(asked[0].params.message, 'Go on?');
  assert.equal(responseOf(answer).result.content[0].text, 'Confirmed.');
});

test('2025-11-25, anonymous: a host that reconnects reaches its job by handle from a new session; a keyed session does not', async () => {
  // Anonymous handles are bearer handles in both eras: a host without tasks that opens a
  // new session (a restart, a reconnect) still holds the handle its model was given.
  const first = await openSession(url, { capabilities: {} });
  const pending = responseOf(await first.call('tools/call', { name: 'process_batch', arguments: { items: 30, delayMs: 1000, label: 'reconnect' } })).result;
  const { job } = pending.structuredContent;
  const status = async (session, name = 'job_status') =>
    responseOf(await session.call('tools/call', { name, arguments: { job } })).result;

  const keyed = await openSession(url, { capabilities: {}, token: TEST_KEYS.mallory });
  assert.equal((await status(keyed)).structuredContent.error, 'unknown_job');
  assert.equal((await status(keyed, 'job_cancel')).structuredContent.error, 'unknown_job');

  const second = await openSession(url, { capabilities: {} });
  const read = await status(second);
  assert.equal(read.isError, false);
  assert.equal(read.structuredContent.job, job);
  assert.equal(read.structuredContent.status, 'working');
  // What it reaches, it lists (2025-11-25 tasks "Task Listing").
  const listed = responseOf(await second.call('tasks/list')).result.tasks.map((t) => t.taskId);
  assert.ok(listed.includes(job), `${job} in ${listed}`);
  assert.equal((await status(second, 'job_cancel')).structuredContent.status, 'cancelled');
  assert.equal((await status(first)).structuredContent.status, 'cancelled');
});

test('kill -9 of workerd during a job: the job completes after the restart, read through its handle', async () => {
  const { job } = (await call('process_batch', { items: 6, delayMs: 800, label: 'survivor' })).structuredContent;
  const { persistDir } = server;
  await server.kill();
  server = await startServer({ persistDir, vars: { INLINE_BUDGET_MS: String(WAIT_MS) } });
  url = server.mcpUrl;
  const done = await finished(job);
  assert.match(done.content[1].text, /^Processed 6 items of survivor/);
});
