// Sessions, quotas and anonymous callers under wrangler dev, attacked as a stranger with a
// key of their own (or none) who holds someone else's ids would: a 2025-11-25 session is
// bound to the principal that opened it (no re-initialize, replay, answer injection or
// DELETE by anyone else), closed deployments serve their key holders' GET and DELETE and
// challenge everyone else, every tool run is counted, sessions are bounded and expire, and
// anonymous callers never see each other's work.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServers, TEST_KEYS } from '../support/server.mjs';
import { ok, rpc } from './mcp.mjs';

const IDLE_MS = 4000;
let open, closed, anon;
before(async () => {
  [open, closed, anon] = await startServers(
    {},
    {
      vars: {
        ALLOW_ANONYMOUS: 'false',
        QUOTA_SESSIONS: '2',
        QUOTA_TASKS_PER_MINUTE: '2',
        SESSION_IDLE_MS: String(IDLE_MS),
      },
    },
    { vars: { QUOTA_TASKS_PER_MINUTE: '3' } },
  );
});
after(async () => { await Promise.all([open?.stop(), closed?.stop(), anon?.stop()]); });

let nextId = 1;
const BASE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const bearer = (token) => (token ? { authorization: `Bearer ${token}` } : {});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function initialize(url, token, extra = {}) {
  const res = await fetch(url, { method: 'POST', headers: { ...BASE, ...bearer(token), ...extra },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'e2e-sessions', version: '1' } } }) });
  return { res, session: res.headers.get('mcp-session-id'), body: await res.json() };
}

function post(url, session, token, message) {
  return fetch(url, { method: 'POST', headers: { ...BASE, ...bearer(token), 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(message) });
}

const ping = (url, session, token) => post(url, session, token, { jsonrpc: '2.0', id: nextId++, method: 'ping' });

/** Reads an SSE response, calling `onMessage(message)` for each JSON-RPC message; resolves
 * with every message and the last event id once the stream ends. */
async function readStream(res, onMessage = () => {}) {
  const messages = [];
  let lastEventId;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = frame.split('\n').find((l) => l.startsWith('id:'));
      if (id) lastEventId = id.slice(3).trim();
      const data = frame.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('');
      if (!data) continue;
      const message = JSON.parse(data);
      messages.push(message);
      await onMessage(message);
    }
  }
  return { messages, lastEventId };
}

test("re-initializing someone else's session id mints a new session and leaves the owner's alone", async () => {
  const url = open.mcpUrl;
  const alice = await initialize(url, TEST_KEYS.alice);
  assert.equal(alice.res.status, 200);
  for (const token of [TEST_KEYS.mallory, undefined, TEST_KEYS.alice]) {
    const attempt = await initialize(url, token, { 'mcp-session-id': alice.session });
    assert.equal(attempt.res.status, 200);
    assert.notEqual(attempt.session, alice.session, 'the server never adopts a client-chosen id');
  }
  assert.equal((await ping(url, alice.session, TEST_KEYS.alice)).status, 200);
  // Every request of another principal on it is the 404 of an unknown session.
  for (const token of [TEST_KEYS.mallory, undefined]) {
    assert.equal((await ping(url, alice.session, token)).status, 404);
    const get = await fetch(url, { headers: { accept: 'text/event-stream', ...bearer(token), 'mcp-session-id': alice.session } });
    assert.equal(get.status, 404);
    const del = await fetch(url, { method: 'DELETE', headers: { ...bearer(token), 'mcp-session-id': alice.session } });
    assert.equal(del.status, 404);
  }
  assert.equal((await ping(url, alice.session, TEST_KEYS.alice)).status, 200, 'still the owner\'s');
});

