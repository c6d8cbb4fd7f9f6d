// JSON Schema validation under wrangler dev, as an attacker sends it: arguments that break
// a tool's inputSchema only through $ref, anyOf, oneOf or if/then/else, and elicitation
// answers that break the requestedSchema, are refused with -32602 naming the path and
// keyword, in the 2026-07-28 era (tools/call, MRTR retries, tasks/update) and in a
// 2025-11-25 session (tools/call with and without params.task, answers on the session).
// Fixtures: schema_keywords and schema_elicitation (src/fixtures/schema.rs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { ALL_CAPS, ok, pollUntil, rpc, terminal } from './mcp.mjs';

let server, url;
before(async () => { server = await startServer(); url = server.mcpUrl; });
after(async () => { await server?.stop(); });

const VALID = { items: [{ kind: 'a' }], contact: { email: 'a@b.c' }, shape: { side: 2 }, method: 'phone', phone: '+47' };
// Each breaks the schema through one keyword only; the rest of the object is valid.
const ATTACKS = [
  ['$ref', { items: [{ kind: 'a' }, { kind: 'b' }, { kind: 'c' }] }, '/items/2/kind: "c" is not one of ["a","b"] (enum)'],
  ['anyOf', { contact: 'call me maybe' }, '/contact: matches none of the alternatives (anyOf)'],
  ['oneOf', { shape: { radius: 1, side: 1 } }, '/shape: matches alternatives 0 and 1, exactly one must match (oneOf)'],
  ['if/then', { method: 'phone' }, '(root): missing required property "phone" (required)'],
  ['if/else', { method: 'email', phone: '1' }, '(root): matches a schema it must not (not)'],
];
const echoed = (result) => JSON.parse(result.content[0].text.replace(/^Valid: /, ''));
const refusal = (message) => `Invalid arguments for tool schema_keywords: ${message}`;

test('2026-07-28 tools/call: violations through $ref, anyOf, oneOf, if/then/else are -32602 naming path and keyword', async () => {
  const done = await ok(url, 'tools/call', { name: 'schema_keywords', arguments: VALID });
  assert.deepEqual(echoed(done), VALID);
  for (const [keyword, args, message] of ATTACKS) {
    for (const caps of [ALL_CAPS, { elicitation: {} }]) { // with and without the Tasks extension
      const { status, body } = await rpc(url, 'tools/call', { name: 'schema_keywords', arguments: args }, { caps });
      assert.equal(status, 400, `${keyword}: ${JSON.stringify(body)}`);
      assert.equal(body.error.code, -32602, keyword);
      assert.equal(body.error.message, refusal(message), keyword);
    }
  }
});

test('MRTR retry: an answer violating the requestedSchema is -32602, with and without requestState', async () => {
  const caps = { elicitation: {} };
  const first = await ok(url, 'tools/call', { name: 'schema_elicitation', arguments: {} }, { caps });
  assert.equal(first.resultType, 'input_required');
  assert.equal(first.inputRequests.age.params.requestedSchema.properties.age.minimum, 0);
  const retry = (content, withState) => rpc(url, 'tools/call', { name: 'schema_elicitation', arguments: {},
    inputResponses: { age: { action: 'accept', content } }, ...(withState ? { requestState: first.requestState } : {}) }, { caps });
  for (const withState of [true, false]) {
    for (const [content, message] of [
      [{ age: -5 }, '/age: -5 is less than 0 (minimum)'],
      [{ age: 'old' }, '/age: expected integer, got string (type)'],
      [{ age: 40, colour: 'pink' }, '/colour: matches none of the alternatives (oneOf)'],
      [{}, '(root): missing required property "age" (required)'],
    ]) {
      const { status, body } = await retry(content, withState);
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(body.error.code, -32602);
      assert.equal(body.error.message, `inputResponses["age"] does not match the requested schema: ${message}`);
    }
    const done = await ok(url, 'tools/call', { name: 'schema_elicitation', arguments: {},
      inputResponses: { age: { action: 'accept', content: { age: 40, colour: 'green' } } },
      ...(withState ? { requestState: first.requestState } : {}) }, { caps });
    assert.equal(done.content[0].text, 'Age 40, colour green');
  }
});

