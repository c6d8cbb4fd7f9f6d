// Structured logs under wrangler dev (docs/operations.md): every event of the vocabulary
// (src/ops/log.rs) is read back from wrangler's own output, one JSON object per line, with
// the fields an operator queries; the task timeline reaches its owner and no one else; and
// no argument, answer, result, token or secret appears anywhere in the output.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startServers, TEST_KEYS, TEST_VARS } from '../support/server.mjs';
import { ok, pollUntil, rpc, terminal } from './mcp.mjs';

const ARG = 'arg-marker-7f3a';
const ANSWER = 'answer-marker-91c2';
const OPS_KEY = 'operator-key-for-logs-e2e';
const fingerprint = (name) => createHash('sha256').update(name).digest('hex').slice(0, 16);
const sha256 = (s) => createHash('sha256').update(s).digest('hex');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let server, short, url;
const alice = { token: TEST_KEYS.alice };
const mallory = { token: TEST_KEYS.mallory };

before(async () => {
  [server, short] = await startServers(
    { vars: {
      LOG_LEVEL: 'debug',
      ALLOW_ANONYMOUS: 'false',
      QUOTA_LIVE_TASKS: '2',
      ADMIN_KEYS: `ops=${sha256(OPS_KEY)}`,
    } },
    // Tasks that expire within seconds.
    { vars: { TASK_MAX_TTL_MS: '3000' } },
  );
  url = server.mcpUrl;
});
after(async () => { await Promise.all([server?.stop(), short?.stop()]); });

/** The events `where` matches, waiting up to `timeoutMs` for at least `count`. */
async function events(srv, where, { count = 1, timeoutMs = 20_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const found = srv.events().filter((e) => Object.entries(where).every(([k, v]) => e[k] === v));
    if (found.length >= count) return found;
    if (Date.now() > deadline) {
      throw new Error(`fewer than ${count} events ${JSON.stringify(where)}; got:\n${srv.events().map((e) => JSON.stringify(e)).join('\n')}`);
    }
    await sleep(100);
  }
}

const timeline = (taskId, options) => rpc(url, 'mcp-tasks-edge/tasks/timeline', { taskId }, options);

