// TTL expiry under wrangler dev: a task lives for its ttlMs, then its object deletes it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { ok, rpc } from './mcp.mjs';

let server, url;
before(async () => { server = await startServer({ vars: { TASK_TTL_MS: '3000', TASK_MAX_TTL_MS: '3000' } }); url = server.mcpUrl; });
after(async () => { await server?.stop(); });

test('a task is readable during its TTL and not found after it', async () => {
  const created = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 1 } });
  assert.equal(created.ttlMs, 3000);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await ok(url, 'tasks/get', { taskId: created.taskId })).status, 'completed');
  await new Promise((r) => setTimeout(r, 2500));
  const { status, body } = await rpc(url, 'tasks/get', { taskId: created.taskId });
  assert.equal(status, 400);
  assert.equal(body.error.code, -32602);
});

test('a task still working at its TTL is gone too', async () => {
  const created = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 20 } });
  await new Promise((r) => setTimeout(r, 4000));
  const { body } = await rpc(url, 'tasks/get', { taskId: created.taskId });
  assert.equal(body.error.code, -32602);
});
