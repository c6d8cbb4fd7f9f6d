// The gateway template (templates/gateway) as an operator gets it: made by
// templates/new-server.sh NAME gateway in a fresh directory outside this repository, its
// Cargo.lock current, built with the project's tools and served by its own `npm run dev`
// with nothing but its files and one variable: UPSTREAMS pointed at a server written with
// the official TypeScript SDK 1.x (tests/support/upstream.mjs) instead of the template's
// example. Its upstream's tools are listed and called through it, as a task and as a job.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';
import { templateEnv } from '../support/scripts.mjs';
import { startUpstream } from '../support/upstream.mjs';
import { ok, pollUntil, terminal } from '../e2e/mcp.mjs';

const NAME = 'report-gateway';
const parent = mkdtempSync(join(tmpdir(), 'mcp-gateway-'));
const dir = join(parent, NAME);
assert.ok(relative(ROOT, dir).startsWith('..'), `${dir} must be outside the repository`);

// The starter's cache of compiled dependencies too: the gateway's are the same library.
const env = templateEnv(ROOT);

function run(command, args, cwd = dir) {
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

let upstream;
let server;

test.before(async () => {
  const made = run('sh', [join(ROOT, 'templates', 'new-server.sh'), NAME, 'gateway'], parent);
  assert.equal(made.status, 0, made.output);
  assert.match(readFileSync(join(dir, 'wrangler.toml'), 'utf8'), /^name = "report-gateway"$/m);
  assert.match(readFileSync(join(dir, 'src', 'lib.rs'), 'utf8'), /Server::builder\("report-gateway"\)/);
  upstream = await startUpstream();
});

test.after(async () => {
  await server?.stop();
  await upstream?.close();
  rmSync(parent, { recursive: true, force: true });
});

test('its Cargo.lock is current: the build uses exactly the committed versions', () => {
  const { status, output } = run('cargo', ['metadata', '--locked', '--format-version', '1']);
  assert.equal(status, 0, `templates/gateway/Cargo.lock is stale (refresh it: cargo update --workspace --manifest-path templates/gateway/Cargo.toml):\n${output}`);
});

test('built and served by its own npm run dev, it offers its upstream\'s tools', async () => {
  const upstreams = JSON.stringify([{ name: 'reports', url: upstream.url, prefix: 'reports_' }]);
  server = await startServer({ cwd: dir, baseVars: {}, vars: { UPSTREAMS: upstreams, INLINE_BUDGET_MS: '2000' },
    env, startTimeoutMs: 900_000, command: ['npm', 'run', 'dev', '--'] });
  const { tools } = await ok(server.mcpUrl, 'tools/list', {});
  assert.deepEqual(tools.map((t) => t.name).sort(), ['reports_fails', 'reports_lookup', 'reports_report', 'reports_slow_lookup', 'reports_survey']);
});

test('a slow upstream tool: a task for a client with the extension, a job for one without', async () => {
  const created = await ok(server.mcpUrl, 'tools/call', { name: 'reports_report', arguments: { seconds: 2, label: 'template' } });
  assert.equal(created.resultType, 'task');
  const done = await pollUntil(server.mcpUrl, created.taskId, terminal, { timeoutMs: 30_000 });
  assert.deepEqual(done.result.structuredContent, { pages: 2, label: 'template' });
  const pending = await ok(server.mcpUrl, 'tools/call', { name: 'reports_report', arguments: { seconds: 4 } }, { caps: {} });
  const { job, status } = pending._meta['mcp-tasks-edge/job'];
  assert.equal(status, 'working');
  let read;
  for (let i = 0; i < 10; i += 1) {
    read = await ok(server.mcpUrl, 'tools/call', { name: 'job_status', arguments: { job, waitSeconds: 2 } }, { caps: {} });
    if (read._meta['mcp-tasks-edge/job'].status === 'completed') break;
  }
  assert.ok(read.content.some((c) => c.text === 'Rendered 4 pages'), JSON.stringify(read));
});
