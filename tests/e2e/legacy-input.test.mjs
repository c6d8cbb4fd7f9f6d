// A legacy task's question reaches a client that never calls tasks/result (the official
// Tasks client's V1 generation polls tasks/get until the task ends): under wrangler dev,
// polls stay JSON and the question arrives on the session's GET stream, tagged with the
// task, once per stream; the answer goes to the task, which takes it once. A client with no
// GET stream that takes SSE gets the question on a poll's own response instead, once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { openSession, responseOf } from '../support/legacy.mjs';

let server, url;
before(async () => { server = await startServer(); url = server.mcpUrl; });
after(async () => { await server?.stop(); });

const RELATED = 'io.modelcontextprotocol/related-task';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function start(session, filename) {
  const created = responseOf(await session.call('tools/call', { name: 'confirm_delete', arguments: { filename }, task: {} }));
  return created.result.task.taskId;
}

/** Polls tasks/get (JSON every time) until `done(status)`. */
async function pollUntil(session, taskId, done, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await session.call('tasks/get', { taskId });
    assert.match(answer.contentType, /^application\/json/, 'a poll is never upgraded to a stream');
    const task = responseOf(answer).result;
    if (done(task.status)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} stuck at ${task.status}`);
    await sleep(100);
  }
}

test('polling only: the question comes on the GET stream, once, and the answer completes the task', async () => {
  const session = await openSession(url);
  const stream = await session.listen();
  const taskId = await start(session, 'polled.txt');
  await pollUntil(session, taskId, (s) => s === 'input_required');
  // The next polls deliver it (the first gave the client its chance to call tasks/result).
  const polling = pollUntil(session, taskId, (s) => s !== 'input_required', 5_000).catch(() => null);
  const question = await stream.next();
  assert.equal(question.method, 'elicitation/create');
  assert.equal(question.params.message, 'Delete polled.txt?');
  assert.deepEqual(question.params._meta[RELATED], { taskId });
  assert.match(String(question.id), /^[0-9a-f]{32}$/, 'an unguessable request id');
  // Still waiting, polled again and again: never a second copy on this stream.
  await polling;
  const again = await stream.next(1_500).catch(() => null);
  assert.equal(again, null, `a second copy: ${JSON.stringify(again)}`);
  assert.equal((await session.answer(question.id, { action: 'accept', content: { confirm: true } })).status, 202);
  const done = await pollUntil(session, taskId, (s) => s === 'completed');
  assert.equal(done.status, 'completed');
  const result = responseOf(await session.call('tasks/result', { taskId })).result;
  assert.equal(result.content[0].text, 'Deleted polled.txt.');
  stream.close();
});

test('two GET streams each get it; the first answer wins, the second changes nothing', async () => {
  const session = await openSession(url);
  const [a, b] = [await session.listen(), await session.listen()];
  const taskId = await start(session, 'twice.txt');
  await pollUntil(session, taskId, (s) => s === 'input_required');
  const polling = pollUntil(session, taskId, (s) => s !== 'input_required', 5_000).catch(() => null);
  const [qa, qb] = await Promise.all([a.next(), b.next()]);
  assert.notEqual(qa.id, qb.id);
  assert.deepEqual(qa.params, qb.params);
  assert.equal((await session.answer(qa.id, { action: 'accept', content: { confirm: false } })).status, 202);
  assert.equal((await session.answer(qb.id, { action: 'accept', content: { confirm: true } })).status, 202);
  assert.equal((await session.answer(qa.id, { action: 'accept', content: { confirm: true } })).status, 202);
  await polling;
  await pollUntil(session, taskId, (s) => s === 'completed');
  const result = responseOf(await session.call('tasks/result', { taskId })).result;
  assert.equal(result.content[0].text, 'Kept twice.txt.');
  a.close();
  b.close();
});

test('a client that calls tasks/result on input_required is asked there only', async () => {
  const session = await openSession(url);
  const stream = await session.listen();
  const taskId = await start(session, 'result.txt');
  await pollUntil(session, taskId, (s) => s === 'input_required');
  const asked = [];
  const answer = await session.call('tasks/result', { taskId }, (request) => {
    asked.push(request);
    return { action: 'accept', content: { confirm: true } };
  });
  assert.equal(asked.length, 1);
  assert.deepEqual(asked[0].params._meta[RELATED], { taskId });
  assert.equal(responseOf(answer).result.content[0].text, 'Deleted result.txt.');
  const extra = await stream.next(1_500).catch(() => null);
  assert.equal(extra, null, `the GET stream got a copy: ${JSON.stringify(extra)}`);
  stream.close();
});

test('another principal cannot answer a question it was not sent', async () => {
  const owner = await openSession(url);
  const stream = await owner.listen();
  const taskId = await start(owner, 'mine.txt');
  await pollUntil(owner, taskId, (s) => s === 'input_required');
  const polling = pollUntil(owner, taskId, (s) => s !== 'input_required', 4_000).catch(() => null);
  const question = await stream.next();
  await polling;
  // The same session id from a stranger (an API key of its own): the session is unknown.
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json',
    accept: 'application/json, text/event-stream', 'mcp-session-id': owner.id, authorization: 'Bearer mallory-token' },
  body: JSON.stringify({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { confirm: true } } }) });
  assert.equal(res.status, 404);
  const task = await pollUntil(owner, taskId, () => true);
  assert.equal(task.status, 'input_required');
  stream.close();
});

test('a tasks/result asking a question answered on the GET stream does not wait for its own answer', async () => {
  const session = await openSession(url);
  const stream = await session.listen();
  const taskId = await start(session, 'both.txt');
  await pollUntil(session, taskId, (s) => s === 'input_required');
  const polling = pollUntil(session, taskId, (s) => s !== 'input_required', 3_000).catch(() => null);
  const question = await stream.next();
  await polling;
  // tasks/result now asks on its own stream too; this client answers only the GET copy.
  let askedOnResult = 0;
  const result = session.call('tasks/result', { taskId }, async () => {
    askedOnResult += 1;
    await session.answer(question.id, { action: 'accept', content: { confirm: true } });
    return new Promise(() => {}); // never answers the tasks/result copy
  });
  const answer = await Promise.race([result, sleep(15_000).then(() => null)]);
  assert.ok(answer, 'tasks/result still waiting for an answer that will not come');
  assert.equal(askedOnResult, 1);
  assert.equal(responseOf(answer).result.content[0].text, 'Deleted both.txt.');
  stream.close();
});

test('polling only, no GET stream: a poll carries the question once and the answer completes the task', async () => {
  const session = await openSession(url);
  const taskId = await start(session, 'inline.txt');
  await pollUntil(session, taskId, (s) => s === 'input_required');
  const asked = [];
  const streamed = [];
  const deadline = Date.now() + 20_000;
  let task;
  for (;;) {
    const answer = await session.call('tasks/get', { taskId }, (request) => {
      asked.push(request);
      return { action: 'accept', content: { confirm: true } };
    });
    if (answer.contentType.includes('text/event-stream')) streamed.push(answer);
    task = responseOf(answer).result;
    if (task.status === 'completed' || Date.now() > deadline) break;
    await sleep(100);
  }
  assert.equal(task.status, 'completed', JSON.stringify(task));
  assert.equal(asked.length, 1, `asked ${asked.length} times`);
  assert.equal(asked[0].method, 'elicitation/create');
  assert.equal(asked[0].params.message, 'Delete inline.txt?');
  assert.deepEqual(asked[0].params._meta[RELATED], { taskId });
  assert.match(String(asked[0].id), /^[0-9a-f]{32}$/, 'an unguessable request id');
  // The poll that carried it was a stream: the question first, then the tasks/get result.
  assert.equal(streamed.length, 1);
  const [question, result] = streamed[0].messages;
  assert.equal(question.id, asked[0].id);
  assert.equal(result.result.taskId, taskId);
  assert.equal(result.result.status, 'input_required');
  const done = responseOf(await session.call('tasks/result', { taskId })).result;
  assert.equal(done.content[0].text, 'Deleted inline.txt.');
});
