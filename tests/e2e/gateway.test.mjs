// The gateway (docs/gateway.md) under wrangler dev, in front of a server written with the
// official TypeScript SDK 1.x that knows nothing of tasks (tests/support/upstream.mjs):
// its tools listed as it declares them, a slow one reaching hosts without tasks as a job and
// clients with the extension as a task, progress, cancel reaching the upstream, arguments
// checked before any upstream call, credentials never crossing, and what a kill -9 of the
// gateway mid-call does to an idempotent tool and to one that is not.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { startBridge } from '../support/mcp-remote.mjs';
import { sdkClient as connectSdk } from '../support/sdk-client.mjs';
import { answering, connect, within } from '../interop/host.mjs';
import { gatewayVars, startUpstream } from '../support/upstream.mjs';
import { ok, pollUntil, rpc, terminal } from './mcp.mjs';

const WAIT_MS = 3000;
const LONG = { timeout: 60_000 };
const UPSTREAM_SECRET = 'upstream-only-secret';
let upstream;
let gateway;
const clients = [];

const vars = () => gatewayVars(upstream, UPSTREAM_SECRET, WAIT_MS);

before(async () => {
  upstream = await startUpstream();
  gateway = await startServer({ vars: vars() });
});
after(async () => {
  for (const c of clients) { try { await c.close(); } catch { /* closed */ } }
  await gateway?.stop();
  await upstream?.close();
});

const NO_TASKS = { elicitation: {} };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const sdkClient = () => connectSdk(gateway.mcpUrl, { name: 'gateway-e2e', token: TEST_KEYS.alice, clients });

const callsOf = (tool, label) => upstream.record.calls.filter((c) => c.tool === tool && (label === undefined || c.args.label === label));

test('the upstream tools are listed as the upstream declares them, under the prefix', async () => {
  const { tools } = await ok(gateway.mcpUrl, 'tools/list', {});
  const report = tools.find((t) => t.name === 'ts_report');
  assert.ok(report, JSON.stringify(tools.map((t) => t.name)));
  assert.equal(report.title, 'Render a report');
  assert.equal(report.description, 'Renders a report page by page (slow).');
  assert.deepEqual(Object.keys(report.inputSchema.properties).sort(), ['label', 'seconds']);
  assert.deepEqual(report.inputSchema.required, ['seconds']);
  assert.deepEqual(report.outputSchema.required.sort(), ['label', 'pages']);
  assert.deepEqual(tools.find((t) => t.name === 'ts_lookup').annotations, { readOnlyHint: true });
  assert.ok(tools.some((t) => t.name === 'echo'), "the server's own tools stay beside them");
  const lines = gateway.events().filter((e) => e.event === 'upstream.listed');
  assert.ok(lines.some((l) => l.upstream === 'ts' && l.tools === 5), JSON.stringify(lines));
});

test('a fast read-only upstream tool answers inline, its structuredContent intact', async () => {
  const result = await ok(gateway.mcpUrl, 'tools/call', { name: 'ts_lookup', arguments: { key: 'k1' } }, { caps: NO_TASKS });
  assert.equal(result.resultType, 'complete');
  assert.deepEqual(result.structuredContent, { key: 'k1', value: 'value-of-k1' });
  assert.equal(result.isError, false);
  const failed = await ok(gateway.mcpUrl, 'tools/call', { name: 'ts_fails', arguments: {} }, { caps: NO_TASKS });
  assert.equal(failed.isError, true);
  assert.equal(failed.content[0].text, 'it went wrong');
});

test('inline calls of one caller share one upstream session; one the upstream forgot is replaced, the call made once', async () => {
  const lookup = (key, token = TEST_KEYS.alice) => ok(gateway.mcpUrl, 'tools/call', { name: 'ts_lookup', arguments: { key } }, { caps: NO_TASKS, token });
  const count = (method) => upstream.record.methods.filter((m) => m === method).length;
  await lookup('warm');
  const [inits, calls] = [count('initialize'), callsOf('lookup').length];
  const results = await Promise.all(['a', 'b', 'c', 'd'].map((key) => lookup(key)));
  for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) assert.deepEqual(results[i].structuredContent, { key, value: `value-of-${key}` });
  assert.equal(count('initialize'), inits, 'no handshake: the kept session serves them all');
  assert.equal(callsOf('lookup').length, calls + 4);
  upstream.forgetSessions();
  assert.equal((await lookup('e')).structuredContent.key, 'e');
  assert.equal(count('initialize'), inits + 1, 'a new session, once');
  assert.equal(callsOf('lookup').length, calls + 5, 'the call the upstream refused (404) ran once, on the new session');
  // Another caller, and an anonymous one, never get alice's session.
  await lookup('f', TEST_KEYS.mallory);
  assert.equal(count('initialize'), inits + 2, "mallory's own session");
  const deletes = upstream.record.deletes;
  await lookup('g', null);
  assert.equal(count('initialize'), inits + 3, 'an anonymous call opens a session of its own');
  assert.equal(upstream.record.deletes, deletes + 1, 'and closes it');
});

