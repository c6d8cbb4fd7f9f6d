// A 2025-11-25 session and its legacy tasks survive a hard kill of wrangler dev (workerd
// included) and a restart on the same persist dir and port: the session and the tasks
// live in Durable Object storage. Raw HTTP with the Mcp-Session-Id header, as a legacy
// client sends it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
let server;
after(async () => { await server?.stop(); });

let nextId = 1;

/** Every JSON-RPC message of an SSE body, in order. */
function sseMessages(text) {
  const out = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, ''));
    // An event without data (the priming event of a resumable stream) carries no message.
    if (data.join('').trim()) out.push(JSON.parse(data.join('\n')));
  }
  return out;
}

function headers(sessionId) {
  const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25' };
  if (sessionId) h['mcp-session-id'] = sessionId;
  return h;
}

/** POSTs one message; resolves to { status, headers, messages } (JSON or SSE body, parsed). */
async function post(url, sessionId, message) {
  const res = await fetch(url, { method: 'POST', headers: headers(sessionId), body: JSON.stringify(message) });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  let messages = [];
  if (type.startsWith('text/event-stream')) messages = sseMessages(text);
  else if (text) messages = [JSON.parse(text)];
  return { status: res.status, headers: res.headers, messages };
}

/** A request that must succeed: its result. */
async function call(url, sessionId, method, params = {}) {
  const id = nextId++;
  const { status, messages } = await post(url, sessionId, { jsonrpc: '2.0', id, method, params });
  const response = messages.find((m) => m.id === id && !('method' in m));
  if (status !== 200 || !response || response.error) {
    throw new Error(`${method}: ${status} ${JSON.stringify(messages)}`);
  }
  return response.result;
}

async function pollUntil(url, sessionId, taskId, done, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let task;
  while (Date.now() < deadline) {
    task = await call(url, sessionId, 'tasks/get', { taskId });
    if (done(task)) return task;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`task ${taskId} never reached the expected state; last: ${JSON.stringify(task)}`);
}

/**
 * tasks/result read as a stream: answers every elicitation/create on it with `answer`
 * (POSTed back on the session), resolves to { response, asked } once the response arrives.
 */
async function taskResult(url, sessionId, taskId, answer) {
  const id = nextId++;
  const res = await fetch(url, { method: 'POST', headers: headers(sessionId),
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tasks/result', params: { taskId } }) });
  assert.equal(res.status, 200);
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('application/json')) return { response: await res.json(), asked: [] };
  assert.match(type, /^text\/event-stream/);
  const asked = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let cut;
    while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
      const [message] = sseMessages(`${event}\n\n`);
      if (!message) continue;
      if (message.method === 'elicitation/create') {
        asked.push(message);
        const reply = await post(url, sessionId, { jsonrpc: '2.0', id: message.id, result: answer(message.params) });
        assert.equal(reply.status, 202, `the answer to ${message.id}`);
      } else if (message.id === id && !('method' in message)) {
        await res.body.cancel().catch(() => {});
        return { response: message, asked };
      }
    }
  }
  throw new Error(`tasks/result stream ended without a response; asked: ${JSON.stringify(asked)}`);
}

