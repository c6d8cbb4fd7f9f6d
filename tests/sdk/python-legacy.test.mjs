// The official Python SDK 2.x client (`mcp`, installed by `make setup` into .venv-sdk) in
// legacy mode: tests/sdk/python_legacy.py connects with the 2025-11-25 initialize
// handshake, lists the tools, calls `greet` and `test_elicitation`; this asserts on what
// it printed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';

const PYTHON = join(ROOT, '.venv-sdk', 'bin', 'python');
const SCRIPT = join(ROOT, 'tests', 'sdk', 'python_legacy.py');

let server;
// A short wait, so the job step below outlasts it (docs/hosts.md).
before(async () => { server = await startServer({ vars: { INLINE_BUDGET_MS: '3000' } }); });
after(async () => { await server?.stop(); });

function run(url) {
  return new Promise((resolve) => {
    execFile(PYTHON, [SCRIPT, url], { timeout: 180_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? (error.code ?? 1) : 0, stdout, stderr, error });
    });
  });
}

test('Python SDK client, legacy mode: initialize, tools/list, greet, an inline elicitation, a job', async () => {
  assert.ok(existsSync(PYTHON), `${PYTHON} is missing: run make setup`);
  const { code, stdout, stderr } = await run(server.mcpUrl);
  assert.equal(code, 0, `python_legacy.py failed:\n${stderr}\n${stdout}`);
  const out = JSON.parse(stdout.trim().split('\n').at(-1));

  assert.equal(out.protocolVersion, '2025-11-25');
  assert.equal(typeof out.serverInfo?.name, 'string');
  assert.ok(out.capabilities.tools, 'tools capability');

  const byName = Object.fromEntries(out.tools.map((t) => [t.name, t]));
  for (const name of ['greet', 'slow_compute', 'confirm_delete', 'test_elicitation', 'process_batch']) {
    assert.ok(byName[name], `tools/list has ${name}`);
  }
  assert.equal(byName.greet.execution?.taskSupport, 'forbidden');
  assert.equal(byName.confirm_delete.execution?.taskSupport, 'required');
  assert.ok(byName.job_status, 'the job handle tools are listed (docs/hosts.md)');

  assert.deepEqual(out.greet, { isError: false, texts: ['Hello, Guido!'] });

  assert.equal(out.elicitation.requests.length, 1, JSON.stringify(out.elicitation));
  assert.equal(out.elicitation.requests[0].message, 'Who are you?');
  assert.equal(out.elicitation.isError, false);
  assert.equal(out.elicitation.texts.length, 1);
  const m = /^User response: action=accept, content=(\{.*\})$/.exec(out.elicitation.texts[0]);
  assert.ok(m, out.elicitation.texts[0]);
  assert.deepEqual(JSON.parse(m[1]), { username: 'guido', email: 'guido@example.com' });

  // A job: the handle within the wait, then its result through job_status.
  assert.equal(out.job.isError, false);
  assert.match(out.job.pending.job, /^[0-9a-f]{32}$/);
  assert.equal(out.job.pending.status, 'working');
  assert.equal(out.job.status, 'completed');
  assert.match(out.job.texts[1], /^Processed 5 items of py/);
});
