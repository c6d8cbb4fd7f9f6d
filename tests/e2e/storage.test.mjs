// The Host's KV and D1 on the Worker (src/cloudflare/js_api.rs: the runtime's objects
// called directly), through the `test_host_storage` fixture on a Worker with a KV
// namespace and a D1 database bound (tests/e2e/storage/wrangler.toml): values round-trip
// exactly (unicode, the empty string, NULL columns, BLOB bytes), the TTL reaches KV,
// numbers JavaScript cannot hold are refused, and the errors name what failed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';
import { ALL_CAPS, headersFor } from './mcp.mjs';

let server;
before(async () => { server = await startServer({ cwd: join(ROOT, 'tests', 'e2e', 'storage') }); });
after(() => server?.stop());

const UNSAFE = '9007199254740993'; // 2^53 + 1: exact in JSON, not in a JavaScript number
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'e2e', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': ALL_CAPS };

/**
 * One operation; resolves to { ok, value } (structuredContent) or { ok, text } (the error).
 * The string "UNSAFE" in `args` is sent as the number UNSAFE, digit for digit.
 */
async function storage(args) {
  const params = { name: 'test_host_storage', arguments: args, _meta: META };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }).replaceAll('"UNSAFE"', UNSAFE);
  const res = await fetch(server.mcpUrl, { method: 'POST', headers: headersFor('tools/call', params), body });
  const answer = await res.json();
  assert.ok(res.status === 200 && answer.result, `${res.status} ${JSON.stringify(answer)}`);
  const { result } = answer;
  return result.isError ? { ok: false, text: result.content[0].text } : { ok: true, value: result.structuredContent };
}

test('KV: text round-trips exactly, a missing key is null, delete forgets', async () => {
  const texts = ['zoë 🚀 «ünïcödé» \u0000 end', '', '{"looks":"like json"}', '42'];
  for (const [i, value] of texts.entries()) {
    assert.deepEqual(await storage({ op: 'kv_put', binding: 'NS', key: `k${i}`, value }), { ok: true, value: {} });
    assert.deepEqual(await storage({ op: 'kv_get', binding: 'NS', key: `k${i}` }), { ok: true, value: { value } });
  }
  assert.deepEqual(await storage({ op: 'kv_get', binding: 'NS', key: 'never' }), { ok: true, value: { value: null } });
  assert.deepEqual(await storage({ op: 'kv_delete', binding: 'NS', key: 'k0' }), { ok: true, value: {} });
  assert.deepEqual(await storage({ op: 'kv_get', binding: 'NS', key: 'k0' }), { ok: true, value: { value: null } });
});

test('KV: the TTL reaches KV (below its minimum of 60 s it refuses), an unsafe TTL is refused', async () => {
  const short = await storage({ op: 'kv_put', binding: 'NS', key: 'ttl', value: 'v', ttl: 1 });
  assert.equal(short.ok, false, 'a 1 s TTL was not passed to KV');
  assert.match(short.text, /^storage error: js error: .*60/s);
  assert.deepEqual(await storage({ op: 'kv_put', binding: 'NS', key: 'ttl', value: 'v', ttl: 60 }), { ok: true, value: {} });
  assert.deepEqual(await storage({ op: 'kv_get', binding: 'NS', key: 'ttl' }), { ok: true, value: { value: 'v' } });
  assert.deepEqual(await storage({ op: 'kv_put', binding: 'NS', key: 'ttl', value: 'v', ttl: 'UNSAFE' }),
    { ok: false, text: `storage error: ${UNSAFE} can't be represented as a JavaScript number` });
});

test('a binding that is not configured is named', async () => {
  assert.deepEqual(await storage({ op: 'kv_get', binding: 'NOPE', key: 'k' }),
    { ok: false, text: 'the KV binding NOPE is not configured' });
  assert.deepEqual(await storage({ op: 'd1_query', binding: 'NOPE', sql: 'SELECT 1' }),
    { ok: false, text: 'the D1 binding NOPE is not configured' });
});

test('D1: parameters bind as D1 reads them, rows come back exactly, NULL included', async () => {
  const run = (sql, params = []) => storage({ op: 'd1_execute', binding: 'DB', sql, params });
  assert.deepEqual(await run('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB, flag INTEGER)'),
    { ok: true, value: { changes: 0 } });
  assert.deepEqual(await run('INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)', [1, 'zoë 🚀', 1.5, [0, 1, 255], true]),
    { ok: true, value: { changes: 1 } });
  // null binds as SQL NULL (serde_wasm_bindgen made it `undefined`, which D1 refused).
  assert.deepEqual(await run('INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)', [2, null, null, null, false]),
    { ok: true, value: { changes: 1 } });
  assert.deepEqual(await run('INSERT INTO t (id, name) VALUES (?1, ?2)', [-9007199254740991, '']),
    { ok: true, value: { changes: 1 } });
  const rows = await storage({ op: 'd1_query', binding: 'DB', sql: 'SELECT * FROM t WHERE id <> ?1 ORDER BY id DESC', params: [0] });
  assert.deepEqual(rows, { ok: true, value: { rows: [
    { id: 2, name: null, score: null, data: null, flag: 0 },
    { id: 1, name: 'zoë 🚀', score: 1.5, data: [0, 1, 255], flag: 1 },
    { id: -9007199254740991, name: '', score: null, data: null, flag: null },
  ] } });
  assert.deepEqual(await storage({ op: 'd1_query', binding: 'DB', sql: 'SELECT * FROM t WHERE id = 99' }),
    { ok: true, value: { rows: [] } });
  assert.deepEqual(await run('UPDATE t SET flag = 7'), { ok: true, value: { changes: 3 } });
});

test('D1: an unsafe integer parameter and bad SQL are storage errors', async () => {
  assert.deepEqual(await storage({ op: 'd1_query', binding: 'DB', sql: 'SELECT ?1 AS n', params: ['UNSAFE'] }),
    { ok: false, text: `storage error: bad D1 parameter: Error: ${UNSAFE} can't be represented as a JavaScript number` });
  const bad = await storage({ op: 'd1_execute', binding: 'DB', sql: 'INSERT INTO nowhere VALUES (1)' });
  assert.equal(bad.ok, false);
  assert.match(bad.text, /^storage error: D1: .*no such table: nowhere/s);
});
