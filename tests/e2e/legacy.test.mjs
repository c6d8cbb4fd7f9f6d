// The 2025-11-25 era on the same endpoint, at the wire: sessions, SSE responses,
// server→client requests answered by separate POSTs, logging, and legacy tasks on the
// same task objects as the Tasks extension (a task created by either era is read by the other).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { ok, rpc } from './mcp.mjs';

let server, url;
// Sessions beyond the default quota: one test opens more than the registry tells at once.
before(async () => { server = await startServer({ vars: { QUOTA_SESSIONS: '100' } }); url = server.mcpUrl; });
after(async () => { await server?.stop(); });

let nextId = 1;
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The bearer token each session was opened with (none: anonymous). */
const tokens = new Map();
const auth = (token) => (token ? { authorization: `Bearer ${token}` } : {});

async function initialize(capabilities = { elicitation: {}, sampling: {} }, token = undefined) {
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...auth(token) }, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'e2e-legacy', version: '1' } } }) });
  assert.equal(res.status, 200);
  const session = res.headers.get('mcp-session-id');
  assert.match(session, /^[0-9a-f]{32}$/);
  tokens.set(session, token);
  const body = await res.json();
  assert.equal(body.result.protocolVersion, '2025-11-25');
  const note = await post(session, { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(note.status, 202);
  return { session, result: body.result };
}

function post(session, message) {
  return fetch(url, { method: 'POST', headers: { ...HEADERS, ...auth(tokens.get(session)), 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(message) });
}

/** Sends a request; returns every JSON-RPC message of its answer (JSON or SSE), calling
 * `onRequest(message)` for server→client requests and POSTing what it returns. */
async function call(session, method, params = {}, onRequest) {
  const id = nextId++;
  const res = await post(session, { jsonrpc: '2.0', id, method, params });
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return { status: res.status, messages: [await res.json()] };
  const messages = [];
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end); buffer = buffer.slice(end + 2);
      const data = frame.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('');
      if (!data) continue;
      const message = JSON.parse(data);
      messages.push(message);
      if (message.method && message.id !== undefined && onRequest) {
        const answer = await onRequest(message);
        const r = await post(session, { jsonrpc: '2.0', id: message.id, result: answer });
        assert.equal(r.status, 202);
      }
    }
  }
  return { status: res.status, messages };
}

const response = (r) => r.messages.find((m) => m.id !== undefined && !m.method);

test('initialize, lists without 2026 fields, ping, DELETE ends the session', async () => {
  const { session, result } = await initialize();
  assert.ok(result.capabilities.tasks.requests.tools.call);
  const tools = response(await call(session, 'tools/list')).result;
  assert.equal(tools.resultType, undefined);
  // Each tool's support as registered; the job handle tools (docs/hosts.md) never run as tasks.
  const support = (name) => tools.tools.find((t) => t.name === name).execution.taskSupport;
  assert.equal(support('confirm_delete'), 'required');
  assert.equal(support('job_status'), 'forbidden');
  assert.deepEqual(response(await call(session, 'ping')).result, {});
  const del = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
  assert.equal(del.status, 204);
  const gone = await post(session, { jsonrpc: '2.0', id: nextId++, method: 'ping' });
  assert.equal(gone.status, 404);
  const unknown = await post('ffffffffffffffffffffffffffffffff', { jsonrpc: '2.0', id: nextId++, method: 'ping' });
  assert.equal(unknown.status, 404);
});

test('an inline call asks by a server→client request answered in a separate POST; logs follow the level', async () => {
  const { session } = await initialize();
  const asked = [];
  const r = await call(session, 'tools/call', { name: 'test_elicitation', arguments: { message: 'Who?' } }, (req) => {
    asked.push(req);
    return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
  });
  assert.equal(asked.length, 1);
  assert.equal(asked[0].method, 'elicitation/create');
  assert.equal(asked[0].params.message, 'Who?');
  assert.match(response(r).result.content[0].text, /"username":"ada"/);
  // Logging: info messages arrive while the level allows them, not above it.
  const logs = (x) => x.messages.filter((m) => m.method === 'notifications/message');
  assert.equal(logs(await call(session, 'tools/call', { name: 'test_tool_with_logging', arguments: {} })).length, 3);
  assert.deepEqual(response(await call(session, 'logging/setLevel', { level: 'error' })).result, {});
  assert.equal(logs(await call(session, 'tools/call', { name: 'test_tool_with_logging', arguments: {} })).length, 0);
  // A client without the capability is refused before anything is sent.
  const { session: plain } = await initialize({});
  const refused = response(await call(plain, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'hi' } }));
  assert.equal(refused.error.code, -32021);
});

