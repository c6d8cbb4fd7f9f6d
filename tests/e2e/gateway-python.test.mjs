// The gateway (docs/gateway.md) under wrangler dev, in front of servers written with the
// official Python SDK (tests/support/python_upstream.py), unchanged, as Python authors
// deploy them: synchronous, without tasks. One on the SDK 2.x (`MCPServer`, mcp 2.3.0),
// which speaks 2026-07-28; one on the SDK 1.x (`FastMCP`, mcp 1.30.0), as most Python
// servers that exist are written, which speaks 2025-11-25. On both, the tools are listed as
// they declare them; a read-only one answers inline; a slow one reaches a host without
// tasks (the SDK 1.x client) as a job that ends with its result, its progress shown
// meanwhile; a cancel reaches the tool. A question (`ctx.elicit`, a request on the call's
// stream) is one only 2025-11-25 carries: the SDK 2.x refuses it at 2026-07-28, and the task
// fails with the SDK's own words; the same server configured with `"version":
// "2025-11-25"` (a second entry, `pyold`) asks it, as the SDK 1.x server does, and the SDK
// 2.x's own way of asking (a resolver) asks by MRTR at 2026-07-28: each question reaches a
// client with the extension as the task's input request, and the answer goes back upstream.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { startPythonUpstream } from '../support/python-upstream.mjs';
import { sdkClient as connectSdk } from '../support/sdk-client.mjs';
import { ALL_CAPS, ok, terminal } from './mcp.mjs';

const WAIT_MS = 3000;
const LONG = { timeout: 60_000 };
let v2;
let v1;
let gateway;
const clients = [];

before(async () => {
  [v2, v1] = await Promise.all([startPythonUpstream('2.3.0'), startPythonUpstream('1.30.0')]);
  gateway = await startServer({ vars: {
    UPSTREAMS: JSON.stringify([{ name: 'py', url: v2.url, prefix: 'py_' },
      { name: 'pyold', url: v2.url, prefix: 'pyold_', version: '2025-11-25' },
      { name: 'fast', url: v1.url, prefix: 'fast_' }]),
    INLINE_BUDGET_MS: String(WAIT_MS),
    UPSTREAM_INLINE_MS: '1000',
  } });
});
after(async () => {
  for (const c of clients) { try { await c.close(); } catch { /* closed */ } }
  await gateway?.stop();
  v2?.close();
  v1?.close();
});

