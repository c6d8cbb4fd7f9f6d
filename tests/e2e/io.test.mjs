// Outbound HTTP under wrangler dev: `fetch_url` (inline) and `http_job` (the asynchronous
// request-reply pattern as a task), against a local job server on 127.0.0.1.
// The server runs with FETCH_ALLOWED_HOSTS='127.0.0.1:*,localhost:*' (TEST_VARS).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, startServer } from '../support/server.mjs';
import { PAGE_HTML, PAGE_TITLE, PLAIN_TEXT, startJobServer } from '../support/job-server.mjs';
import { ACK, ok, pollUntil, terminal } from './mcp.mjs';

let server, url, jobs;
before(async () => {
  jobs = await startJobServer();
  server = await startServer();
  url = server.mcpUrl;
});
after(async () => {
  await server?.stop();
  await jobs?.close();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const call = (name, args) => ok(url, 'tools/call', { name, arguments: args });
let tags = 0;
const newTag = (what) => `${what}-${++tags}`;

/** Waits until `fn()` is truthy (returns its value) or fails with `what`. */
async function waitFor(fn, what, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = fn();
    if (v) return v;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** Polls a task until terminal, keeping every snapshot. */
async function follow(taskId, { timeoutMs = 30_000, everyMs = 100 } = {}) {
  const seen = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const t = await ok(url, 'tasks/get', { taskId });
    seen.push(t);
    if (terminal(t)) return { done: t, seen };
    await sleep(everyMs);
  }
  assert.fail(`task ${taskId} did not finish; last: ${JSON.stringify(seen.at(-1))}`);
}

/** Starts an http_job; resolves to the created task and the job server's job for `tag`. */
async function startJob(cfg, { path = '/jobs' } = {}) {
  const tag = newTag('job');
  const body = { tag, ...cfg };
  const created = await call('http_job', { startUrl: jobs.url + path, body });
  const job = jobs.jobByTag(tag);
  assert.ok(job, `the job server never received the POST for ${tag}`);
  return { created, job, tag, body };
}

const gets = (job) => jobs.requestsFor(job.id).filter((r) => r.method === 'GET');
const text0 = (result) => result.content[0].text;

// ── fetch_url ────────────────────────────────────────────────────────────────────────────

test('fetch_url: an allowed HTML page reports status, type, byte length and title', async () => {
  const r = await call('fetch_url', { url: `${jobs.url}/page` });
  assert.equal(r.resultType, 'complete');
  assert.notEqual(r.isError, true, JSON.stringify(r));
  const bytes = Buffer.byteLength(PAGE_HTML);
  assert.notEqual(bytes, PAGE_HTML.length, 'the fixture page has multi-byte characters');
  const sc = r.structuredContent;
  assert.deepEqual(Object.keys(sc).sort(), ['bytes', 'contentType', 'status', 'title']);
  assert.equal(sc.status, 200);
  assert.match(sc.contentType, /^text\/html\b/);
  assert.equal(sc.bytes, bytes);
  assert.equal(sc.title, PAGE_TITLE);
  const text = text0(r);
  for (const part of ['200', 'text/html', String(bytes), PAGE_TITLE]) assert.ok(text.includes(part), `${part} missing from ${text}`);
  const seen = jobs.requests.filter((q) => q.path === '/page');
  assert.equal(seen.length, 1);
  assert.equal(seen[0].method, 'GET');
});

test('fetch_url: a page without a title has no title field', async () => {
  const r = await call('fetch_url', { url: `${jobs.url}/plain` });
  assert.equal(r.resultType, 'complete');
  assert.notEqual(r.isError, true, JSON.stringify(r));
  const sc = r.structuredContent;
  assert.deepEqual(Object.keys(sc).sort(), ['bytes', 'contentType', 'status']);
  assert.equal(sc.status, 200);
  assert.match(sc.contentType, /^text\/plain\b/);
  assert.equal(sc.bytes, Buffer.byteLength(PLAIN_TEXT));
  const text = text0(r);
  for (const part of ['200', 'text/plain', String(sc.bytes)]) assert.ok(text.includes(part), `${part} missing from ${text}`);
});

test('fetch_url: a host outside FETCH_ALLOWED_HOSTS is refused, naming the host', async () => {
  const r = await call('fetch_url', { url: 'http://example.invalid:9/' });
  assert.equal(r.resultType, 'complete');
  assert.equal(r.isError, true);
  assert.ok(text0(r).includes('example.invalid'), text0(r));
  // A host that merely starts with an allowed one is not allowed.
  const nearMiss = await call('fetch_url', { url: `http://127.0.0.1.example.invalid:${jobs.port}/page` });
  assert.equal(nearMiss.isError, true);
  assert.ok(text0(nearMiss).includes('127.0.0.1.example.invalid'), text0(nearMiss));
});

test('fetch_url: an unreachable port is a tool error with the reason', async () => {
  const port = await freePort(); // nothing listens there
  const r = await call('fetch_url', { url: `http://127.0.0.1:${port}/` });
  assert.equal(r.resultType, 'complete');
  assert.equal(r.isError, true);
  assert.ok(text0(r).trim().length > 0);
  assert.match(text0(r), /connect|refused|unreachable|fail|error|network/i);
});

// ── http_job ─────────────────────────────────────────────────────────────────────────────

test('http_job: 202 + Location becomes a task that reports progress and completes', async () => {
  const result = { answer: 42, items: [1, 2, 3], nested: { ok: true } };
  const { created, job, tag, body } = await startJob({ steps: 3, retryAfter: 1, result });
  assert.equal(created.resultType, 'task');
  assert.match(created.taskId, /^[0-9a-f]{32}$/);
  // The POST carried `body` as JSON.
  const [post] = jobs.postsFor(tag);
  assert.equal(post.path, '/jobs');
  assert.match(post.headers['content-type'] ?? '', /^application\/json/);
  assert.deepEqual(post.body, body);

  const { done, seen } = await follow(created.taskId);
  const working = seen.filter((t) => t.status === 'working');
  const stepMessages = working.map((t) => t.statusMessage).filter((m) => /^step \d\/3$/.test(m ?? ''));
  assert.ok(stepMessages.length >= 1, `no "step i/3" statusMessage seen: ${JSON.stringify(working.map((t) => t.statusMessage))}`);
  assert.deepEqual(stepMessages, [...stepMessages].sort(), 'progress never goes backwards');
  for (const t of seen.slice(0, -1)) assert.equal(t.status, 'working');

  assert.equal(done.status, 'completed');
  assert.equal(done.result.isError, false);
  assert.deepEqual(JSON.parse(text0(done.result)), result);
  assert.deepEqual(done.result.structuredContent, result);
  // Exactly the polls the job needed: 3 running answers and the final one; no DELETE.
  assert.equal(gets(job).length, 4);
  assert.equal(jobs.requestsFor(job.id).filter((r) => r.method === 'DELETE').length, 0);
});

test('http_job: string and non-object results', async () => {
  const [str, num, arr] = await Promise.all([
    startJob({ steps: 0, result: 'all done' }),
    startJob({ steps: 0, result: 7 }),
    startJob({ steps: 1, result: [1, 'two'] }),
  ]);
  const [s, n, a] = await Promise.all([str, num, arr].map(({ created }) => follow(created.taskId)));
  assert.equal(s.done.status, 'completed');
  assert.equal(s.done.result.isError, false);
  assert.equal(text0(s.done.result), 'all done');
  assert.deepEqual(s.done.result.structuredContent, { result: 'all done' });
  assert.equal(n.done.status, 'completed');
  assert.equal(text0(n.done.result), '7');
  assert.deepEqual(n.done.result.structuredContent, { result: 7 });
  assert.equal(a.done.status, 'completed');
  assert.deepEqual(JSON.parse(text0(a.done.result)), [1, 'two']);
  assert.deepEqual(a.done.result.structuredContent, { result: [1, 'two'] });
});

test('http_job: an external failure or cancellation completes with isError and the message', async () => {
  const [failed, cancelled] = await Promise.all([
    startJob({ steps: 1, outcome: 'failed', message: 'disk full on worker 7' }),
    startJob({ steps: 1, outcome: 'cancelled', message: 'operator aborted the run' }),
  ]);
  const [f, c] = await Promise.all([failed, cancelled].map(({ created }) => follow(created.taskId)));
  assert.equal(f.done.status, 'completed');
  assert.equal(f.done.result.isError, true);
  assert.ok(text0(f.done.result).includes('disk full on worker 7'), text0(f.done.result));
  assert.equal(c.done.status, 'completed');
  assert.equal(c.done.result.isError, true);
  assert.ok(text0(c.done.result).includes('operator aborted the run'), text0(c.done.result));
});

test('http_job: a final 200 answer to the start completes inline', async () => {
  const good = await startJob({ inline: true, result: { x: 1 } });
  assert.equal(good.created.resultType, 'complete');
  assert.equal('taskId' in good.created, false);
  assert.equal(good.created.isError, false);
  assert.deepEqual(good.created.structuredContent, { x: 1 });
  assert.deepEqual(JSON.parse(text0(good.created)), { x: 1 });

  const bad = await startJob({ inline: true, outcome: 'failed', message: 'rejected at once' });
  assert.equal(bad.created.resultType, 'complete');
  assert.equal(bad.created.isError, true);
  assert.ok(text0(bad.created).includes('rejected at once'), text0(bad.created));
  assert.equal(jobs.requestsFor(good.job.id).length + jobs.requestsFor(bad.job.id).length, 0, 'no status polls');
});

test('http_job: tasks/cancel sends DELETE to the status URL and the task ends cancelled', async () => {
  const { created, job } = await startJob({ steps: 1000, retryAfter: 1 });
  assert.equal(created.resultType, 'task');
  await waitFor(() => gets(job).length >= 1, 'the first status poll');
  assert.deepEqual(await ok(url, 'tasks/cancel', { taskId: created.taskId }), ACK);
  // At once when the task is idle; at the end of a poll in flight otherwise.
  const ended = await pollUntil(url, created.taskId, terminal, { timeoutMs: 10_000 });
  assert.equal(ended.status, 'cancelled');
  const del = await waitFor(() => jobs.requestsFor(job.id).find((r) => r.method === 'DELETE'), 'the DELETE', 10_000);
  assert.equal(job.cancelled, true);
  // Polling stops: nothing starts well after the DELETE (a poll already in flight is allowed).
  await sleep(3000);
  const late = gets(job).filter((r) => r.at > del.at + 1500);
  assert.equal(late.length, 0, `polls after the cancel: ${late.length}`);
  const final = await ok(url, 'tasks/get', { taskId: created.taskId });
  assert.equal(final.status, 'cancelled');
});

test('http_job: 5xx and non-JSON status answers are retried, then the task completes with isError', async () => {
  const [fiveXX, nonJson, recovers] = await Promise.all([
    startJob({ flaky: '5xx', steps: 0 }),
    startJob({ flaky: 'nonjson', steps: 0 }),
    // Failures at polls 1, 2, 4, 5: never three in a row, so the job gets through.
    startJob({ flaky: '5xx', flakyAt: [1, 2, 4, 5], steps: 1, result: { recovered: true } }),
  ]);
  const [a, b, c] = await Promise.all([fiveXX, nonJson, recovers].map(({ created }) => follow(created.taskId, { timeoutMs: 40_000 })));
  assert.equal(a.done.status, 'completed');
  assert.equal(a.done.result.isError, true);
  assert.match(text0(a.done.result), /503|5xx|server error|unavailable/i);
  assert.ok([3, 4].includes(gets(fiveXX.job).length), `5xx polls: ${gets(fiveXX.job).length}`);

  assert.equal(b.done.status, 'completed');
  assert.equal(b.done.result.isError, true);
  assert.match(text0(b.done.result), /json|parse|invalid|expected/i);
  assert.ok([3, 4].includes(gets(nonJson.job).length), `non-JSON polls: ${gets(nonJson.job).length}`);

  // Two failures in a row are under the limit, and a good answer resets the count.
  assert.equal(c.done.status, 'completed');
  assert.equal(c.done.result.isError, false, JSON.stringify(c.done.result));
  assert.deepEqual(c.done.result.structuredContent, { recovered: true });
  assert.equal(gets(recovers.job).length, 6);
});

test('http_job: a relative Location resolves against the start URL', async () => {
  const [rooted, relative] = await Promise.all([
    startJob({ steps: 1, relativeLocation: true, result: { via: 'rooted' } }),
    startJob({ steps: 1, relativeLocation: 'path', result: { via: 'path' } }, { path: '/jobs/' }),
  ]);
  const [a, b] = await Promise.all([rooted, relative].map(({ created }) => follow(created.taskId)));
  assert.equal(a.done.status, 'completed');
  assert.deepEqual(a.done.result.structuredContent, { via: 'rooted' });
  assert.equal(gets(rooted.job).length, 2);
  assert.equal(b.done.status, 'completed');
  assert.deepEqual(b.done.result.structuredContent, { via: 'path' });
  assert.equal(gets(relative.job).length, 2);
});

test('http_job: Retry-After sets the next poll, clamped to at least 1 s; 1 s by default', async () => {
  const [zero, two, none] = await Promise.all([
    startJob({ steps: 2, retryAfter: 0 }),
    startJob({ steps: 2, retryAfter: 2 }),
    startJob({ steps: 2, retryAfter: null }),
  ]);
  await Promise.all([zero, two, none].map(({ created }) => follow(created.taskId)));
  const gaps = ({ tag, job }) => {
    const times = [jobs.postsFor(tag)[0].at, ...gets(job).map((r) => r.at)];
    return times.slice(1).map((t, i) => Math.round(t - times[i]));
  };
  for (const [j, min, max] of [[zero, 900, 5000], [two, 1900, 8000], [none, 900, 5000]]) {
    const g = gaps(j);
    assert.equal(g.length, 3, `polls for ${JSON.stringify(j.body)}: ${g}`);
    for (const gap of g) assert.ok(gap >= min && gap <= max, `gaps ${g} for retryAfter=${j.body.retryAfter} not within ${min}..${max} ms`);
  }
});

test('http_job: refused hosts for the start URL and for the Location', async () => {
  const start = await call('http_job', { startUrl: 'http://example.invalid:9/jobs', body: {} });
  assert.equal(start.resultType, 'complete');
  assert.equal(start.isError, true);
  assert.ok(text0(start).includes('example.invalid'), text0(start));

  const { created, job } = await startJob({ refusedLocation: true });
  // Refused when the 202 arrives (inline) or at the first poll (in the task): either way a
  // completed tool error naming the host.
  const result = created.resultType === 'task' ? (await follow(created.taskId)).done : { status: 'completed', result: created };
  assert.equal(result.status, 'completed');
  assert.equal(result.result.isError, true);
  assert.ok(text0(result.result).includes('refused.invalid'), text0(result.result));
  assert.equal(jobs.requestsFor(job.id).length, 0);
});
