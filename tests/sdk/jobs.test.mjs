// Jobs (docs/hosts.md) through the official TypeScript clients used as hosts use them,
// with no task support at all: the SDK 1.x client (2025-11-25, a session) and the 2.x
// client in the 2026-07-28 era. A call longer than INLINE_BUDGET_MS answers with a handle;
// job_status reads the result, job_cancel stops a job; a question arrives through the
// client's own elicitation handler.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import Ajv from 'ajv';
import { startServer } from '../support/server.mjs';

const WAIT_MS = 3000;
let server;
const open = [];
before(async () => { server = await startServer({ vars: { INLINE_BUDGET_MS: String(WAIT_MS) } }); });
after(async () => {
  for (const c of open) { try { await c.close(); } catch { /* closed */ } }
  await server?.stop();
});

const LONG = { timeout: 60_000 };

async function v1(capabilities = {}) {
  const client = new ClientV1({ name: 'sdk-v1-jobs', version: '1.0.0' }, { capabilities });
  await client.connect(new TransportV1(new URL(server.mcpUrl)));
  open.push(client);
  return client;
}

async function v2() {
  const client = new ClientV2({ name: 'sdk-v2-jobs', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(server.mcpUrl)));
  open.push(client);
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  return client;
}

/** Calls job_status (waiting) until the job has ended. */
async function finished(client, job) {
  for (let i = 0; i < 20; i += 1) {
    const read = await client.callTool({ name: 'job_status', arguments: { job, waitSeconds: WAIT_MS / 1000 } }, undefined, LONG);
    if (!['working', 'input_required'].includes(read._meta['mcp-tasks-edge/job'].status)) return read;
  }
  throw new Error(`job ${job} never ended`);
}

for (const [era, connect] of [['SDK 1.x, 2025-11-25', v1], ['client 2.x, 2026-07-28', v2]]) {
  test(`${era}: a long call gives a handle, job_status its result, job_cancel stops another`, async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    assert.deepEqual(tools.slice(-3).map((t) => t.name), ['job_status', 'job_answer', 'job_cancel']);
    const pending = await client.callTool({ name: 'process_batch', arguments: { items: 5, delayMs: 1000, label: era } }, undefined, LONG);
    assert.notEqual(pending.isError, true);
    const { job, status } = pending.structuredContent;
    assert.equal(status, 'working');
    const done = await finished(client, job);
    assert.match(done.content[1].text, /^Processed 5 items of /);
    const other = (await client.callTool({ name: 'process_batch', arguments: { items: 50, delayMs: 1000 } }, undefined, LONG)).structuredContent.job;
    const cancelled = await client.callTool({ name: 'job_cancel', arguments: { job: other } });
    assert.equal(cancelled.structuredContent.status, 'cancelled');
  });
}

test("SDK 1.x with elicitation: the job's question reaches the client's handler", async () => {
  const client = await v1({ elicitation: { form: {} } });
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { confirm: true } };
  });
  const result = await client.callTool({ name: 'slow_confirm', arguments: { seconds: 1 } }, undefined, LONG);
  assert.deepEqual(asked, ['Go on?']);
  assert.equal(result.content[0].text, 'Confirmed.');
});

// Claude Code shows its model a result's structuredContent alone when there is one. A
// stand-in for that model sees nothing else: it makes the first call of `next` with its
// exact arguments until an answer has no `next`, and that answer is the tool's own result,
// valid against the outputSchema the tool declared (listed to job clients in _meta).
for (const [era, connect] of [['SDK 1.x, 2025-11-25', v1], ['client 2.x, 2026-07-28', v2]]) {
  test(`${era}: a model that sees structuredContent alone follows a job to the tool's declared result`, async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const batch = tools.find((t) => t.name === 'process_batch');
    assert.equal(batch.outputSchema, undefined, 'a tool that may become a job lists its schema in _meta');
    const validate = new Ajv({ strict: false }).compile(batch._meta['mcp-tasks-edge/outputSchema']);
    let call = { name: 'process_batch', arguments: { items: 5, delayMs: 1000, label: 'model' } };
    const seen = [];
    for (let turn = 0; turn < 20; turn += 1) {
      const result = await client.callTool(call, undefined, LONG);
      assert.equal(result.isError, false, JSON.stringify(result));
      const shown = result.structuredContent;
      seen.push(shown.status ?? 'result');
      if (!shown.next) {
        assert.ok(validate(shown), JSON.stringify(validate.errors));
        assert.deepEqual([shown.items, shown.label], [5, 'model']);
        assert.equal(seen[0], 'working');
        assert.ok(seen.length >= 2, `${seen}`);
        return;
      }
      assert.match(shown.message, /nothing is lost/);
      const [{ tool, arguments: args }] = shown.next;
      call = { name: tool, arguments: args };
    }
    throw new Error(`never reached the result: ${seen}`);
  });
}
