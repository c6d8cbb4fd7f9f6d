// The Python upstream (tests/support/python_upstream.py: the official Python SDK's
// MCPServer, or FastMCP with the SDK 1.x; installed by `make setup` into .venv-sdk and
// .venv-sdk1) as a process of its own on a free loopback port, stopped by PID. Its events
// (each call started and ended) are kept in `events` as it prints them.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, ROOT } from './server.mjs';

/** The SDKs it runs on: the venv of each. */
export const PYTHON_SDKS = { '2.3.0': '.venv-sdk', '1.30.0': '.venv-sdk1' };

/** Starts it on the SDK `version`; resolves to { url, events, close } once it listens. */
export async function startPythonUpstream(version) {
  const port = await freePort();
  const child = spawn(join(ROOT, PYTHON_SDKS[version], 'bin', 'python'), [join(ROOT, 'tests', 'support', 'python_upstream.py'), String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events = [];
  let log = '';
  let pending = '';
  const ready = new Promise((resolve, reject) => {
    child.stdout.on('data', (data) => {
      pending += data;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        if (!line.startsWith('{')) continue; // the SDK's own messages
        const event = JSON.parse(line);
        if (event.event === 'ready') resolve();
        else events.push(event);
      }
    });
    child.stderr.on('data', (data) => { log += data; });
    child.on('exit', (code) => reject(new Error(`the Python upstream exited (${code}):\n${log}`)));
    setTimeout(() => reject(new Error(`the Python upstream did not start:\n${log}`)), 60_000);
  });
  await ready;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    events,
    close: () => { if (child.exitCode === null) child.kill('SIGKILL'); },
  };
}