test('answers to server→client requests come only from the owner, to unguessable ids; replay only to the owner', async () => {
  const url = open.mcpUrl;
  const alice = await initialize(url, TEST_KEYS.alice);
  const res = await post(url, alice.session, TEST_KEYS.alice, { jsonrpc: '2.0', id: nextId++, method: 'tools/call',
    params: { name: 'test_elicitation', arguments: { message: 'Who?' } } });
  const asked = [];
  const { messages, lastEventId } = await readStream(res, async (message) => {
    if (message.method !== 'elicitation/create') return;
    asked.push(message);
    assert.match(String(message.id), /^[0-9a-f]{32}$/, 'a request id nobody can guess');
    // Mallory and an anonymous caller answer first, with the right id: refused as unknown.
    for (const token of [TEST_KEYS.mallory, undefined]) {
      const forged = await post(url, alice.session, token, { jsonrpc: '2.0', id: message.id,
        result: { action: 'accept', content: { username: 'mallory', email: 'm@evil.example' } } });
      assert.equal(forged.status, 404);
    }
    // A guessed id of the old scheme reaches nothing.
    await post(url, alice.session, TEST_KEYS.alice, { jsonrpc: '2.0', id: 'server-request-1',
      result: { action: 'accept', content: { username: 'guess', email: 'g@x.example' } } });
    const real = await post(url, alice.session, TEST_KEYS.alice, { jsonrpc: '2.0', id: message.id,
      result: { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } } });
    assert.equal(real.status, 202);
  });
  assert.equal(asked.length, 1);
  const result = messages.find((m) => m.id !== undefined && !m.method).result;
  assert.match(result.content[0].text, /"username":"ada"/);
  assert.doesNotMatch(JSON.stringify(result), /mallory|guess/);
  // Replaying the stream from its start: the owner gets the events, nobody else anything.
  const from = `${lastEventId.split(':')[0]}:0`;
  for (const token of [TEST_KEYS.mallory, undefined]) {
    const replay = await fetch(url, { headers: { accept: 'text/event-stream', ...bearer(token), 'mcp-session-id': alice.session, 'last-event-id': from } });
    assert.equal(replay.status, 404);
    assert.doesNotMatch(await replay.text(), /ada/);
  }
  const mine = await fetch(url, { headers: { accept: 'text/event-stream', ...bearer(TEST_KEYS.alice), 'mcp-session-id': alice.session, 'last-event-id': from } });
  assert.equal(mine.status, 200);
  assert.match(await mine.text(), /ada/);
});

test('closed deployment: key holders GET and DELETE their sessions; no credentials is 401 with the challenge', async () => {
  const url = closed.mcpUrl;
  const alice = await initialize(url, TEST_KEYS.alice);
  assert.equal(alice.res.status, 200);
  const stream = await fetch(url, { headers: { accept: 'text/event-stream', ...bearer(TEST_KEYS.alice), 'mcp-session-id': alice.session } });
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get('content-type'), /text\/event-stream/);
  await stream.body.cancel();
  for (const [method, headers] of [['GET', { accept: 'text/event-stream' }], ['DELETE', {}], ['POST', BASE]]) {
    const res = await fetch(url, { method, headers: { ...headers, 'mcp-session-id': alice.session },
      body: method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) : undefined });
    assert.equal(res.status, 401, method);
    assert.match(res.headers.get('www-authenticate'), /^Bearer resource_metadata=/, method);
  }
  const del = await fetch(url, { method: 'DELETE', headers: { ...bearer(TEST_KEYS.alice), 'mcp-session-id': alice.session } });
  assert.equal(del.status, 204);
  assert.equal((await ping(url, alice.session, TEST_KEYS.alice)).status, 404, 'ended');
});

test('sessions per principal are limited (429 + Retry-After), freed by DELETE and by idle expiry', async () => {
  const url = closed.mcpUrl;
  const token = TEST_KEYS.mallory;
  const first = await initialize(url, token);
  const second = await initialize(url, token);
  assert.equal(first.res.status, 200);
  assert.equal(second.res.status, 200);
  const third = await initialize(url, token);
  assert.equal(third.res.status, 429);
  assert.ok(Number(third.res.headers.get('retry-after')) >= 1);
  assert.equal(third.body.error.data.limit, 'QUOTA_SESSIONS');
  // Another principal is not affected.
  const alice = await initialize(url, TEST_KEYS.alice);
  assert.equal(alice.res.status, 200);
  await fetch(url, { method: 'DELETE', headers: { ...bearer(TEST_KEYS.alice), 'mcp-session-id': alice.session } });
  // DELETE frees a place at once.
  await fetch(url, { method: 'DELETE', headers: { ...bearer(token), 'mcp-session-id': first.session } });
  const again = await initialize(url, token);
  assert.equal(again.res.status, 200);
  // Idle sessions end by themselves (their storage deleted), freeing their places.
  await sleep(IDLE_MS + 3000);
  for (const s of [second.session, again.session]) {
    assert.equal((await ping(url, s, token)).status, 404, 'expired');
  }
  const after = [await initialize(url, token), await initialize(url, token)];
  assert.deepEqual(after.map((a) => a.res.status), [200, 200]);
  for (const a of after) await fetch(url, { method: 'DELETE', headers: { ...bearer(token), 'mcp-session-id': a.session } });
});

test('every tool run counts against QUOTA_TASKS_PER_MINUTE, inline ones included, in both eras', async () => {
  const url = closed.mcpUrl;
  const token = TEST_KEYS.browser;
  // Six parallel calls of a long tool without the Tasks extension: all would run inline.
  const calls = await Promise.all(Array.from({ length: 6 }, () =>
    rpc(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1 } }, { token, caps: {} })));
  const statuses = calls.map((c) => c.status).sort();
  assert.deepEqual(statuses, [200, 200, 429, 429, 429, 429]);
  const refused = calls.find((c) => c.status === 429);
  assert.equal(refused.body.error.data.limit, 'QUOTA_TASKS_PER_MINUTE');
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  // A 2025-11-25 session of the same principal is counted by the same ledger.
  const session = await initialize(url, token);
  const legacyCall = await post(url, session.session, token, { jsonrpc: '2.0', id: nextId++, method: 'tools/call',
    params: { name: 'greet', arguments: { name: 'x' } } });
  assert.equal(legacyCall.status, 429);
  assert.equal((await legacyCall.json()).error.data.limit, 'QUOTA_TASKS_PER_MINUTE');
  await fetch(url, { method: 'DELETE', headers: { ...bearer(token), 'mcp-session-id': session.session } });
});

