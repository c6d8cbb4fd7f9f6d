// The gateway (docs/gateway.md) under wrangler dev, in front of a server written with the
// official Python SDK (`MCPServer`, mcp 2.x; tests/support/python_upstream.py), unchanged,
// as a Python author deploys one: synchronous, without tasks, speaking 2026-07-28. Its
// tools are listed as it declares them; a read-only one answers inline; a slow one reaches
// a host without tasks (the SDK 1.x client) as a job that ends with its result, its
// progress shown meanwhile. Its question (`ctx.elicit`, a request on the call's stream) is
// one only 2025-11-25 carries: the SDK refuses it at 2026-07-28, and the task fails with
// the SDK's own words. The same server configured with `"version": "2025-11-25"` (a second
// entry, `pyold`) asks it, the question reaching a client with the extension as the task's
// input request, and the answer goes back upstream.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { startPythonUpstream } from '../support/python-upstream.mjs';
import { ALL_CAPS, ok, terminal } from './mcp.mjs';

const WAIT_MS = 3000;
const LONG = { timeout: 60_000 };
let upstream;
let gateway;
const clients = [];

before(async () => {
  upstream = await startPythonUpstream();
  gateway = await startServer({ vars: {
    UPSTREAMS: JSON.stringify([{ name: 'py', url: upstream.url, prefix: 'py_' },
      { name: 'pyold', url: upstream.url, prefix: 'pyold_', version: '2025-11-25' }]),
    INLINE_BUDGET_MS: String(WAIT_MS),
    UPSTREAM_INLINE_MS: '1000',
  } });
});
after(async () => {
  for (const c of clients) { try { await c.close(); } catch { /* closed */ } }
  await gateway?.stop();
  upstream?.close();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const eventsOf = (tool, label) => upstream.events.filter((e) => e.tool === tool && (label === undefined || e.args?.label === label || e.label === label));

async function sdkClient() {
  const client = new Client({ name: 'gateway-python-e2e', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${TEST_KEYS.alice}` } },
  }));
  clients.push(client);
  return client;
}

test("a Python SDK server's tools are listed as it declares them, under the prefix", async () => {
  const { tools } = await ok(gateway.mcpUrl, 'tools/list', {});
  const lookup = tools.find((t) => t.name === 'py_lookup');
  assert.ok(lookup, JSON.stringify(tools.map((t) => t.name)));
  assert.equal(lookup.title, 'Look a key up');
  assert.equal(lookup.description, 'Answers at once.');
  assert.deepEqual(lookup.annotations, { readOnlyHint: true });
  assert.deepEqual(lookup.inputSchema.required, ['key']);
  assert.deepEqual(lookup.outputSchema.required.sort(), ['key', 'value']);
  const report = tools.find((t) => t.name === 'py_report');
  assert.deepEqual(Object.keys(report.inputSchema.properties).sort(), ['label', 'seconds']);
  assert.ok(tools.some((t) => t.name === 'py_survey'));
});

test('a read-only Python tool answers inline, its structuredContent intact', async () => {
  const result = await ok(gateway.mcpUrl, 'tools/call', { name: 'py_lookup', arguments: { key: 'k1' } }, { caps: {} });
  assert.equal(result.resultType, 'complete', JSON.stringify(result));
  assert.deepEqual(result.structuredContent, { key: 'k1', value: 'value-of-k1' });
  assert.equal(eventsOf('lookup').length, 1);
});

test('a slow Python tool reaches a host without tasks as a job: its progress, then its result, called once', async () => {
  const client = await sdkClient();
  const pending = await client.callTool({ name: 'py_report', arguments: { seconds: 8, label: 'job' } }, undefined, LONG);
  const { job, status } = pending.structuredContent;
  assert.equal(status, 'working', JSON.stringify(pending));
  let read;
  const messages = new Set();
  for (let i = 0; i < 20; i += 1) {
    read = await client.callTool({ name: 'job_status', arguments: { job, waitSeconds: 2 } }, undefined, LONG);
    if (read.structuredContent?.statusMessage) messages.add(read.structuredContent.statusMessage);
    if (read._meta['mcp-tasks-edge/job'].status === 'completed') break;
  }
  assert.equal(read._meta['mcp-tasks-edge/job'].status, 'completed', JSON.stringify(read));
  assert.deepEqual(JSON.parse(read.content.at(-1).text), { pages: 8, label: 'job' }, JSON.stringify(read.content));
  assert.ok([...messages].some((m) => /page \d of 8/.test(m)), `the upstream's progress was shown: ${[...messages]}`);
  assert.equal(eventsOf('report', 'job').filter((e) => e.event === 'call').length, 1, 'called once');
});

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

test('at 2026-07-28 the Python SDK refuses to ask mid-call: the task fails with its words, not stuck', async () => {
  const task = await askingTask('py_survey', 'modern');
  assert.equal(task.status, 'failed', JSON.stringify(task));
  assert.match(task.error.message, /no back-channel for server-initiated requests/);
});

test("pinned to 2025-11-25, the Python tool's question is the task's input request; the answer goes back upstream", async () => {
  let task = await askingTask('pyold_survey', 'asked');
  assert.equal(task.status, 'input_required', JSON.stringify(task));
  const [[key, question]] = Object.entries(task.inputRequests);
  assert.equal(question.method, 'elicitation/create');
  assert.equal(question.params.message, 'Which colour?');
  await ok(gateway.mcpUrl, 'tasks/update', { taskId: task.taskId, inputResponses: { [key]: { action: 'accept', content: { colour: 'teal' } } } });
  for (let i = 0; i < 60 && !terminal(task); i += 1) {
    await sleep(250);
    task = await ok(gateway.mcpUrl, 'tasks/get', { taskId: task.taskId });
  }
  assert.equal(task.status, 'completed', JSON.stringify(task));
  assert.deepEqual(task.result.structuredContent, { label: 'asked', answer: 'teal' });
  assert.ok(eventsOf('survey', 'asked').some((e) => e.event === 'ended' && e.answer === 'teal'), JSON.stringify(upstream.events));
});

test('a cancel reaches the Python tool: tasks/cancel of its task stops the upstream call', async () => {
  const created = await ok(gateway.mcpUrl, 'tools/call', { name: 'py_report', arguments: { seconds: 30, label: 'cancelled' } }, { caps: ALL_CAPS });
  assert.equal(created.resultType, 'task', JSON.stringify(created));
  for (let i = 0; i < 40 && !eventsOf('report', 'cancelled').length; i += 1) await sleep(250);
  assert.equal(eventsOf('report', 'cancelled').length, 1, 'the call reached the upstream');
  await ok(gateway.mcpUrl, 'tasks/cancel', { taskId: created.taskId });
  const task = await ok(gateway.mcpUrl, 'tasks/get', { taskId: created.taskId });
  assert.equal(task.status, 'cancelled', JSON.stringify(task));
  for (let i = 0; i < 40 && !eventsOf('report', 'cancelled').some((e) => e.event === 'ended'); i += 1) await sleep(250);
  assert.deepEqual(eventsOf('report', 'cancelled').map((e) => [e.event, e.outcome]), [['call', undefined], ['ended', 'cancelled']]);
});
