// Accept is honoured under wrangler dev: a client that accepts only application/json
// never gets a text/event-stream body on any path. Where a JSON answer exists it gets
// one (progress dropped); where only a stream can answer, a 406 JSON-RPC error that says
// what to accept.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { ALL_CAPS, headersFor } from './mcp.mjs';

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