test('legacy tasks on the same task objects: create, tasks/result with a tagged question, both eras read it', async () => {
  // One principal (an API key) in both eras.
  const token = TEST_KEYS.alice;
  const { session } = await initialize(undefined, token);
  const created = response(await call(session, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'a.txt' }, task: { ttl: 60000 } }));
  const task = created.result.task;
  assert.match(task.taskId, /^[0-9a-f]{32}$/);
  assert.equal(task.ttl, 60000);
  assert.equal(task.ttlMs, undefined);
  // The same task through the Tasks extension (2026-07-28): same principal, same object.
  const modern = await ok(url, 'tasks/get', { taskId: task.taskId }, { token });
  assert.equal(modern.taskId, task.taskId);
  const questions = [];
  const r = await call(session, 'tasks/result', { taskId: task.taskId }, (req) => {
    questions.push(req);
    return { action: 'accept', content: { confirm: true } };
  });
  assert.equal(questions.length, 1);
  assert.equal(questions[0].params._meta['io.modelcontextprotocol/related-task'].taskId, task.taskId);
  const result = response(r).result;
  assert.equal(result.content[0].text, 'Deleted a.txt.');
  assert.equal(result._meta['io.modelcontextprotocol/related-task'].taskId, task.taskId);
  const statuses = r.messages.filter((m) => m.method === 'notifications/tasks/status').map((m) => m.params.status);
  assert.equal(statuses.at(-1), 'completed');
  assert.equal((await ok(url, 'tasks/get', { taskId: task.taskId }, { token })).status, 'completed');
  // A task created by the modern era is read by the legacy one.
  const born = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30 } }, { token });
  const seen = response(await call(session, 'tasks/get', { taskId: born.taskId })).result;
  assert.equal(seen.status, 'working');
  assert.equal(seen.pollInterval, 1000);
  await ok(url, 'tasks/cancel', { taskId: born.taskId }, { token });
});

test('tasks/cancel, tasks/list, and refusals', async () => {
  const { session } = await initialize(undefined, TEST_KEYS.alice);
  const ids = [];
  for (let i = 0; i < 3; i++) {
    const c = response(await call(session, 'tools/call', { name: 'process_batch', arguments: { items: 50, delayMs: 500 }, task: {} }));
    ids.push(c.result.task.taskId);
  }
  const cancelled = response(await call(session, 'tasks/cancel', { taskId: ids[0] })).result;
  assert.equal(cancelled.status, 'cancelled');
  const again = response(await call(session, 'tasks/cancel', { taskId: ids[0] }));
  assert.equal(again.error.code, -32602);
  // The principal's tasks, whichever session or era made them: these three are the newest.
  const listed = response(await call(session, 'tasks/list')).result;
  assert.deepEqual(listed.tasks.slice(0, 3).map((t) => t.taskId), [...ids].reverse());
  const { session: other } = await initialize(undefined, TEST_KEYS.alice);
  const seen = response(await call(other, 'tasks/list')).result;
  assert.deepEqual(seen.tasks.slice(0, 3).map((t) => t.taskId), [...ids].reverse());
  // Another principal, and an anonymous session, list none of them.
  const { session: mallory } = await initialize(undefined, TEST_KEYS.mallory);
  const { session: anonymous } = await initialize();
  for (const stranger of [mallory, anonymous]) {
    const theirs = response(await call(stranger, 'tasks/list')).result.tasks.map((t) => t.taskId);
    assert.ok(ids.every((id) => !theirs.includes(id)), `${theirs}`);
  }
  const bad = response(await call(session, 'tasks/list', { cursor: 'nope' }));
  assert.equal(bad.error.code, -32602);
  const forbidden = response(await call(session, 'tools/call', { name: 'greet', arguments: { name: 'x' }, task: {} }));
  assert.equal(forbidden.error.code, -32601);
  // A required tool kept out of jobs (docs/hosts.md), called without params.task.
  const required = response(await call(session, 'tools/call', { name: 'failing_job', arguments: {} }));
  assert.equal(required.error.code, -32601);
  const modernOnly = response(await call(session, 'server/discover'));
  assert.equal(modernOnly.error.code, -32601);
  for (const id of ids.slice(1)) await call(session, 'tasks/cancel', { taskId: id });
});