test('anonymous runs share one QUOTA_TASKS_PER_MINUTE, in sessions or not: opening sessions does not multiply it', async () => {
  const url = anon.mcpUrl;
  const greet = { name: 'greet', arguments: { name: 'x' } };
  assert.equal((await rpc(url, 'tools/call', greet, { caps: {} })).status, 200);
  const statuses = [];
  for (let i = 0; i < 3; i += 1) {
    const { session } = await initialize(url, undefined);
    const res = await post(url, session, undefined, { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: greet });
    statuses.push(res.status);
    if (res.status === 429) assert.equal((await res.json()).error.data.limit, 'QUOTA_TASKS_PER_MINUTE');
    else await res.text();
  }
  assert.deepEqual(statuses, [200, 200, 429], 'the fourth anonymous run in a minute is refused, whichever session asks');
});

test('subscriptions are only to resources the server has', async () => {
  const url = open.mcpUrl;
  const { session } = await initialize(url, TEST_KEYS.alice);
  for (const uri of ['test://nothing-here', 'file:///etc/passwd', 'https://evil.example/']) {
    const res = await post(url, session, TEST_KEYS.alice, { jsonrpc: '2.0', id: nextId++, method: 'resources/subscribe', params: { uri } });
    assert.equal((await res.json()).error.code, -32602, uri);
  }
  const known = await post(url, session, TEST_KEYS.alice, { jsonrpc: '2.0', id: nextId++, method: 'resources/subscribe', params: { uri: 'test://static-text' } });
  assert.deepEqual((await known.json()).result, {});
});

test('a template\'s URIs may be subscribed to, at most 100 per session, then a clear refusal', async () => {
  const url = open.mcpUrl;
  const { session } = await initialize(url, TEST_KEYS.alice);
  const subscribe = async (uri) => (await post(url, session, TEST_KEYS.alice,
    { jsonrpc: '2.0', id: nextId++, method: 'resources/subscribe', params: { uri } })).json();
  for (let i = 0; i < 100; i += 1) {
    const body = await subscribe(`test://template/${i}/data`);
    assert.deepEqual(body.result, {}, `subscription ${i + 1}: ${JSON.stringify(body)}`);
  }
  const refused = await subscribe('test://template/100/data');
  assert.equal(refused.error?.code, -32602, JSON.stringify(refused));
  assert.match(refused.error.message, /at most 100 resources; unsubscribe from one first/);
  // One already held may be subscribed to again, and unsubscribing makes room.
  assert.deepEqual((await subscribe('test://template/7/data')).result, {});
  const left = await post(url, session, TEST_KEYS.alice,
    { jsonrpc: '2.0', id: nextId++, method: 'resources/unsubscribe', params: { uri: 'test://template/7/data' } });
  assert.deepEqual((await left.json()).result, {});
  assert.deepEqual((await subscribe('test://template/100/data')).result, {});
  await fetch(url, { method: 'DELETE', headers: { ...bearer(TEST_KEYS.alice), 'mcp-session-id': session } });
});

test('anonymous callers never see each other\'s tasks; holding a task id is the key', async () => {
  const url = open.mcpUrl;
  const created = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30 } });
  assert.equal(created.resultType, 'task');
  // Another anonymous caller lists nothing of it.
  const listed = await ok(url, 'mcp-tasks-edge/tasks/list', {});
  assert.ok(!listed.tasks.some((t) => t.taskId === created.taskId), JSON.stringify(listed));
  assert.deepEqual(listed.tasks, []);
  // A 2025-11-25 anonymous session lists nothing of it either.
  const { session } = await initialize(url, undefined);
  const legacyList = await (await post(url, session, undefined, { jsonrpc: '2.0', id: nextId++, method: 'tasks/list' })).json();
  assert.ok(!legacyList.result.tasks.some((t) => t.taskId === created.taskId));
  // The id is the key: whoever holds it reads it; a keyed caller is someone else.
  assert.equal((await ok(url, 'tasks/get', { taskId: created.taskId })).taskId, created.taskId);
  const keyed = await rpc(url, 'tasks/get', { taskId: created.taskId }, { token: TEST_KEYS.alice });
  assert.equal(keyed.body.error.code, -32602);
  await ok(url, 'tasks/cancel', { taskId: created.taskId });
});
