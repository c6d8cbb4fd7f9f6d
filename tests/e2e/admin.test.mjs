// The operator's view under wrangler dev (docs/operations.md "The operator's view"): an
// operator (ADMIN_KEYS, or an OAuth token granting OAUTH_ADMIN_SCOPE) looks up anyone's
// task with its timeline, owner fingerprint and principal name, lists a principal's tasks and cancels a
// task, each request logged; everyone else (no credentials, ordinary keys, an OAuth
// token without the scope, anonymous callers) gets the -32601 of an unknown method, and
// so does everyone on a deployment without operators.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startServers, TEST_KEYS } from '../support/server.mjs';
import { startIssuer } from '../support/issuer.mjs';
import { ACK, ok, pollUntil, rpc } from './mcp.mjs';

const OPS_KEY = 'operator-key-for-admin-e2e';
const GET = 'mcp-tasks-edge/admin/tasks/get';
const LIST = 'mcp-tasks-edge/admin/tasks/list';
const CANCEL = 'mcp-tasks-edge/admin/tasks/cancel';
const sha256 = (s) => createHash('sha256').update(s).digest('hex');
const fingerprint = (name) => sha256(name).slice(0, 16);

let server, plain, issuer, url;
const alice = { token: TEST_KEYS.alice };
const ops = { token: OPS_KEY };

before(async () => {
  issuer = await startIssuer();
  await issuer.addKey('k1', 'ES256');
  issuer.publish('k1');
  [server, plain] = await startServers(
    { vars: {
      ADMIN_KEYS: `ops=${sha256(OPS_KEY)}`,
      OAUTH_ISSUER: issuer.url,
      OAUTH_ADMIN_SCOPE: 'mcp:admin',
    } },
    // The test keys only: no operator is configured.
    {},
  );
  url = server.mcpUrl;
});
after(async () => { await Promise.all([server?.stop(), plain?.stop(), issuer?.stop()]); });

const token = (scope) => issuer.token({ sub: 'carol', aud: url, scope }, { kid: 'k1' });
const longTask = (options) => ok(url, 'tools/call', { name: 'process_batch', arguments: { items: 100, delayMs: 1000, label: 'admin-e2e' } }, options);

/** A refusal's body, the method's name replaced, so refusals of different methods compare. */
async function refusal(target, method, params, options) {
  const { status, body } = await rpc(target, method, params, options);
  const same = JSON.parse(JSON.stringify(body).replaceAll(method, 'METHOD'));
  delete same.id;
  return { status, body: same };
}

test('an operator looks a task up, whoever owns it: status, timeline, owner fingerprint, no data', async () => {
  const { taskId } = await longTask(alice);
  await pollUntil(url, taskId, (t) => /Processed [3-9]/.test(t.statusMessage ?? ''), { options: alice });
  const { task } = await ok(url, GET, { taskId }, ops);
  assert.equal(task.taskId, taskId);
  assert.equal(task.status, 'working');
  assert.equal(task.tool, 'process_batch');
  assert.equal(task.owner, fingerprint('key:alice'));
  // The owner's principal name (never a credential), which admin/tasks/list takes: from a
  // task to its owner's other tasks.
  assert.equal(task.principal, 'key:alice');
  const others = await ok(url, LIST, { principal: task.principal }, ops);
  assert.ok(others.tasks.some((t) => t.taskId === taskId && t.principal === 'key:alice'));
  assert.ok(!JSON.stringify(task).includes(TEST_KEYS.alice), 'no key');
  assert.equal(task.timeline[0].event, 'created');
  assert.ok(task.timeline.some((e) => e.event === 'progressed'));
  assert.ok(!JSON.stringify(task).includes('admin-e2e'), 'no arguments');
  // An unknown id: the owner's "not found".
  const missing = await rpc(url, GET, { taskId: 'f'.repeat(32) }, ops);
  assert.equal(missing.body.error.code, -32602);
  await ok(url, CANCEL, { taskId }, ops);
});