test('an anonymous session\'s task is reached by its id from any anonymous session, and listed there from then on', async () => {
  const { session: a } = await initialize();
  const created = response(await call(a, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'c.txt' }, task: {} }));
  const taskId = created.result.task.taskId;
  const listed = async (session) => response(await call(session, 'tasks/list')).result.tasks.map((t) => t.taskId);
  // Another anonymous session lists nothing of it until it reaches it by its id.
  const { session: b } = await initialize();
  assert.ok(!(await listed(b)).includes(taskId));
  const seen = response(await call(b, 'tasks/get', { taskId })).result;
  assert.equal(seen.taskId, taskId);
  // What tasks/get can read, tasks/list lists (2025-11-25 tasks "Task Listing" 4).
  assert.ok((await listed(b)).includes(taskId));
  assert.ok((await listed(a)).includes(taskId), 'still its creator\'s');
  // Nobody else reaches it: a keyed session, or a stateless anonymous caller, whose own
  // tasks are theirs by id.
  const { session: keyed } = await initialize(undefined, TEST_KEYS.alice);
  assert.equal(response(await call(keyed, 'tasks/get', { taskId })).error.code, -32602);
  assert.equal((await rpc(url, 'tasks/get', { taskId })).body.error.code, -32602);
  // A third session answers its question through tasks/result, as its creator would.
  const { session: c } = await initialize();
  const questions = [];
  const r = await call(c, 'tasks/result', { taskId }, (req) => {
    questions.push(req);
    return { action: 'accept', content: { confirm: true } };
  });
  assert.equal(questions.length, 1);
  assert.equal(response(r).result.content[0].text, 'Deleted c.txt.');
  assert.equal(response(await call(a, 'tasks/get', { taskId })).result.status, 'completed');
  // And a task another session cancels is cancelled for its creator too.
  const other = response(await call(a, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30 }, task: {} })).result.task.taskId;
  assert.equal(response(await call(b, 'tasks/cancel', { taskId: other })).result.status, 'cancelled');
  assert.equal(response(await call(a, 'tasks/get', { taskId: other })).result.status, 'cancelled');
  assert.ok((await listed(b)).includes(other));
});

/** The messages a GET stream brings, collected as they come; `stop()` cancels it. */
function updates(res) {
  const seen = [];
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const line of value.split('\n').filter((l) => l.startsWith('data: '))) seen.push(JSON.parse(line.slice(6)));
      }
    } catch { /* cancelled */ }
  })();
  // A cancel may reject once the connection is gone (undici's "terminated"): the stream
  // is over either way.
  return { seen, stop: () => reader.cancel().catch(() => {}) };
}

const getStream = (session) => fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } });

test('resources/subscribe: an announced update reaches the subscribed sessions, not the others', async () => {
  const { session: watcher } = await initialize();
  const { session: other } = await initialize();
  assert.deepEqual(response(await call(watcher, 'resources/subscribe', { uri: 'test://watched-resource' })).result, {});
  const stream = await getStream(watcher);
  const otherStream = await getStream(other);
  assert.equal(stream.status, 200);
  const mine = updates(stream);
  const theirs = updates(otherStream);
  // Another client (here a 2026-07-28 call) changes the resource.
  const done = await ok(url, 'tools/call', { name: 'test_update_resource', arguments: { uri: 'test://watched-resource' } });
  assert.equal(done.content[0].text, 'Announced an update of test://watched-resource.');
  const deadline = Date.now() + 10_000;
  while (!mine.seen.some((m) => m.method === 'notifications/resources/updated') && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(mine.seen.find((m) => m.method === 'notifications/resources/updated')?.params, { uri: 'test://watched-resource' });
  // After unsubscribing, the next update is not sent; the unsubscribed session never got one.
  assert.deepEqual(response(await call(watcher, 'resources/unsubscribe', { uri: 'test://watched-resource' })).result, {});
  await ok(url, 'tools/call', { name: 'test_update_resource', arguments: { uri: 'test://watched-resource' } });
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(mine.seen.filter((m) => m.method === 'notifications/resources/updated').length, 1);
  assert.equal(theirs.seen.filter((m) => m.method === 'notifications/resources/updated').length, 0);
  await Promise.all([mine.stop(), theirs.stop()]);
});

test('an update reaches every subscribed session, past the first batch the registry tells (40 sessions)', async () => {
  const uri = 'test://watched-resource';
  const sessions = [];
  for (let i = 0; i < 40; i++) sessions.push((await initialize()).session);
  for (const session of sessions) {
    const subscribed = response(await call(session, 'resources/subscribe', { uri }));
    assert.deepEqual(subscribed.result, {}, JSON.stringify(subscribed));
  }
  const watched = (await Promise.all(sessions.map(getStream))).map(updates);
  await ok(url, 'tools/call', { name: 'test_update_resource', arguments: { uri } });
  const heard = () => watched.filter((w) => w.seen.some((m) => m.method === 'notifications/resources/updated' && m.params.uri === uri)).length;
  const deadline = Date.now() + 15_000;
  while (heard() < sessions.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(heard(), sessions.length);
  await Promise.all(watched.map((w) => w.stop()));
  await Promise.all(sessions.map((session) => fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session } })));
});
