// A task survives a hard kill of wrangler dev (workerd included) and completes after a
// restart on the same persist dir: its checkpoint and alarm are in Durable Object storage.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { ok, pollUntil, terminal } from './mcp.mjs';

let server;
after(async () => { await server?.stop(); });

test('kill -9 and restart: the task resumes from its checkpoint and completes', async () => {
  server = await startServer();
  const { persistDir } = server;
  const { taskId } = await ok(server.mcpUrl, 'tools/call', { name: 'process_batch', arguments: { items: 6, delayMs: 800, label: 'survivor' } });
  const progressed = await pollUntil(server.mcpUrl, taskId, (t) => /Processed [2-5]\/6/.test(t.statusMessage ?? ''));
  await server.kill();
  server = await startServer({ persistDir });
  const resumed = await ok(server.mcpUrl, 'tasks/get', { taskId });
  assert.equal(resumed.createdAt, progressed.createdAt);
  const done = await pollUntil(server.mcpUrl, taskId, terminal, { timeoutMs: 60_000 });
  assert.equal(done.status, 'completed');
  assert.match(done.result.content[0].text, /^Processed 6 items of survivor/);
  assert.equal(done.result.structuredContent.items, 6);
});