test('an operator lists a principal\'s tasks and cancels one; the owner sees who cancelled it', async () => {
  const listsOfAlice = () => server.events().filter((e) => e.event === 'admin' && e.method === LIST && e.owner === fingerprint('key:alice')).length;
  const listedBefore = listsOfAlice();
  const first = (await longTask(alice)).taskId;
  const second = (await longTask(alice)).taskId;
  const { tasks } = await ok(url, LIST, { principal: 'key:alice' }, ops);
  const ids = tasks.map((t) => t.taskId);
  assert.ok(ids.indexOf(second) >= 0 && ids.indexOf(second) < ids.indexOf(first), 'newest first');
  assert.ok(tasks.every((t) => t.owner === fingerprint('key:alice')));
  assert.deepEqual((await ok(url, LIST, { principal: 'key:nobody' }, ops)).tasks, []);

  assert.deepEqual(await ok(url, CANCEL, { taskId: first }, ops), ACK);
  const seen = await ok(url, 'tasks/get', { taskId: first }, alice);
  assert.equal(seen.status, 'cancelled');
  assert.equal(seen.statusMessage, 'Cancelled by an operator');
  const { task } = await ok(url, GET, { taskId: first }, ops);
  assert.deepEqual(task.timeline.at(-1).event, 'cancelled');
  await ok(url, CANCEL, { taskId: second }, ops);

  // Every request logged, with the operator's fingerprint and the outcome.
  const lines = server.events().filter((e) => e.event === 'admin');
  const cancelled = lines.filter((e) => e.method === CANCEL && e.taskId === first);
  assert.equal(cancelled.length, 1);
  assert.equal(cancelled[0].principal, fingerprint('admin:ops'));
  assert.equal(cancelled[0].outcome, 'ok');
  assert.equal(listsOfAlice(), listedBefore + 1);
  const cancelLine = server.events().find((e) => e.event === 'task.cancelled' && e.taskId === first);
  assert.equal(cancelLine.by, 'operator');
});

test('an OAuth token granting OAUTH_ADMIN_SCOPE is an operator\'s; without it, not', async () => {
  const { taskId } = await longTask(alice);
  const admin = { token: await token('mcp:tools mcp:admin') };
  assert.equal((await ok(url, GET, { taskId }, admin)).task.owner, fingerprint('key:alice'));
  const user = { token: await token('mcp:tools') };
  const unknown = await refusal(url, 'mcp-tasks-edge/no/such/method', {}, user);
  assert.deepEqual(await refusal(url, GET, { taskId }, user), unknown);
  await ok(url, CANCEL, { taskId }, admin);
});

test('without operator credentials the operator\'s methods do not exist', async () => {
  const { taskId } = await longTask(alice);
  for (const [who, options] of [['alice', alice], ['mallory', { token: TEST_KEYS.mallory }], ['anonymous', {}]]) {
    const unknown = await refusal(url, 'mcp-tasks-edge/no/such/method', {}, options);
    assert.equal(unknown.body.error.code, -32601, who);
    for (const [method, params] of [[GET, { taskId }], [LIST, { principal: 'key:alice' }], [CANCEL, { taskId }]]) {
      assert.deepEqual(await refusal(url, method, params, options), unknown, `${method} as ${who}`);
    }
  }
  // Nothing was cancelled, and nothing was logged as an operator's.
  assert.equal((await ok(url, 'tasks/get', { taskId }, alice)).status, 'working');
  assert.ok(server.events().filter((e) => e.event === 'admin').every((e) => e.principal !== fingerprint('key:mallory')));
  // The operator key is refused outright where it is not configured; callers get -32601.
  assert.equal((await rpc(plain.mcpUrl, GET, { taskId }, ops)).status, 401);
  const unknown = await refusal(plain.mcpUrl, 'mcp-tasks-edge/no/such/method', {}, alice);
  assert.deepEqual(await refusal(plain.mcpUrl, GET, { taskId }, alice), unknown);
  assert.deepEqual(await refusal(plain.mcpUrl, CANCEL, { taskId }, {}), await refusal(plain.mcpUrl, 'mcp-tasks-edge/no/such/method', {}, {}));
  await ok(url, CANCEL, { taskId }, ops);
});