test('a task with a question: created, steps, input requested and answered, completed; its timeline', async () => {
  const created = await ok(url, 'tools/call', { name: 'confirm_delete', arguments: { filename: `${ARG}.txt` } }, alice);
  const { taskId } = created;
  const waiting = await pollUntil(url, taskId, (t) => t.status === 'input_required', { options: alice });
  const [key] = Object.keys(waiting.inputRequests);
  await ok(url, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } }, alice);
  const done = await pollUntil(url, taskId, terminal, { options: alice });
  assert.equal(done.status, 'completed');

  const mine = { taskId, tool: 'confirm_delete' };
  const [createdLine] = await events(server, { event: 'task.created', ...mine });
  assert.equal(createdLine.level, 'info');
  assert.equal(createdLine.principal, fingerprint('key:alice'));
  assert.match(createdLine.requestId, /^[0-9a-f]{16}$|^[0-9a-f]+-[A-Z]+$/);
  // Its first step ran in the Worker, before the task existed: the same events, without a
  // taskId, with the request id of task.created.
  const first = { tool: 'confirm_delete', requestId: createdLine.requestId, inline: true };
  const [firstStarted] = await events(server, { event: 'step.started', ...first });
  assert.equal(firstStarted.attempt, 1);
  assert.equal(firstStarted.principal, fingerprint('key:alice'));
  assert.equal(firstStarted.taskId, undefined);
  const [firstFinished] = await events(server, { event: 'step.finished', ...first });
  assert.equal(firstFinished.outcome, 'continued');
  assert.equal(firstFinished.level, 'debug', 'the run goes on as the task: task.created says so');
  assert.ok(Number.isInteger(firstFinished.durationMs) && firstFinished.durationMs >= 0);
  assert.equal(firstFinished.principal, fingerprint('key:alice'));
  const started = await events(server, { event: 'step.started', ...mine }, { count: 2 });
  assert.deepEqual(started.map((e) => [e.level, e.attempt]), [['debug', 1], ['debug', 1]]);
  const finished = await events(server, { event: 'step.finished', ...mine }, { count: 2 });
  // Debug: what each step changed has its own line (task.input_requested, task.completed).
  assert.deepEqual(finished.map((e) => [e.level, e.outcome]), [['debug', 'input_required'], ['debug', 'completed']]);
  assert.ok(finished.every((e) => Number.isInteger(e.durationMs) && e.durationMs >= 0));
  const [asked] = await events(server, { event: 'task.input_requested', ...mine });
  assert.equal(asked.inputs, 1);
  const [answered] = await events(server, { event: 'task.input_answered', ...mine });
  assert.equal(answered.principal, fingerprint('key:alice'));
  assert.equal(answered.status, 'working');
  assert.ok(answered.requestId, 'the tasks/update request');
  const [completed] = await events(server, { event: 'task.completed', ...mine });
  assert.equal(completed.isError, false);
  // Every task line names the owner; the last one says how long the whole task took.
  for (const line of [...started, ...finished, asked, completed]) assert.equal(line.principal, fingerprint('key:alice'), JSON.stringify(line));
  assert.ok(Number.isInteger(completed.durationMs) && completed.durationMs >= finished[1].durationMs, JSON.stringify(completed));

  // The owner reads the timeline; anyone else gets the "not found" of an unknown task.
  const { body } = await timeline(taskId, alice);
  assert.equal(body.result.taskId, taskId);
  assert.equal(body.result.status, 'completed');
  assert.deepEqual(body.result.timeline.map((e) => [e.event, e.status]), [
    ['created', 'working'], ['input_requested', 'input_required'], ['input_answered', 'working'], ['completed', 'completed'],
  ]);
  assert.ok(body.result.timeline.every((e) => !Number.isNaN(Date.parse(e.at))));
  const stranger = await timeline(taskId, mallory);
  const unknown = await timeline('0'.repeat(32), mallory);
  assert.equal(stranger.body.error.code, -32602);
  assert.deepEqual(stranger.body.error, unknown.body.error);
});

test('an inline run prints its step lines: tool, attempt, duration, outcome, principal, request id', async () => {
  const before = server.events().length;
  const greeted = await ok(url, 'tools/call', { name: 'greet', arguments: { name: ARG } }, alice);
  assert.equal(greeted.resultType, 'complete');
  const mine = (e) => e.tool === 'greet' && e.inline === true;
  const deadline = Date.now() + 10_000;
  let lines = [];
  while (lines.length < 2 && Date.now() < deadline) {
    await sleep(100);
    lines = server.events().slice(before).filter(mine);
  }
  // A fast call that completed is debug: at info it prints nothing (below).
  assert.deepEqual(lines.map((e) => [e.event, e.level, e.attempt]), [['step.started', 'debug', 1], ['step.finished', 'debug', 1]]);
  const [started, finished] = lines;
  assert.equal(finished.outcome, 'completed');
  assert.ok(Number.isInteger(finished.durationMs) && finished.durationMs >= 0);
  for (const line of lines) {
    assert.equal(line.principal, fingerprint('key:alice'));
    assert.match(line.requestId, /^[0-9a-f]{16}$|^[0-9a-f]+-[A-Z]+$/);
    assert.equal(line.taskId, undefined);
  }
  assert.equal(started.requestId, finished.requestId);
});

test('at info a fast synchronous call prints no line; an isError one prints its step.finished', async () => {
  const before = short.events().length;
  const greeted = await ok(short.mcpUrl, 'tools/call', { name: 'greet', arguments: { name: 'x' } });
  assert.equal(greeted.resultType, 'complete');
  const refused = await ok(short.mcpUrl, 'tools/call', { name: 'test_error_handling', arguments: {} });
  assert.equal(refused.isError, true);
  const [line] = await events(short, { event: 'step.finished', tool: 'test_error_handling' });
  assert.deepEqual([line.level, line.outcome, line.inline], ['info', 'error_result', true]);
  // Lines arrive in order: the greeting's would have come before the error's.
  assert.deepEqual(short.events().slice(before).filter((e) => e.tool === 'greet'), []);
});

