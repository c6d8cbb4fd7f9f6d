// mcp-remote (pinned in package.json), the stdio-to-HTTP bridge desktop hosts use to reach
// remote servers, driven over its stdio as such a host drives it (tests/sdk/mcp-remote.test.mjs,
// and the gateway's tests in front of an upstream).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './server.mjs';

const PROXY = join(ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');

/**
 * Starts mcp-remote on `url` with `token` as its bearer: `request(method, params)` answers
 * over its stdio (rejecting after 60 s with its log), `notify(method)` sends a
 * notification, `log()` is what it printed, `close()` stops it.
 */
export function startBridge(url, token) {
  // Its OAuth state goes to a directory of its own, never the user's ~/.mcp-auth.
  const configDir = mkdtempSync(join(tmpdir(), 'mcp-remote-'));
  const env = { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir };
  const bridge = spawn(process.execPath, [PROXY, url, '--allow-http', '--transport', 'http-only',
    '--header', `Authorization:Bearer ${token}`], { stdio: ['pipe', 'pipe', 'pipe'], env });
  let log = '';
  bridge.stderr.on('data', (d) => { log += d; });
  bridge.once('exit', () => rmSync(configDir, { recursive: true, force: true }));
  const waiting = new Map();
  createInterface({ input: bridge.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  let id = 0;
  return {
    log: () => log,
    close: () => bridge.kill(),
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
