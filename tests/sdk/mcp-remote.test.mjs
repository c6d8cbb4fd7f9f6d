// mcp-remote (pinned in package.json), the stdio-to-HTTP bridge desktop hosts use to reach
// remote servers, driven over its stdio as such a host drives it: initialize at
// 2025-11-25 with no capabilities, tools/list, then a call longer than the server's wait,
// which answers with a job handle (docs/hosts.md), and job_status until the result.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { startBridge } from '../support/mcp-remote.mjs';

const WAIT_MS = 3000;
let server, bridge;
before(async () => { server = await startServer({ vars: { INLINE_BUDGET_MS: String(WAIT_MS) } }); });
after(async () => {
  bridge?.close();
  await server?.stop();
});

/** Starts mcp-remote on the server (tests/support/mcp-remote.mjs). */
function connect() {
  bridge = startBridge(server.mcpUrl, TEST_KEYS.alice);
  return bridge;
}

test('a desktop host through mcp-remote: a long call gives a handle, job_status its result', async () => {
  const host = connect();
  const init = await host.request('initialize', { protocolVersion: '2025-11-25', capabilities: {},
    clientInfo: { name: 'desktop-host', version: '1' } });
  assert.equal(init.result.protocolVersion, '2025-11-25', host.log());
  host.notify('notifications/initialized');
  const { tools } = (await host.request('tools/list', {})).result;
  assert.deepEqual(tools.slice(-3).map((t) => t.name), ['job_status', 'job_answer', 'job_cancel']);
  const pending = (await host.request('tools/call', { name: 'process_batch', arguments: { items: 5, delayMs: 1000, label: 'bridged' } })).result;
  assert.equal(pending.isError, false);
  const { job, status } = pending.structuredContent;
  assert.equal(status, 'working');
  let read;
  for (let i = 0; i < 20; i += 1) {
    read = (await host.request('tools/call', { name: 'job_status', arguments: { job, waitSeconds: WAIT_MS / 1000 } })).result;
    if (read._meta['mcp-tasks-edge/job'].status === 'completed') break;
  }
  assert.match(read.content[1].text, /^Processed 5 items of bridged/);
});