test('answers with the caller\'s data are taken but not logged', async () => {
  const { taskId } = await ok(url, 'tools/call', { name: 'multi_input', arguments: {} }, alice);
  const waiting = await pollUntil(url, taskId, (t) => t.status === 'input_required', { options: alice });
  const responses = {};
  for (const key of Object.keys(waiting.inputRequests)) responses[key] = { action: 'accept', content: { name: ANSWER, confirm: true } };
  await ok(url, 'tasks/update', { taskId, inputResponses: responses }, alice);
  assert.equal((await pollUntil(url, taskId, terminal, { options: alice })).status, 'completed');
  await events(server, { event: 'task.input_answered', taskId });
  await events(server, { event: 'task.completed', taskId });
});

test('a cancelled task says who cancelled it', async () => {
  const { taskId } = await ok(url, 'tools/call', { name: 'process_batch', arguments: { items: 50, delayMs: 500, label: ARG } }, alice);
  await ok(url, 'tasks/cancel', { taskId }, alice);
  const [line] = await events(server, { event: 'task.cancelled', taskId });
  assert.equal(line.by, 'owner');
  assert.equal(line.tool, 'process_batch');
  assert.equal(line.principal, fingerprint('key:alice'));
  assert.ok(line.requestId);
  assert.ok(Number.isInteger(line.durationMs) && line.durationMs >= 0, JSON.stringify(line));
});

test('a panicking step: the panic is caught, the lost lease retried, then the task fails saying why', async () => {
  const { taskId } = await ok(url, 'tools/call', { name: 'panic_job', arguments: {} }, alice);
  const done = await pollUntil(url, taskId, terminal, { timeoutMs: 120_000, options: alice });
  assert.equal(done.status, 'failed');
  const panics = await events(server, { event: 'panic', object: 'TaskObject', method: 'alarm' }, { count: 3 });
  assert.ok(panics.every((e) => e.level === 'error'));
  const retried = await events(server, { event: 'step.retried', taskId }, { count: 2 });
  assert.deepEqual(retried.map((e) => [e.level, e.attempt]), [['warn', 2], ['warn', 3]]);
  const [failed] = await events(server, { event: 'task.failed', taskId });
  assert.equal(failed.level, 'error');
  assert.equal(failed.tool, 'panic_job');
  assert.equal(failed.code, -32603);
  assert.match(failed.error, /did not finish a step in 3 attempts/);
  assert.equal(failed.attempt, 3);
  assert.equal(failed.principal, fingerprint('key:alice'));
  assert.ok(Number.isInteger(failed.durationMs) && failed.durationMs > 0, JSON.stringify(failed));
  assert.ok(retried.every((e) => e.principal === fingerprint('key:alice')));

  // A panic in the Worker itself.
  const crashed = await rpc(url, 'tools/call', { name: 'panic_inline', arguments: {} }, alice);
  assert.equal(crashed.body.error.code, -32603);
  const [worker] = await events(server, { event: 'panic', object: 'Worker', method: 'fetch' });
  assert.equal(worker.level, 'error');
});

test('refusals: authentication (with the reason) and quotas (with the limit and who)', async () => {
  assert.equal((await rpc(url, 'tools/list', {})).status, 401);
  assert.equal((await rpc(url, 'tools/list', {}, { token: 'not-a-key' })).status, 401);
  const [none] = await events(server, { event: 'auth.refused', reason: 'no_credentials' });
  assert.equal(none.status, 401);
  assert.ok(none.requestId);
  const [bad] = await events(server, { event: 'auth.refused', reason: 'invalid_token' });
  assert.match(bad.error, /not an accepted API key/);

  const ids = [];
  for (let i = 0; i < 2; i++) {
    ids.push((await ok(url, 'tools/call', { name: 'process_batch', arguments: { items: 50, delayMs: 500, label: ARG } }, mallory)).taskId);
  }
  const refused = await rpc(url, 'tools/call', { name: 'process_batch', arguments: { items: 50, delayMs: 500, label: ARG } }, mallory);
  assert.equal(refused.status, 429);
  const [quota] = await events(server, { event: 'quota.refused', limit: 'QUOTA_LIVE_TASKS' });
  assert.equal(quota.level, 'warn');
  assert.equal(quota.principal, fingerprint('key:mallory'));
  assert.equal(quota.max, 2);
  assert.match(quota.requestId ?? '', /^[0-9a-f]{16}$|^[0-9a-f]+-[A-Z]+$/, 'the refused request');
  for (const taskId of ids) await ok(url, 'tasks/cancel', { taskId }, mallory);
});