/** Each server by the prefix of its tools. */
const SERVERS = { py: () => v2, fast: () => v1 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const eventsOf = (upstream, tool, label) => upstream.events.filter((e) => e.tool === tool && (label === undefined || e.args?.label === label || e.label === label));

const sdkClient = () => connectSdk(gateway.mcpUrl, { name: 'gateway-python-e2e', token: TEST_KEYS.alice, clients });

/** Calls `tool` as a task (a client with the extension and elicitation) and reads it until it asks or ends. */
async function askingTask(tool, label) {
  const created = await ok(gateway.mcpUrl, 'tools/call', { name: tool, arguments: { label } }, { caps: ALL_CAPS });
  assert.equal(created.resultType, 'task', JSON.stringify(created));
  let task;
  for (let i = 0; i < 60; i += 1) {
    task = await ok(gateway.mcpUrl, 'tasks/get', { taskId: created.taskId });
    if (task.status === 'input_required' || terminal(task)) return task;
    await sleep(250);
  }
  return task;
}

test("the Python SDKs' tools are listed as the servers declare them, under their prefixes", async () => {
  const { tools } = await ok(gateway.mcpUrl, 'tools/list', {});
  for (const prefix of Object.keys(SERVERS)) {
    const lookup = tools.find((t) => t.name === `${prefix}_lookup`);
    assert.ok(lookup, JSON.stringify(tools.map((t) => t.name)));
    assert.equal(lookup.title, 'Look a key up');
    assert.equal(lookup.description, 'Answers at once.');
    assert.equal(lookup.annotations.readOnlyHint, true, JSON.stringify(lookup.annotations));
    assert.deepEqual(lookup.inputSchema.required, ['key']);
    assert.deepEqual(lookup.outputSchema.required.sort(), ['key', 'value']);
    const report = tools.find((t) => t.name === `${prefix}_report`);
    assert.deepEqual(Object.keys(report.inputSchema.properties).sort(), ['label', 'seconds']);
    assert.ok(tools.some((t) => t.name === `${prefix}_survey`));
  }
});

test('a read-only Python tool answers inline, its structuredContent intact', async () => {
  for (const [prefix, upstream] of Object.entries(SERVERS)) {
    const result = await ok(gateway.mcpUrl, 'tools/call', { name: `${prefix}_lookup`, arguments: { key: prefix } }, { caps: {} });
    assert.equal(result.resultType, 'complete', JSON.stringify(result));
    assert.deepEqual(result.structuredContent, { key: prefix, value: `value-of-${prefix}` });
    assert.equal(eventsOf(upstream(), 'lookup').length, 1);
  }
});

test('a slow Python tool reaches a host without tasks as a job: its progress, then its result, called once', async () => {
  const client = await sdkClient();
  await Promise.all(Object.entries(SERVERS).map(async ([prefix, upstream]) => {
    const pending = await client.callTool({ name: `${prefix}_report`, arguments: { seconds: 8, label: 'job' } }, undefined, LONG);
    const { job, status } = pending.structuredContent;
    assert.equal(status, 'working', JSON.stringify(pending));
    let read;
    const messages = new Set();
    for (let i = 0; i < 20; i += 1) {
      read = await client.callTool({ name: 'job_status', arguments: { job, waitSeconds: 2 } }, undefined, LONG);
      if (read.structuredContent?.statusMessage) messages.add(read.structuredContent.statusMessage);
      if (read._meta['mcp-tasks-edge/job'].status === 'completed') break;
    }
    assert.equal(read._meta['mcp-tasks-edge/job'].status, 'completed', `${prefix}: ${JSON.stringify(read)}`);
    assert.deepEqual(JSON.parse(read.content.at(-1).text), { pages: 8, label: 'job' }, JSON.stringify(read.content));
    assert.ok([...messages].some((m) => /page \d of 8/.test(m)), `${prefix}: the upstream's progress was shown: ${[...messages]}`);
    assert.equal(eventsOf(upstream(), 'report', 'job').filter((e) => e.event === 'call').length, 1, 'called once');
  }));
});

test('at 2026-07-28 the Python SDK 2.x refuses to ask mid-call: the task fails with its words, not stuck', async () => {
  const task = await askingTask('py_survey', 'modern');
  assert.equal(task.status, 'failed', JSON.stringify(task));
  assert.match(task.error.message, /no back-channel for server-initiated requests/);
});

test("a Python tool's question is the task's input request; the answer goes back upstream", async () => {
  // ctx.elicit mid-call at 2025-11-25: the SDK 2.x server pinned to it, and the SDK 1.x
  // server, which speaks nothing newer; and the SDK 2.x's resolver (`pick`), which asks by
  // MRTR at 2026-07-28 (the call made again with the answer and the upstream's requestState).
  for (const [tool, upstream] of [['pyold_survey', v2], ['fast_survey', v1], ['py_pick', v2]]) {
    let task = await askingTask(tool, 'asked');
    assert.equal(task.status, 'input_required', JSON.stringify(task));
    const [[key, question]] = Object.entries(task.inputRequests);
    assert.equal(question.method, 'elicitation/create');
    assert.equal(question.params.message, 'Which colour?');
    await ok(gateway.mcpUrl, 'tasks/update', { taskId: task.taskId, inputResponses: { [key]: { action: 'accept', content: { colour: 'teal' } } } });
    for (let i = 0; i < 60 && !terminal(task); i += 1) {
      await sleep(250);
      task = await ok(gateway.mcpUrl, 'tasks/get', { taskId: task.taskId });
    }
    assert.equal(task.status, 'completed', `${tool}: ${JSON.stringify(task)}`);
    assert.deepEqual(task.result.structuredContent, { label: 'asked', answer: 'teal' });
    assert.ok(eventsOf(upstream, tool.split('_')[1], 'asked').some((e) => e.event === 'ended' && e.answer === 'teal'), JSON.stringify(upstream.events));
  }
});

test('a cancel reaches the Python tool: tasks/cancel of its task stops the upstream call', async () => {
  // At 2026-07-28 the gateway closes the call's connection, before the tool's first
  // progress (its answer's headers not yet sent); at 2025-11-25 it sends notifications/cancelled.
  for (const [prefix, upstream] of Object.entries(SERVERS)) {
    const created = await ok(gateway.mcpUrl, 'tools/call', { name: `${prefix}_report`, arguments: { seconds: 30, label: 'cancelled' } }, { caps: ALL_CAPS });
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    const events = () => eventsOf(upstream(), 'report', 'cancelled');
    for (let i = 0; i < 40 && !events().length; i += 1) await sleep(250);
    assert.equal(events().length, 1, 'the call reached the upstream');
    await ok(gateway.mcpUrl, 'tasks/cancel', { taskId: created.taskId });
    assert.equal((await ok(gateway.mcpUrl, 'tasks/get', { taskId: created.taskId })).status, 'cancelled');
    for (let i = 0; i < 40 && !events().some((e) => e.event === 'ended'); i += 1) await sleep(250);
    assert.deepEqual(events().map((e) => [e.event, e.outcome]), [['call', undefined], ['ended', 'cancelled']], prefix);
  }
});
