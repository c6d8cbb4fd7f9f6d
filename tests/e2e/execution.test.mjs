// How steps execute under wrangler dev: panics inline and in tasks, result size limits,
// tasks/update validation, tasks/get served and tasks/cancel winning while a step awaits
// I/O, and an http_job that survives kill -9 of wrangler dev (workerd included) and a
// restart on the same state.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { startJobServer } from '../support/job-server.mjs';
import { ACK, ALL_CAPS, headersFor, ok, pollUntil, rpc, terminal } from './mcp.mjs';

let server, url, jobs;
before(async () => {
  jobs = await startJobServer();
  server = await startServer();
  url = server.mcpUrl;
});
after(async () => {
  await server?.stop();
  await jobs?.close();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const meta = (caps) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'e2e', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': caps });
const greetWorks = async () => {
  const r = await ok(url, 'tools/call', { name: 'greet', arguments: { name: 'after' } });
  assert.equal(r.content[0].text, 'Hello, after!');
};

/** Starts the killed server again on its state (and its port, if it is free again). */
async function restart() {
  const { persistDir, port } = server;
  try {
    server = await startServer({ persistDir, port });
  } catch (e) {
    // The port may linger for a moment after kill -9; the task does not depend on it.
    console.error(`restart on port ${port} failed, using a new port: ${e.message.slice(0, 200)}`);
    server = await startServer({ persistDir });
  }
  url = server.mcpUrl;
}

async function waitFor(fn, what, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v) return v;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('panic_inline: a panic before any task is a JSON-RPC -32603 with the request id; the Worker serves on', async () => {
  for (const [id, caps] of [['panic-inline-1', ALL_CAPS], [4242, {}]]) {
    const params = { name: 'panic_inline', arguments: {}, _meta: meta(caps) };
    const res = await fetch(url, { method: 'POST', headers: headersFor('tools/call', params),
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }), signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    assert.ok([200, 500].includes(res.status), `HTTP ${res.status}`);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/, `content-type for: ${text.slice(0, 200)}`);
    let body;
    assert.doesNotThrow(() => { body = JSON.parse(text); }, `not JSON (HTTP ${res.status}): ${text.slice(0, 200)}`);
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.id, id);
    assert.equal('result' in body, false);
    assert.equal(body.error.code, -32603);
    assert.equal(typeof body.error.message, 'string');
    await greetWorks();
  }
});