test('tasks/update: an answer violating the requestedSchema is -32602 and the task keeps waiting', async () => {
  const created = await ok(url, 'tools/call', { name: 'schema_elicitation', arguments: {} });
  assert.equal(created.resultType, 'task');
  const waiting = await pollUntil(url, created.taskId, (t) => t.status === 'input_required');
  const [key] = Object.keys(waiting.inputRequests);
  for (const [content, message] of [
    [{ age: 7, colour: 'pink' }, '/colour: matches none of the alternatives (oneOf)'],
    [{ age: 151 }, '/age: 151 is greater than 150 (maximum)'],
  ]) {
    const { status, body } = await rpc(url, 'tasks/update', { taskId: created.taskId,
      inputResponses: { [key]: { action: 'accept', content } } });
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.error.code, -32602);
    assert.equal(body.error.message, `inputResponses[${JSON.stringify(key)}] does not match the requested schema: ${message}`);
    const still = await ok(url, 'tasks/get', { taskId: created.taskId });
    assert.equal(still.status, 'input_required');
    assert.equal(still.lastUpdatedAt, waiting.lastUpdatedAt);
  }
  await ok(url, 'tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: { age: 7 } } } });
  const done = await pollUntil(url, created.taskId, terminal);
  assert.equal(done.result.content[0].text, 'Age 7, colour none');
});

// 2025-11-25: a session, its POSTs, SSE answers and server→client requests.
let nextId = 1;
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const post = (session, message) => fetch(url, { method: 'POST', body: JSON.stringify(message),
  headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } });

async function initialize() {
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'e2e-schema', version: '1' } } }) });
  assert.equal(res.status, 200);
  const session = res.headers.get('mcp-session-id');
  assert.equal((await post(session, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
  return session;
}

/** The JSON-RPC response to one request (JSON or SSE); server→client requests on the
 * stream are answered with `answer(request)`. */
async function call(session, method, params, answer) {
  const id = nextId++;
  const res = await post(session, { jsonrpc: '2.0', id, method, params });
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return res.json();
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended without a response to ${method}`);
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end); buffer = buffer.slice(end + 2);
      const data = frame.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('');
      if (!data) continue;
      const message = JSON.parse(data);
      if (message.id === id && !message.method) { reader.cancel().catch(() => {}); return message; }
      if (message.method && message.id !== undefined) {
        assert.equal((await post(session, { jsonrpc: '2.0', id: message.id, result: answer(message) })).status, 202);
      }
    }
  }
}

test('2025-11-25 session: tools/call with and without params.task refuses the same violations', async () => {
  const session = await initialize();
  const done = await call(session, 'tools/call', { name: 'schema_keywords', arguments: VALID });
  assert.deepEqual(echoed(done.result), VALID);
  for (const [keyword, args, message] of ATTACKS) {
    for (const task of [undefined, { ttl: 60000 }]) {
      const r = await call(session, 'tools/call', { name: 'schema_keywords', arguments: args, ...(task ? { task } : {}) });
      assert.equal(r.error?.code, -32602, `${keyword} (task: ${!!task}): ${JSON.stringify(r)}`);
      assert.equal(r.error.message, refusal(message), keyword);
    }
  }
  // A valid call with params.task becomes a legacy task.
  const created = await call(session, 'tools/call', { name: 'schema_keywords', arguments: VALID, task: {} });
  assert.match(created.result.task.taskId, /^[0-9a-f]{32}$/);
});

test('2025-11-25 session: an elicitation answer violating the requestedSchema fails the call with -32602', async () => {
  const session = await initialize();
  let asked;
  const bad = await call(session, 'tools/call', { name: 'schema_elicitation', arguments: {} }, (request) => {
    asked = request;
    return { action: 'accept', content: { age: 20, colour: 'pink' } };
  });
  assert.equal(asked.method, 'elicitation/create');
  assert.equal(bad.error?.code, -32602, JSON.stringify(bad));
  assert.equal(bad.error.message, 'inputResponses["age"] does not match the requested schema: /colour: matches none of the alternatives (oneOf)');
  const good = await call(session, 'tools/call', { name: 'schema_elicitation', arguments: {} },
    () => ({ action: 'accept', content: { age: 33, colour: 'blue' } }));
  assert.equal(good.result.content[0].text, 'Age 33, colour blue');
});
