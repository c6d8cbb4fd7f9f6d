// mcp-remote (pinned in package.json), the stdio-to-HTTP bridge desktop hosts use to reach
// remote servers, driven over its stdio as such a host drives it: initialize at
// 2025-11-25 with no capabilities, tools/list, then a call longer than the server's wait,
// which answers with a job handle (docs/hosts.md), and job_status until the result.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT, startServer, TEST_KEYS } from '../support/server.mjs';

const PROXY = join(ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');
const WAIT_MS = 3000;
let server, bridge;
before(async () => { server = await startServer({ vars: { INLINE_BUDGET_MS: String(WAIT_MS) } }); });
after(async () => {
  bridge?.kill();
  await server?.stop();
});

/** Starts mcp-remote on the server; `request(method, params)` answers over its stdio. */
function connect() {
  // Its OAuth state goes to a directory of its own, never the user's ~/.mcp-auth.
  const env = { ...process.env, MCP_REMOTE_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'mcp-remote-')) };
  bridge = spawn(process.execPath, [PROXY, server.mcpUrl, '--allow-http', '--transport', 'http-only',
    '--header', `Authorization:Bearer ${TEST_KEYS.alice}`], { stdio: ['pipe', 'pipe', 'pipe'], env });
  let log = '';
  bridge.stderr.on('data', (d) => { log += d; });
  const waiting = new Map();
  createInterface({ input: bridge.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  let id = 0;
  return {
    log: () => log,
    notify: (method) => bridge.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`),
    request(method, params) {
      id += 1;
      const sent = id;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${method}: no answer in 60 s\n${log}`)), 60_000);
        waiting.set(sent, (m) => { clearTimeout(timer); resolve(m); });
        bridge.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: sent, method, params })}\n`);
      });
    },
  };
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