test('panic_cancel: a task object that crashes in a request answers JSON-RPC -32603 with the id, not plain text; the task is cancelled', async () => {
  const created = await ok(url, 'tools/call', { name: 'panic_cancel', arguments: {} });
  const params = { taskId: created.taskId, _meta: meta(ALL_CAPS) };
  const res = await fetch(url, { method: 'POST', headers: headersFor('tasks/cancel', params),
    body: JSON.stringify({ jsonrpc: '2.0', id: 'cancel-1', method: 'tasks/cancel', params }), signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  assert.match(res.headers.get('content-type') ?? '', /application\/json/, `HTTP ${res.status}: ${text.slice(0, 200)}`);
  const body = JSON.parse(text);
  assert.equal(body.id, 'cancel-1', text);
  assert.equal(body.error.code, -32603, text);
  // The cancel was written before its hook ran: the task is cancelled, and stays so.
  assert.equal((await ok(url, 'tasks/get', { taskId: created.taskId })).status, 'cancelled');
  await greetWorks();
});

test('panic_job: the panicking step is retried, then the task fails naming the tool and the attempts', async () => {
  const created = await ok(url, 'tools/call', { name: 'panic_job', arguments: {} });
  assert.equal(created.resultType, 'task');
  const done = await pollUntil(url, created.taskId, terminal, { timeoutMs: 90_000 });
  assert.equal(done.status, 'failed');
  assert.equal(done.error.code, -32603);
  assert.match(done.error.message, /panic_job/);
  assert.match(done.error.message, /3 attempts/);
  assert.equal('result' in done, false);
  await greetWorks();
});

test('big_result: a 5 MB result round-trips whole', async () => {
  const bytes = 5_000_000;
  const created = await ok(url, 'tools/call', { name: 'big_result', arguments: { bytes } });
  assert.equal(created.resultType, 'task');
  const done = await pollUntil(url, created.taskId, terminal, { timeoutMs: 60_000 });
  assert.equal(done.status, 'completed', JSON.stringify({ ...done, result: undefined }));
  const text = done.result.content[0].text;
  assert.equal(text.length, bytes);
  assert.ok(text === 'x'.repeat(bytes), 'the text is "x" repeated');
  // Stored, not just passed through once.
  const again = await ok(url, 'tasks/get', { taskId: created.taskId });
  assert.equal(again.result.content[0].text.length, bytes);
});

test('big_result: a result over MAX_RESULT_BYTES (10 MiB) fails the task', async () => {
  const created = await ok(url, 'tools/call', { name: 'big_result', arguments: { bytes: 11_000_000 } });
  assert.equal(created.resultType, 'task');
  const done = await pollUntil(url, created.taskId, terminal, { timeoutMs: 60_000 });
  assert.equal(done.status, 'failed', JSON.stringify({ ...done, result: done.result && '(present)' }));
  assert.equal(done.error.code, -32603);
  assert.match(done.error.message, /MAX_RESULT_BYTES|limit/);
  assert.equal('result' in done, false);
  await greetWorks();
});

test('tasks/update: a malformed answer for a pending key is -32602 and leaves the task untouched', async () => {
  const { taskId } = await ok(url, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'a' } });
  const waiting = await pollUntil(url, taskId, (t) => t.status === 'input_required');
  const keys = Object.keys(waiting.inputRequests);
  assert.equal(keys.length, 1);
  const [key] = keys;
  for (const bad of [{ action: 'bogus' }, { action: 'accept', content: 'not an object' }, 'not an object']) {
    const { status, body } = await rpc(url, 'tasks/update', { taskId, inputResponses: { [key]: bad } });
    assert.equal(status, 400, `HTTP ${status} for ${JSON.stringify(bad)}: ${JSON.stringify(body)}`);
    assert.equal(body.error.code, -32602, JSON.stringify(body));
    const now = await ok(url, 'tasks/get', { taskId });
    assert.equal(now.status, 'input_required', `after ${JSON.stringify(bad)}`);
    assert.deepEqual(now.inputRequests, waiting.inputRequests);
    assert.equal(now.lastUpdatedAt, waiting.lastUpdatedAt);
  }
  const ack = await ok(url, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } });
  assert.deepEqual(ack, ACK);
  const done = await pollUntil(url, taskId, terminal);
  assert.equal(done.status, 'completed');
  assert.equal(done.result.content[0].text, 'Deleted a.');
});

test('tasks/get answers promptly while a step awaits a slow status GET', async () => {
  const tag = 'interleave';
  const created = await ok(url, 'tools/call', { name: 'http_job', arguments: { startUrl: `${jobs.url}/jobs`,
    body: { tag, steps: 2, retryAfter: 1, statusDelayMs: 2000, result: { slow: true } } } });
  assert.equal(created.resultType, 'task');
  const job = jobs.jobByTag(tag);
  const polls = [];
  const deadline = Date.now() + 45_000;
  let task;
  while (Date.now() < deadline) {
    const t0 = performance.now();
    task = await ok(url, 'tasks/get', { taskId: created.taskId });
    polls.push({ t0, t1: performance.now(), status: task.status });
    if (terminal(task)) break;
    await sleep(50);
  }
  assert.equal(task.status, 'completed', JSON.stringify(task));
  assert.deepEqual(task.result.structuredContent, { slow: true });
  const slowest = Math.max(...polls.map((p) => p.t1 - p.t0));
  assert.ok(slowest < 1500, `slowest tasks/get took ${Math.round(slowest)} ms`);
  for (const p of polls.slice(0, -1)) assert.equal(p.status, 'working');
  // The polls really overlapped the held status GETs (3 of them, ~2 s each).
  const held = jobs.requestsFor(job.id).filter((r) => r.method === 'GET');
  assert.equal(held.length, 3);
  for (const g of held) assert.ok(g.doneAt - g.at >= 1900, 'the job server held the answer');
  const inside = polls.filter((p) => held.some((g) => p.t0 >= g.at && p.t1 <= g.doneAt));
  assert.ok(inside.length >= 10, `only ${inside.length} polls while a status GET was held`);
});