test('arguments are checked against the upstream schema before any upstream call', async () => {
  const before = upstream.record.calls.length;
  const { body } = await rpc(gateway.mcpUrl, 'tools/call', { name: 'ts_report', arguments: { seconds: 'many' } });
  assert.equal(body.error.code, -32602, JSON.stringify(body));
  assert.match(body.error.message, /seconds/);
  assert.equal(upstream.record.calls.length, before, 'the upstream saw no call');
});

test('SDK 1.x without tasks: a 90-second upstream tool becomes a job whose handle reaches the result', async () => {
  // Longer than the ~60 s after which hosts give up on a call: no call here lasts over 3 s.
  const client = await sdkClient();
  const pending = await client.callTool({ name: 'ts_report', arguments: { seconds: 90, label: 'job' } }, undefined, LONG);
  // The tool declares an outputSchema, which a client that gets jobs finds in _meta (its
  // running answer is the job's handle, no error), docs/hosts.md.
  assert.equal(pending.isError, false, JSON.stringify(pending));
  const { job, status, next } = pending.structuredContent;
  assert.equal(status, 'working', JSON.stringify(pending));
  assert.deepEqual(next[0], { tool: 'job_status', arguments: { job, waitSeconds: WAIT_MS / 1000 } });
  const { tools } = await client.listTools();
  const report = tools.find((t) => t.name === 'ts_report');
  assert.equal(report.outputSchema, undefined);
  assert.deepEqual(report._meta['mcp-tasks-edge/outputSchema'].required.sort(), ['label', 'pages']);
  let read;
  for (let i = 0; i < 45; i += 1) {
    read = await client.callTool({ name: 'job_status', arguments: { job, waitSeconds: 3 } }, undefined, LONG);
    if (read._meta['mcp-tasks-edge/job'].status === 'completed') break;
  }
  assert.equal(read._meta['mcp-tasks-edge/job'].status, 'completed', JSON.stringify(read));
  assert.ok(read.content.some((c) => c.text === 'Rendered 90 pages for job'), JSON.stringify(read.content));
  assert.equal(callsOf('report', 'job').length, 1, 'called once');
  // Credentials never cross: the upstream saw the gateway's token only.
  assert.ok(upstream.record.authorizations.every((a) => a === `Bearer ${UPSTREAM_SECRET}`), JSON.stringify([...new Set(upstream.record.authorizations)]));
  assert.ok(!upstream.record.authorizations.includes(`Bearer ${TEST_KEYS.alice}`));
});

test('a host that shows its model structuredContent alone follows the job to the result', async () => {
  // As Claude Code does: the model sees structuredContent only and makes the next call it names.
  const client = await sdkClient();
  const { tools } = await client.listTools();
  const schema = tools.find((t) => t.name === 'ts_report')._meta['mcp-tasks-edge/outputSchema'];
  let shown = (await client.callTool({ name: 'ts_report', arguments: { seconds: 5, label: 'structured' } }, undefined, LONG)).structuredContent;
  const seen = [];
  for (let i = 0; i < 10 && shown.next; i += 1) {
    seen.push(shown.status);
    const [{ tool, arguments: args }] = shown.next;
    shown = (await client.callTool({ name: tool, arguments: args }, undefined, LONG)).structuredContent;
  }
  assert.ok(seen.length > 0 && seen.every((s) => s === 'working'), JSON.stringify(seen));
  assert.deepEqual(shown, { pages: 5, label: 'structured' }, 'the tool\'s own structuredContent');
  for (const key of schema.required) assert.ok(key in shown, `${key} as the declared outputSchema requires`);
});

test('the Tasks extension: a slow upstream tool is a task, polled to its result', async () => {
  const created = await ok(gateway.mcpUrl, 'tools/call', { name: 'ts_report', arguments: { seconds: 3, label: 'task' } });
  assert.equal(created.resultType, 'task');
  const done = await pollUntil(gateway.mcpUrl, created.taskId, terminal, { timeoutMs: 30_000 });
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.deepEqual(done.result.structuredContent, { pages: 3, label: 'task' });
});

