// A host that leaves cancels what it left (docs/hosts.md, "A host that leaves"), under
// wrangler dev: before a job's handle has been answered, a 2026-07-28 client's disconnect
// (basic/patterns/cancellation: a disconnect IS the cancellation of the request) and a
// 2025-11-25 `notifications/cancelled` for the call each cancel the job, and its tool's
// cancel hook runs (http_job's DELETE reaches the job API); after the handle, the job goes
// on; a stranger's notifications/cancelled on the owner's session reaches nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { startJobServer } from '../support/job-server.mjs';
import { headersFor, rpc, until } from './mcp.mjs';
import { openSession, responseOf } from '../support/legacy.mjs';
import { readSse } from '../support/sse.mjs';

// The first call's wait before its handle: long enough to leave inside it.
const WAIT_MS = 6000;
const NO_TASKS = {};
let server, url, jobs;
before(async () => {
  jobs = await startJobServer();
  server = await startServer({ vars: { INLINE_BUDGET_MS: String(WAIT_MS) } });
  url = server.mcpUrl;
});
after(async () => { await server?.stop(); await jobs?.close(); });

/** http_job's arguments: a job that runs about a minute unless cancelled. */
const longJob = (tag) => ({ startUrl: `${jobs.url}/jobs`, body: { tag, steps: 60, retryAfter: 1 } });

/** The DELETE http_job's cancel hook sends to the job API, once it has. */
const deleted = (tag) => until(`DELETE of job ${tag}`, () => {
  const job = jobs.jobByTag(tag);
  return job && jobs.requestsFor(job.id).some((r) => r.method === 'DELETE');
});

/** The caller's http_job tasks as the my-tasks listing reads them, newest first. */
async function myJobs(token = TEST_KEYS.alice) {
  const { body } = await rpc(url, 'mcp-tasks-edge/tasks/list', { tool: 'http_job' }, { caps: NO_TASKS, token });
  return body.result.tasks;
}

/** The newest http_job task of the caller once its status is `status`. */
const reads = (status, token) => until(`a job ${status}`, async () => {
  const [newest] = await myJobs(token);
  return newest?.status === status && newest;
});

/**
 * A 2026-07-28 tools/call without the extension from a client that takes a stream (as the
 * official SDKs do), so a wait is streamed and the runtime notices a disconnect: resolves
 * to { reading, leave }, the body being read and the function that hangs up.
 */
async function streamedCall(name, args, meta = {}) {
  const params = { name, arguments: args, _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': NO_TASKS } };
  const controller = new AbortController();
  const res = await fetch(url, { method: 'POST', signal: controller.signal,
    headers: { ...headersFor('tools/call', params), accept: 'application/json, text/event-stream',
      authorization: `Bearer ${TEST_KEYS.alice}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) });
  assert.match(res.headers.get('content-type'), /text\/event-stream/);
  return { reading: res.text(), leave: () => controller.abort() };
}

test('2026-07-28: a client that disconnects before the handle cancels the job; its cancel hook runs', async () => {
  const tag = 'modern-leaves';
  // The wait is streamed, with a comment every second, so that the disconnect is noticed.
  const { reading, leave } = await streamedCall('http_job', longJob(tag));
  await until('the job API got the job', () => jobs.jobByTag(tag));
  await reads('working');
  const left = Date.now();
  leave();
  await assert.rejects(reading, { name: 'AbortError' });
  const cancelled = await reads('cancelled');
  await deleted(tag);
  assert.ok(Date.now() - left < 10_000, `cancelled ${Date.now() - left} ms after the client left`);
  assert.equal(cancelled.statusMessage, 'Cancelled by the client');
});

test('2025-11-25: notifications/cancelled for the call cancels its job before the handle; a stranger reaches nothing', async () => {
  const tag = 'legacy-cancels';
  const session = await openSession(url, { token: TEST_KEYS.alice, capabilities: {} });
  const res = await session.post({ jsonrpc: '2.0', id: 'call-1', method: 'tools/call',
    params: { name: 'http_job', arguments: longJob(tag) } });
  assert.match(res.headers.get('content-type'), /text\/event-stream/);
  const messages = (async () => { const all = []; for await (const m of readSse(res.body)) all.push(m); return all; })();
  await until('the job API got the job', () => jobs.jobByTag(tag));
  await reads('working');
  // Another key on the owner's session id: the session's 404, and the job goes on.
  const stranger = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json',
    accept: 'application/json, text/event-stream', 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25',
    authorization: `Bearer ${TEST_KEYS.mallory}` },
  body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'call-1' } }) });
  assert.equal(stranger.status, 404);
  // The owner's, for another id (a number, not the string): ignored.
  const other = await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
  assert.equal(other.status, 202);
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal((await myJobs())[0].status, 'working');
  const cancel = await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled',
    params: { requestId: 'call-1', reason: 'the user pressed Escape' } });
  assert.equal(cancel.status, 202);
  const answer = responseOf({ messages: await messages });
  assert.equal(answer.error.code, -32800, JSON.stringify(answer));
  assert.match(answer.error.message, /job [0-9a-f]{32} was cancelled/);
  assert.equal((await reads('cancelled')).statusMessage, 'Cancelled by the client');
  await deleted(tag);
});

test('after the handle, the job goes on: a job_status call that disconnects cancels nothing', async () => {
  const tag = 'handle-given';
  const { body } = await rpc(url, 'tools/call', { name: 'http_job', arguments: longJob(tag) }, { caps: NO_TASKS, token: TEST_KEYS.alice });
  const { job, status } = body.result.structuredContent;
  assert.equal(status, 'working');
  // Streamed (a progress token), so a disconnect is noticed: and yet nothing is cancelled.
  const { reading, leave } = await streamedCall('job_status', { job, waitSeconds: 5 }, { progressToken: 'p' });
  await new Promise((r) => setTimeout(r, 1500));
  leave();
  await assert.rejects(reading, { name: 'AbortError' });
  await new Promise((r) => setTimeout(r, 3000));
  const [newest] = await myJobs();
  assert.deepEqual([newest.taskId, newest.status], [job, 'working']);
  assert.ok(!jobs.requestsFor(jobs.jobByTag(tag).id).some((r) => r.method === 'DELETE'));
  const { body: cancelled } = await rpc(url, 'tools/call', { name: 'job_cancel', arguments: { job } }, { caps: NO_TASKS, token: TEST_KEYS.alice });
  assert.equal(cancelled.result.structuredContent.status, 'cancelled');
});