test('tasks/cancel while a step awaits a slow status GET wins: the GET is aborted, no late outcome', async () => {
  const tag = 'cancel-held';
  const created = await ok(url, 'tools/call', { name: 'http_job', arguments: { startUrl: `${jobs.url}/jobs`,
    body: { tag, steps: 0, statusDelayMs: 2000, result: { late: true } } } });
  const job = await waitFor(() => jobs.jobByTag(tag), 'the job');
  const held = () => jobs.requestsFor(job.id).filter((r) => r.method === 'GET');
  await waitFor(() => held().some((r) => r.doneAt === null), 'a held status GET');
  const pending = held().filter((r) => r.doneAt === null);
  assert.deepEqual(await ok(url, 'tasks/cancel', { taskId: created.taskId }), ACK);
  const cancelled = await ok(url, 'tasks/get', { taskId: created.taskId });
  assert.equal(cancelled.status, 'cancelled');
  // The cancel drops the step, and with it the held GET: its request is aborted, the job
  // server sees the connection close before its answer (nothing is left running).
  await waitFor(() => pending.every((r) => r.doneAt !== null || r.abortedAt), 'the held GET to end');
  assert.ok(pending.every((r) => r.abortedAt && r.doneAt === null), 'aborted, not answered');
  await sleep(2500); // past the moment the job server would have answered it
  const later = await ok(url, 'tasks/get', { taskId: created.taskId });
  assert.equal(later.status, 'cancelled', JSON.stringify(later));
  assert.equal(later.lastUpdatedAt, cancelled.lastUpdatedAt);
  assert.equal('result' in later, false);
});

test('kill -9 and restart mid-http_job: the job resumes polling and completes', async () => {
  const tag = 'survivor';
  const created = await ok(url, 'tools/call', { name: 'http_job', arguments: { startUrl: `${jobs.url}/jobs`,
    body: { tag, steps: 8, retryAfter: 1, result: { survived: true } } } });
  assert.equal(created.resultType, 'task');
  const job = jobs.jobByTag(tag);
  const gets = () => jobs.requestsFor(job.id).filter((r) => r.method === 'GET');
  await waitFor(() => gets().length >= 2, 'two status polls');
  const progressed = await pollUntil(url, created.taskId, (t) => /^step [2-7]\/8$/.test(t.statusMessage ?? ''));
  await server.kill();
  const killedAt = performance.now();
  const beforeRestart = gets().length;
  assert.ok(job.polls < 9, 'the job is not finished before the restart');
  await restart();
  const resumed = await ok(url, 'tasks/get', { taskId: created.taskId });
  assert.equal(resumed.createdAt, progressed.createdAt);
  assert.ok(!terminal(resumed), `already ${resumed.status} right after the restart`);
  const done = await pollUntil(url, created.taskId, terminal, { timeoutMs: 90_000 });
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.deepEqual(done.result.structuredContent, { survived: true });
  // Checkpointed: the job was started once and polled on after the restart, to its end.
  assert.equal(jobs.postsFor(tag).length, 1);
  assert.ok(gets().length > beforeRestart, 'polled after the restart');
  assert.ok(gets().some((r) => r.at > killedAt));
  assert.ok(job.polls >= 9);
  await greetWorks();
});

test('kill -9 inside a step: the alarm that ran it fires again after the restart, and the step runs as attempt 2', async () => {
  // A first attempt stores its lease without an alarm of its own (src/tasks/execution.rs):
  // the alarm running it must stay armed through the crash.
  const tag = 'killed-mid-step';
  const created = await ok(url, 'tools/call', { name: 'http_job', arguments: { startUrl: `${jobs.url}/jobs`,
    body: { tag, steps: 0, retryAfter: 0, statusDelayMs: 3000, result: { again: true } } } });
  assert.equal(created.resultType, 'task');
  const job = await waitFor(() => jobs.jobByTag(tag), 'the job');
  const held = () => jobs.requestsFor(job.id).filter((r) => r.method === 'GET');
  await waitFor(() => held().some((r) => r.doneAt === null), 'a held status GET');
  await server.kill();
  await restart();
  const done = await pollUntil(url, created.taskId, terminal, { timeoutMs: 60_000 });
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.deepEqual(done.result.structuredContent, { again: true });
  assert.equal(held().length, 2, 'the held GET, then attempt 2\'s');
  const retried = server.events().filter((e) => e.event === 'step.retried' && e.taskId === created.taskId);
  assert.deepEqual(retried.map((e) => e.attempt), [2]);
  await greetWorks();
});