test('the official Tasks client (V2): a task to its result, another cancelled upstream', async () => {
  const client = await connect(gateway.mcpUrl, { generation: 'v2', token: TEST_KEYS.alice, onInputRequest: answering() });
  clients.push(client);
  const execution = await client.session.callTool('ts_report', { seconds: 2, label: 'ext-tasks' });
  assert.equal(execution.kind, 'task');
  const { outcome } = await within(30_000, execution.settle(), 'ts_report');
  assert.equal(outcome.status, 'completed', String(outcome.error));
  assert.deepEqual(resultFromTaskOutcome(outcome).structuredContent, { pages: 2, label: 'ext-tasks' });
  const long = await client.session.callTool('ts_report', { seconds: 60, label: 'ext-cancel' });
  const deadline = Date.now() + 15_000;
  while (callsOf('report', 'ext-cancel').length === 0 && Date.now() < deadline) await sleep(100);
  await within(30_000, long.cancel(), 'cancel');
  assert.equal((await within(30_000, long.settle(), 'settle')).outcome.status, 'cancelled');
  while (callsOf('report', 'ext-cancel')[0].outcome === 'running' && Date.now() < deadline) await sleep(100);
  assert.equal(callsOf('report', 'ext-cancel')[0].outcome, 'cancelled');
});

test('mcp-remote, as desktop hosts use it: a handle, then the result through job_status', async () => {
  const bridge = startBridge(gateway.mcpUrl, TEST_KEYS.alice);
  clients.push(bridge);
  const { request } = bridge;
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'desktop-host', version: '1' } });
  bridge.notify('notifications/initialized');
  const { tools } = (await request('tools/list', {})).result;
  assert.ok(tools.some((t) => t.name === 'ts_report'));
  const pending = (await request('tools/call', { name: 'ts_report', arguments: { seconds: 5, label: 'bridged' } })).result;
  const { job } = pending._meta['mcp-tasks-edge/job'];
  let read;
  for (let i = 0; i < 10; i += 1) {
    read = (await request('tools/call', { name: 'job_status', arguments: { job, waitSeconds: 3 } })).result;
    if (read._meta['mcp-tasks-edge/job'].status === 'completed') break;
  }
  assert.ok(read.content.some((c) => c.text === 'Rendered 5 pages for bridged'), JSON.stringify(read));
});

test('cancelling the task cancels the upstream call', async () => {
  const created = await ok(gateway.mcpUrl, 'tools/call', { name: 'ts_report', arguments: { seconds: 60, label: 'cancel' } });
  const deadline = Date.now() + 15_000;
  while (callsOf('report', 'cancel').length === 0 && Date.now() < deadline) await sleep(100);
  assert.equal(callsOf('report', 'cancel').length, 1, 'the call reached the upstream');
  await ok(gateway.mcpUrl, 'tasks/cancel', { taskId: created.taskId });
  const task = await ok(gateway.mcpUrl, 'tasks/get', { taskId: created.taskId });
  assert.equal(task.status, 'cancelled');
  while (callsOf('report', 'cancel')[0].outcome === 'running' && Date.now() < deadline) await sleep(100);
  assert.equal(callsOf('report', 'cancel')[0].outcome, 'cancelled', 'the upstream stopped its work');
  assert.ok(upstream.record.cancelled.length >= 1);
});

test('kill -9 mid-call: an idempotent tool is called again, another fails saying why', async () => {
  // A repeatable call is tried in the Worker first (UPSTREAM_INLINE_MS), cancelled there as
  // too slow, and made again by the task object: the second call is the one killed.
  const lookups = () => upstream.record.calls.filter((c) => c.args.key === 'after-kill');
  const repeat = await ok(gateway.mcpUrl, 'tools/call', { name: 'ts_slow_lookup', arguments: { key: 'after-kill', seconds: 5 } });
  assert.equal(repeat.resultType, 'task');
  assert.equal(lookups()[0].outcome, 'cancelled', 'the call the Worker gave up on was cancelled');
  const once = await ok(gateway.mcpUrl, 'tools/call', { name: 'ts_report', arguments: { seconds: 5, label: 'kill' } });
  const deadline = Date.now() + 15_000;
  while ((callsOf('report', 'kill').length === 0 || lookups().length < 2) && Date.now() < deadline) await sleep(100);
  assert.equal(lookups().length, 2);
  await gateway.kill();
  gateway = await startServer({ vars: vars(), port: gateway.port, persistDir: gateway.persistDir });
  const repeated = await pollUntil(gateway.mcpUrl, repeat.taskId, terminal, { timeoutMs: 40_000 });
  assert.equal(repeated.status, 'completed', JSON.stringify(repeated));
  assert.equal(lookups().length, 3, 'called again');
  assert.equal(lookups()[2].outcome, 'completed');
  const failed = await pollUntil(gateway.mcpUrl, once.taskId, terminal, { timeoutMs: 40_000 });
  assert.equal(failed.status, 'failed', JSON.stringify(failed));
  assert.match(failed.error.message, /"report".*"ts".*not made again.*idempotentHint/);
  assert.equal(callsOf('report', 'kill').length, 1, 'nothing was run twice');
});