test('kill -9 and restart: the legacy session and its tasks are still there', { timeout: 600_000 }, async () => {
  server = await startServer();
  const { persistDir, port } = server;
  const url = server.mcpUrl;

  const init = await post(url, null, { jsonrpc: '2.0', id: nextId++, method: 'initialize', params: {
    protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } },
    clientInfo: { name: 'sdk-restart-test', version: '1.0.0' } } });
  assert.equal(init.status, 200);
  assert.equal(init.messages[0].result.protocolVersion, '2025-11-25');
  const sessionId = init.headers.get('mcp-session-id');
  assert.match(sessionId ?? '', /^[\x21-\x7e]+$/);
  const initialized = await post(url, sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(initialized.status, 202);

  const toolsBefore = await call(url, sessionId, 'tools/list');
  // A long task that is mid-way at the kill, and one waiting for an answer.
  const { task: batch } = await call(url, sessionId, 'tools/call', {
    name: 'process_batch', arguments: { items: 6, delayMs: 800, label: 'survivor' }, task: { ttl: 600_000 } });
  assert.equal(batch.status, 'working');
  const { task: confirm } = await call(url, sessionId, 'tools/call', {
    name: 'confirm_delete', arguments: { filename: 'restart.txt' }, task: { ttl: 600_000 } });
  const progressed = await pollUntil(url, sessionId, batch.taskId,
    (t) => /Processed [2-5]\/6/.test(t.statusMessage ?? ''));
  const waiting = await pollUntil(url, sessionId, confirm.taskId, (t) => t.status === 'input_required');

  // A response stream of the old instance: its priming event's id, for a Last-Event-ID.
  const primed = await fetch(url, { method: 'POST', headers: headers(sessionId),
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tasks/result', params: { taskId: batch.taskId } }) });
  const reader = primed.body.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  const lastEventId = /^id: ?(\S+)/m.exec(first)?.[1];
  assert.ok(lastEventId, first);
  await reader.cancel();

  await server.kill();
  server = await startServer({ persistDir, port });
  assert.equal(server.mcpUrl, url);

  // What only the old instance held (docs/architecture.md "What a 2025-11-25 session keeps
  // only in memory"): a Last-Event-ID it knew opens an ordinary stream, nothing replayed...
  const abort = new AbortController();
  const replay = await fetch(url, { headers: { ...headers(sessionId), 'last-event-id': lastEventId },
    signal: abort.signal });
  assert.equal(replay.status, 200);
  assert.match(replay.headers.get('content-type') ?? '', /^text\/event-stream/);
  const replayed = replay.body.getReader();
  const quiet = await Promise.race([replayed.read().then((r) => new TextDecoder().decode(r.value ?? new Uint8Array())),
    new Promise((r) => setTimeout(() => r(''), 1500))]);
  assert.doesNotMatch(quiet, /"result"/, 'nothing of the old stream is replayed');
  abort.abort();
  // ...and an answer to a request the old instance sent is accepted and dropped.
  const late = await post(url, sessionId, { jsonrpc: '2.0', id: 'asked-before-the-kill', result: { action: 'cancel' } });
  assert.equal(late.status, 202);

  // The same session id still works.
  const toolsAfter = await call(url, sessionId, 'tools/list');
  assert.deepEqual(toolsAfter.tools.map((t) => t.name), toolsBefore.tools.map((t) => t.name));
  const resumed = await call(url, sessionId, 'tasks/get', { taskId: batch.taskId });
  assert.equal(resumed.taskId, batch.taskId);
  assert.equal(resumed.createdAt, progressed.createdAt);
  assert.ok(['working', 'completed'].includes(resumed.status), resumed.status);
  const stillWaiting = await call(url, sessionId, 'tasks/get', { taskId: confirm.taskId });
  assert.equal(stillWaiting.status, 'input_required');
  assert.equal(stillWaiting.createdAt, waiting.createdAt);

  const listed = await call(url, sessionId, 'tasks/list');
  assert.deepEqual(listed.tasks.map((t) => t.taskId).sort(), [batch.taskId, confirm.taskId].sort());

  // The batch finishes from its checkpoint; tasks/result gives the tools/call result.
  const done = await pollUntil(url, sessionId, batch.taskId, (t) => ['completed', 'failed', 'cancelled'].includes(t.status));
  assert.equal(done.status, 'completed');
  const { response: batchResult } = await taskResult(url, sessionId, batch.taskId, () => ({ action: 'cancel' }));
  assert.match(batchResult.result.content[0].text, /^Processed 6 items of survivor/);
  assert.deepEqual(batchResult.result._meta?.[RELATED_TASK], { taskId: batch.taskId });

  // The waiting task's question is asked on the restarted server, tagged with the task.
  const { response, asked } = await taskResult(url, sessionId, confirm.taskId,
    () => ({ action: 'accept', content: { confirm: true } }));
  assert.equal(asked.length, 1, JSON.stringify(asked));
  assert.equal(asked[0].params.message, 'Delete restart.txt?');
  assert.deepEqual(asked[0].params._meta?.[RELATED_TASK], { taskId: confirm.taskId });
  assert.ok(!response.error, JSON.stringify(response));
  assert.deepEqual(response.result.content, [{ type: 'text', text: 'Deleted restart.txt.' }]);
  assert.deepEqual(response.result._meta?.[RELATED_TASK], { taskId: confirm.taskId });
  const final = await call(url, sessionId, 'tasks/get', { taskId: confirm.taskId });
  assert.equal(final.status, 'completed');
});
