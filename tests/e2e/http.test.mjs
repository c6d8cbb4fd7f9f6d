// HTTP hygiene and hostile input under wrangler dev: never a 5xx, never a hang.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { headersFor, ok } from './mcp.mjs';

let server, url;
before(async () => { server = await startServer(); url = server.mcpUrl; });
after(async () => { await server?.stop(); });

const post = (body, headers = {}) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', ...headers }, body, signal: AbortSignal.timeout(10_000) });

test('garbage bodies get JSON-RPC errors with 4xx', async () => {
  const bodies = ['', '{', 'null', '[]', '[1,2]', '"x"', '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":true,"method":"x"}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":{"a":1}}}', '\u0000\u0001', '{"a":' + '['.repeat(10000),
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: 5 } })];
  for (const body of bodies) {
    const res = await post(body, { 'mcp-method': 'tools/call' });
    assert.ok(res.status >= 400 && res.status < 500, `${res.status} for ${body.slice(0, 40)}`);
    const json = await res.json();
    assert.equal(typeof json.error.code, 'number');
    assert.ok(json.error.message.length > 0);
  }
});

test('random bytes never produce a 5xx', async () => {
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const alphabet = '{}[]":,0123456789abcdefjsonrpcmethodparamsid_meta-.\\ \n';
  for (let i = 0; i < 60; i++) {
    const len = Math.floor(rand() * 200);
    let body = '';
    for (let j = 0; j < len; j++) body += alphabet[Math.floor(rand() * alphabet.length)];
    const res = await post(body, { 'mcp-method': 'tools/list' });
    assert.ok(res.status < 500, `${res.status} for ${JSON.stringify(body)}`);
    await res.arrayBuffer();
  }
});

test('size, media type, HTTP method and origin refusals', async () => {
  const big = await post('{"x":"' + 'a'.repeat(1_100_000) + '"}', { 'mcp-method': 'tools/list' });
  assert.equal(big.status, 413);
  assert.match((await big.json()).error.message, /too large/);
  const text = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
  assert.equal(text.status, 415);
  const get = await fetch(url);
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST, OPTIONS');
  const evil = await post('{}', { origin: 'http://evil.example.com' });
  assert.equal(evil.status, 403);
});

test('CORS for allowed browser origins', async () => {
  const preflight = await fetch(url, { method: 'OPTIONS', headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST',
    'access-control-request-headers': 'content-type, mcp-method, mcp-protocol-version, authorization' } });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://localhost:3000');
  assert.match(preflight.headers.get('access-control-allow-headers'), /authorization/);
  const params = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } };
  const res = await fetch(url, { method: 'POST', headers: { ...headersFor('tools/list', params), origin: 'http://localhost:3000' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params }) });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('access-control-allow-origin'), 'http://localhost:3000');
});

test('the web console is served at /', async () => {
  const res = await fetch(server.url + '/');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /text\/html/);
});

test('optional tools run inline for clients without the Tasks extension', async () => {
  const started = Date.now();
  const result = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1 } }, { caps: {} });
  assert.equal(result.resultType, 'complete');
  assert.ok(Date.now() - started >= 900, 'the inline run waits like the task would');
});
