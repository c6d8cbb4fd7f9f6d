// A host that leaves cancels what it left, through the gateway too (docs/gateway.md,
// docs/hosts.md "A host that leaves"): in front of the SDK 1.x server of
// tests/support/upstream.mjs, a 2026-07-28 client's disconnect before its job's handle
// (basic/patterns/cancellation: a disconnect IS the cancellation of the request) and a
// 2025-11-25 `notifications/cancelled` for the call each cancel the job, and the job's
// cancel reaches the upstream: its tool's call is aborted, never finished.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { openSession, responseOf } from '../support/legacy.mjs';
import { readSse } from '../support/sse.mjs';
import { gatewayVars, startUpstream } from '../support/upstream.mjs';
import { headersFor, rpc, until } from './mcp.mjs';

// The first call's wait before its handle: long enough to leave inside it.
const WAIT_MS = 8000;
const NO_TASKS = {};
let upstream;
let gateway;

before(async () => {
  upstream = await startUpstream();
  gateway = await startServer({ vars: gatewayVars(upstream, 'upstream-only-secret', WAIT_MS) });
});
after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

/** The upstream's one call of `report` labelled `label`, once it has started. */
const upstreamCall = (label) => until(`the upstream's call ${label}`, () => {
  const calls = upstream.record.calls.filter((c) => c.tool === 'report' && c.args.label === label);
  assert.ok(calls.length <= 1, 'called once');
  return calls[0];
});

/** The caller's newest job, as the my-tasks listing reads it. */
async function newestJob() {
  const { body } = await rpc(gateway.mcpUrl, 'mcp-tasks-edge/tasks/list', {}, { caps: NO_TASKS, token: TEST_KEYS.alice });
  return body.result.tasks[0];
}

test('2026-07-28: a client that disconnects before the handle cancels the job and the upstream call', async () => {
  const params = { name: 'ts_report', arguments: { seconds: 60, label: 'modern-leaves' },
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': NO_TASKS } };
  const controller = new AbortController();
  const started = Date.now();
  const res = await fetch(gateway.mcpUrl, { method: 'POST', signal: controller.signal,
    headers: { ...headersFor('tools/call', params), accept: 'application/json, text/event-stream',
      authorization: `Bearer ${TEST_KEYS.alice}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) });
  // The wait is streamed, with a comment every second, so that the disconnect is noticed.
  assert.match(res.headers.get('content-type'), /text\/event-stream/);
  const reading = res.text();
  const call = await upstreamCall('modern-leaves');
  assert.equal(call.outcome, 'running');
  controller.abort();
  await assert.rejects(reading, { name: 'AbortError' });
  assert.ok(Date.now() - started < WAIT_MS, 'left before the handle');
  await until('the upstream call aborted', () => call.outcome !== 'running');
  assert.equal(call.outcome, 'cancelled', 'the upstream stopped its work');
  const job = await until('the job cancelled', async () => {
    const newest = await newestJob();
    return newest?.status === 'cancelled' && newest;
  });
  assert.equal(job.statusMessage, 'Cancelled by the client');
});

test('2025-11-25: notifications/cancelled for the call cancels its job and the upstream call', async () => {
  const session = await openSession(gateway.mcpUrl, { token: TEST_KEYS.alice, capabilities: {} });
  const res = await session.post({ jsonrpc: '2.0', id: 'call-1', method: 'tools/call',
    params: { name: 'ts_report', arguments: { seconds: 60, label: 'legacy-cancels' } } });
  assert.match(res.headers.get('content-type'), /text\/event-stream/);
  const messages = (async () => { const all = []; for await (const m of readSse(res.body)) all.push(m); return all; })();
  const call = await upstreamCall('legacy-cancels');
  const cancel = await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled',
    params: { requestId: 'call-1', reason: 'the user pressed Escape' } });
  assert.equal(cancel.status, 202);
  const answer = responseOf({ messages: await messages });
  assert.equal(answer.error.code, -32800, JSON.stringify(answer));
  await until('the upstream call aborted', () => call.outcome !== 'running');
  assert.equal(call.outcome, 'cancelled', 'the upstream stopped its work');
  assert.equal((await newestJob()).status, 'cancelled');
});