test('2025-11-25 sessions: opened and ended', async () => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TEST_KEYS.alice}` };
  const init = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e-logs', version: '1' } } }) });
  assert.equal(init.status, 200);
  await init.text();
  const session = init.headers.get('mcp-session-id');
  const [opened] = await events(server, { event: 'session.opened', session: fingerprint(session) });
  assert.equal(opened.principal, fingerprint('key:alice'));
  assert.equal(opened.protocolVersion, '2025-11-25');
  const ended = await fetch(url, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } });
  assert.equal(ended.status, 204);
  const [line] = await events(server, { event: 'session.ended', session: fingerprint(session) });
  assert.equal(line.reason, 'deleted');
});

test('operator requests are logged, with the operator and the outcome', async () => {
  const { taskId } = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1 } }, alice);
  const view = await ok(url, 'mcp-tasks-edge/admin/tasks/get', { taskId }, { token: OPS_KEY });
  assert.equal(view.task.owner, fingerprint('key:alice'));
  const [line] = await events(server, { event: 'admin', taskId });
  assert.equal(line.principal, fingerprint('admin:ops'));
  assert.equal(line.method, 'mcp-tasks-edge/admin/tasks/get');
  assert.equal(line.outcome, 'ok');
});

test('an expired task is logged when its storage is erased', async () => {
  const { taskId } = await ok(short.mcpUrl, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1 } });
  const [line] = await events(short, { event: 'task.expired', taskId }, { timeoutMs: 30_000 });
  assert.equal(line.status, 'completed');
  assert.equal(line.tool, 'slow_compute');
  // Anonymous: the task's own principal, by fingerprint.
  assert.equal(line.principal, fingerprint(`anonymous-task:${taskId}`));
});

test('nothing of the callers\' data and no credential appears in any line of the output', async () => {
  const secrets = [ARG, ANSWER, OPS_KEY, ...Object.values(TEST_KEYS), TEST_VARS.REQUEST_STATE_SECRET, 'key:alice', 'key:mallory'];
  for (const srv of [server, short]) {
    const output = srv.log();
    for (const secret of secrets) assert.equal(output.includes(secret), false, `the output holds ${secret}`);
    const lines = output.split('\n').filter((l) => l.startsWith('{"event":'));
    // Something to check on each: the short server's task prints task.created, task.completed
    // and task.expired at info.
    assert.ok(lines.length >= 3, `${lines.length} lines`);
    for (const line of lines) {
      const event = JSON.parse(line);
      assert.ok(['debug', 'info', 'warn', 'error'].includes(event.level), line);
      if ('principal' in event) assert.match(event.principal, /^[0-9a-f]{16}$/, line);
    }
  }
  // At info (the second server), a step line is printed only as the one line of an inline
  // run: a task's steps and a run that became a task are told by their transitions.
  const stepLines = short.events().filter((e) => e.event === 'step.finished');
  assert.ok(short.events().some((e) => e.event === 'task.created'), 'the info server made tasks');
  for (const line of stepLines) assert.ok(line.inline && line.outcome !== 'continued', JSON.stringify(line));
  // Every event of the vocabulary was seen (the JS guard's `panic` included).
  const seen = new Set([...server.events(), ...short.events()].map((e) => e.event));
  for (const event of ['task.created', 'step.started', 'step.finished', 'step.retried', 'task.input_requested',
    'task.input_answered', 'task.completed', 'task.failed', 'task.cancelled', 'task.expired', 'panic',
    'auth.refused', 'quota.refused', 'session.opened', 'session.ended', 'admin']) {
    assert.ok(seen.has(event), `no ${event} line`);
  }
});
