// Accept is honoured under wrangler dev, in both eras: a client that accepts only
// application/json never gets a text/event-stream body on any path. Where a JSON answer exists it gets
// one (progress dropped); where only a stream can answer, a 406 JSON-RPC error that says
// what to accept.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { ALL_CAPS, headersFor } from './mcp.mjs';
import { openSession, responseOf } from '../support/legacy.mjs';

let server, url;
before(async () => { server = await startServer(); url = server.mcpUrl; });
after(async () => { await server?.stop(); });

let nextId = 1;
const JSON_ONLY = 'application/json';

/** One 2026-07-28 request with the given Accept; resolves to { status, contentType, body }. */
async function modern(method, params, accept) {
  const full = { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'e2e-accept', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': ALL_CAPS, ...(params._meta ?? {}) } };
  const headers = headersFor(method, full, { accept });
  const res = await fetch(url, { method: 'POST', headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: full }) });
  const contentType = res.headers.get('content-type') ?? '';
  const text = await res.text();
  return { status: res.status, contentType, text, body: contentType.includes('json') ? JSON.parse(text) : null };
}

test('2026-07-28: a call with a progressToken streams for SSE clients, answers JSON otherwise', async () => {
  const params = { name: 'process_batch', arguments: { items: 2, delayMs: 50 }, _meta: { progressToken: 'p' } };
  const streamed = await modern('tools/call', params, 'application/json, text/event-stream');
  assert.match(streamed.contentType, /text\/event-stream/);
  const plain = await modern('tools/call', params, JSON_ONLY);
  assert.equal(plain.status, 200);
  assert.match(plain.contentType, /^application\/json/);
  assert.ok(!plain.text.includes('notifications/progress'), plain.text);
  assert.ok(['complete', 'task'].includes(plain.body.result.resultType), plain.text);
});

test('2026-07-28: subscriptions/listen refuses a JSON-only client with a clear 406', async () => {
  const refused = await modern('subscriptions/listen', { notifications: { taskIds: ['0123456789abcdef0123456789abcdef'] } }, JSON_ONLY);
  assert.equal(refused.status, 406);
  assert.match(refused.contentType, /^application\/json/);
  assert.equal(refused.body.error.code, -32600);
  assert.match(refused.body.error.message, /Accept: application\/json, text\/event-stream/);
});

test('2026-07-28: every other method answers a JSON-only client with JSON', async () => {
  const created = await modern('tools/call', { name: 'slow_compute', arguments: { seconds: 1 } }, JSON_ONLY);
  const { taskId } = created.body.result;
  for (const [method, params] of [
    ['server/discover', {}], ['tools/list', {}], ['prompts/list', {}], ['resources/list', {}],
    ['tools/call', { name: 'greet', arguments: { name: 'Ada' } }],
    ['tools/call', { name: 'test_streaming_elicitation' }],
    ['tasks/get', { taskId }], ['tasks/cancel', { taskId }],
    ['tasks/update', { taskId, inputResponses: {} }],
  ]) {
    const r = await modern(method, params, JSON_ONLY);
    assert.match(r.contentType, /^application\/json/, `${method}: ${r.contentType}`);
    assert.equal(r.status, 200, `${method}: ${r.text}`);
  }
});

// 2025-11-25: the session era answers a JSON-only client with JSON on every path.
const LEGACY_JSON = { accept: JSON_ONLY };

test('2025-11-25: a JSON-only client gets JSON on every method, tools/call included', async () => {
  const session = await openSession(url, LEGACY_JSON);
  const created = responseOf(await session.call('tools/call', { name: 'slow_compute', arguments: { seconds: 0.2 }, task: {} }));
  const { taskId } = created.result.task;
  for (const [method, params] of [
    ['tools/list', {}], ['ping', {}], ['prompts/list', {}], ['resources/list', {}],
    ['tools/call', { name: 'greet', arguments: { name: 'Ada' } }],
    ['tools/call', { name: 'process_batch', arguments: { items: 2, delayMs: 50 }, _meta: { progressToken: 'p' } }],
    ['tasks/get', { taskId }], ['tasks/list', {}], ['tasks/result', { taskId }],
    ['logging/setLevel', { level: 'info' }],
  ]) {
    const answer = await session.call(method, params);
    assert.match(answer.contentType, /^application\/json/, `${method}: ${answer.contentType}`);
    const response = responseOf(answer);
    assert.equal(response.error, undefined, `${method}: ${JSON.stringify(response)}`);
    assert.ok(!answer.messages.some((m) => m.method === 'notifications/progress'), method);
  }
  const result = responseOf(await session.call('tasks/result', { taskId })).result;
  assert.equal(result.content[0].text, 'slow_compute: computed after 0.2 s');
  assert.equal(result.resultType, undefined);
});

test('2025-11-25: a call that must ask a JSON-only client is a clear error, in JSON', async () => {
  const session = await openSession(url, LEGACY_JSON);
  const answer = await session.call('tools/call', { name: 'test_elicitation', arguments: { message: 'Who?' } });
  assert.match(answer.contentType, /^application\/json/);
  // The HTTP status agrees with the error's (a refusal of the Accept header).
  assert.equal(answer.status, 406);
  const { error } = responseOf(answer);
  assert.equal(error.code, -32600);
  assert.match(error.message, /asks the client for input.*send Accept: application\/json, text\/event-stream/);
});

test('2025-11-25: a JSON-only tasks/result asks on the GET stream, or says why it cannot', async () => {
  const session = await openSession(url, LEGACY_JSON);
  const start = async (filename) => responseOf(await session.call('tools/call',
    { name: 'confirm_delete', arguments: { filename }, task: {} })).result.task.taskId;
  // No GET stream: a clear error once the task waits for input.
  const lonely = await start('lonely.txt');
  const refused = await session.call('tasks/result', { taskId: lonely });
  assert.match(refused.contentType, /^application\/json/);
  assert.match(responseOf(refused).error.message, /no GET stream of this session open/);
  // With the GET stream open: the question arrives there, the answer completes the task,
  // and tasks/result answers JSON.
  const stream = await session.listen();
  const taskId = await start('kept.txt');
  const waiting = session.call('tasks/result', { taskId });
  const question = await stream.next();
  assert.equal(question.method, 'elicitation/create');
  assert.deepEqual(question.params._meta['io.modelcontextprotocol/related-task'], { taskId });
  assert.equal((await session.answer(question.id, { action: 'accept', content: { confirm: false } })).status, 202);
  const answer = await waiting;
  stream.close();
  assert.match(answer.contentType, /^application\/json/);
  assert.equal(responseOf(answer).result.content[0].text, 'Kept kept.txt.');
});

test('2025-11-25: a GET whose Accept refuses text/event-stream is a 406 that says what to accept', async () => {
  const session = await openSession(url);
  const get = (accept, lastEventId) => fetch(url, { method: 'GET', headers: { accept,
    'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25',
    ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } });
  for (const [accept, lastEventId] of [[JSON_ONLY], [JSON_ONLY, 's1:0'], ['text/event-stream;q=0, */*']]) {
    const res = await get(accept, lastEventId);
    assert.equal(res.status, 406, `${accept} ${lastEventId}`);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const { error } = await res.json();
    assert.equal(error.code, -32600);
    assert.match(error.message, /GET.*text\/event-stream/);
  }
  const stream = await session.listen();
  stream.close();
});
