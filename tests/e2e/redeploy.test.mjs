// Safe redeploys (docs/operations.md "Redeploys"): tasks in flight when a deploy changes a
// tool's checkpoint type. An http_job has POSTed its job and stored its checkpoint; the
// Worker is rebuilt with http_job's checkpoint changed (the demo's `changed-checkpoint`
// feature renames a field) and restarted on the same state. The job task fails with a
// message naming the tool and the mismatch, and the job server never receives a second
// POST; a process_batch task, whose checkpoint type did not change, completes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';
import { startJobServer } from '../support/job-server.mjs';
import { ok, pollUntil, terminal } from './mcp.mjs';

const CHANGED = { WORKER_FEATURES: 'changed-checkpoint' };
const BUILD_TIMEOUT_MS = 15 * 60_000;
let server, jobs;

/** Builds the Worker as wrangler would (a no-op when its inputs did not change). */
const build = (env = {}) => promisify(execFile)('sh', [join(ROOT, 'scripts', 'build-worker.sh')],
  { cwd: ROOT, env: { ...process.env, ...env }, timeout: BUILD_TIMEOUT_MS, maxBuffer: 64 << 20 });

before(async () => { jobs = await startJobServer(); });
after(async () => {
  await server?.stop();
  await jobs?.close();
  // Leave the ordinary build behind for the tests that follow.
  await build();
});

test('a checkpoint that no longer decodes fails its task loudly; nothing is done twice', { timeout: 2 * BUILD_TIMEOUT_MS }, async () => {
  await build();
  server = await startServer();
  const { persistDir } = server;
  const tag = `redeploy-${Date.now()}`;
  // The job's next poll is due in 8 s: after the restart, with the new code.
  const job = await ok(server.mcpUrl, 'tools/call', { name: 'http_job',
    arguments: { startUrl: `${jobs.url}/jobs`, body: { tag, steps: 2, retryAfter: 8 } } });
  assert.equal(job.resultType, 'task');
  assert.equal(job.statusMessage, 'Job accepted');
  const batch = await ok(server.mcpUrl, 'tools/call', { name: 'process_batch',
    arguments: { items: 3, delayMs: 3000, label: 'unchanged' } });
  assert.equal(batch.resultType, 'task');
  await server.stop();
  assert.equal(jobs.postsFor(tag).length, 1);

  await build(CHANGED);
  server = await startServer({ persistDir, env: CHANGED, startTimeoutMs: BUILD_TIMEOUT_MS });
  const failed = await pollUntil(server.mcpUrl, job.taskId, terminal, { timeoutMs: 60_000 });
  assert.equal(failed.status, 'failed', JSON.stringify(failed));
  assert.equal(failed.error.code, -32603);
  assert.match(failed.error.message, /^The tool "http_job" cannot resume: its stored checkpoint does not decode as [\w:]+::Job: missing field `pollUrl`/);
  assert.match(failed.error.message, /the step was not run again/);
  // The job was POSTed once, before the deploy, and never polled by the new code.
  assert.equal(jobs.postsFor(tag).length, 1);
  const id = jobs.jobByTag(tag).id;
  assert.equal(jobs.requestsFor(id).filter((r) => r.method === 'GET').length, 0);

  // A tool whose checkpoint type is unchanged resumes where it was.
  const done = await pollUntil(server.mcpUrl, batch.taskId, terminal, { timeoutMs: 60_000 });
  assert.equal(done.status, 'completed');
  assert.equal(done.result.structuredContent.items, 3);

  // The operator finds why in the logs and in the task's timeline.
  const line = server.events().find((e) => e.event === 'task.failed' && e.taskId === job.taskId);
  assert.equal(line.tool, 'http_job');
  assert.match(line.error, /cannot resume: its stored checkpoint does not decode/);
  const timeline = await ok(server.mcpUrl, 'mcp-tasks-edge/tasks/timeline', { taskId: job.taskId });
  assert.deepEqual(timeline.timeline.map((e) => e.event), ['created', 'failed']);
});
