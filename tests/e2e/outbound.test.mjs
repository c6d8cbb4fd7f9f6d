// The outbound policy under wrangler dev, attacked as a model-driven caller would: every
// request a tool sends goes through the library's policy (src/host/policy.rs), so a
// redirect to a host outside FETCH_ALLOWED_HOSTS reaches nothing, and an endless body is
// cut off. The server allows exactly the job server's port; a canary on another loopback
// port must receive nothing, whatever the tools are asked to do.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { startCanary, startJobServer } from '../support/job-server.mjs';
import { ok, pollUntil, terminal } from './mcp.mjs';

const MAX_BYTES = 1024 * 1024;
const TIMEOUT_MS = 3000;
let server, url, jobs, canary;

before(async () => {
  jobs = await startJobServer();
  canary = await startCanary();
  server = await startServer({
    vars: {
      FETCH_ALLOWED_HOSTS: `127.0.0.1:${jobs.port}`,
      FETCH_MAX_BYTES: String(MAX_BYTES),
      FETCH_TIMEOUT_MS: String(TIMEOUT_MS),
      FETCH_MAX_REDIRECTS: '3',
    },
  });
  url = server.mcpUrl;
});
after(async () => {
  await server?.stop();
  await jobs?.close();
  await canary?.close();
});

const call = (name, args) => ok(url, 'tools/call', { name, arguments: args });
const redirect = (status, to) => `${jobs.url}/redirect/${status}?to=${encodeURIComponent(to)}`;
const textOf = (result) => result.content.map((c) => c.text).join('\n');

function assertCanaryUntouched() {
  assert.deepEqual(canary.requests, [], 'the canary must receive nothing');
}

test('fetch_url: a redirect to a host outside the list is refused before any connection', async () => {
  for (const status of [301, 302, 303, 307, 308]) {
    const result = await call('fetch_url', { url: redirect(status, `${canary.url}/secret`) });
    assert.equal(result.isError, true, `status ${status}`);
    assert.match(textOf(result), /redirected to http:\/\/127\.0\.0\.1:\d+\/secret, which is not allowed/);
    assert.match(textOf(result), /not in FETCH_ALLOWED_HOSTS/);
  }
  assertCanaryUntouched();
});

test('fetch_url: redirects within the list are followed, each hop re-checked, at most FETCH_MAX_REDIRECTS', async () => {
  const followed = await call('fetch_url', { url: redirect(302, redirect(307, `${jobs.url}/page`)) });
  assert.equal(followed.isError, false, textOf(followed));
  assert.equal(followed.structuredContent.title, 'Job Server Test Page');

  // A chain that ends at the canary after two allowed hops: refused at the third.
  const sneaky = await call('fetch_url', { url: redirect(301, redirect(302, `${canary.url}/x`)) });
  assert.equal(sneaky.isError, true);
  assertCanaryUntouched();

  let chain = `${jobs.url}/page`;
  for (let i = 0; i < 4; i += 1) chain = redirect(302, chain);
  const tooLong = await call('fetch_url', { url: chain });
  assert.equal(tooLong.isError, true);
  assert.match(textOf(tooLong), /redirected more than 3 times \(FETCH_MAX_REDIRECTS\)/);
});

test('fetch_url: a host outside the list is refused, IP literals and names alike', async () => {
  for (const target of [`${canary.url}/`, `http://localhost:${jobs.port}/page`, 'http://169.254.169.254/latest/meta-data/']) {
    const result = await call('fetch_url', { url: target });
    assert.equal(result.isError, true, target);
    assert.match(textOf(result), /not in FETCH_ALLOWED_HOSTS/, target);
  }
  assertCanaryUntouched();
});

// URLs are read by workerd's own URL parser here (src/uri.rs), the table tests/uri.rs runs
// natively and in browsers: a spelling of the allowed host reaches it, one of another host or
// of a name not listed reaches nothing, and a relative Location resolves against its hop.
test('fetch_url: the policy reads a host as the URL standard does, in every spelling', async () => {
  for (const spelling of [`http://0x7f.1:${jobs.port}/page`, `http://2130706433:${jobs.port}/page`, `HTTP://127.0.0.1:${jobs.port}/x/../page`]) {
    const result = await call('fetch_url', { url: spelling });
    assert.equal(result.isError, false, `${spelling}: ${textOf(result)}`);
    assert.equal(result.structuredContent.title, 'Job Server Test Page', spelling);
  }
  const relative = await call('fetch_url', { url: redirect(302, '/page') });
  assert.equal(relative.structuredContent?.title, 'Job Server Test Page', textOf(relative));
  for (const spelling of [`http://0x7f.1:${canary.port}/`, `http://0177.0.0.1:${canary.port}/`,
    `http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:${jobs.port}/page`, `http://[::ffff:7f00:1]:${jobs.port}/page`]) {
    const result = await call('fetch_url', { url: spelling });
    assert.equal(result.isError, true, spelling);
    assert.match(textOf(result), /not in FETCH_ALLOWED_HOSTS/, spelling);
  }
  // Not URLs, as the standard says (a space in a host too, which Chromium's URL alone lets
  // through: tests/support/uri_cases.rs).
  for (const broken of [`http://127.0.0.1:${jobs.port}:1/page`, `http://ho st:${jobs.port}/page`]) {
    const result = await call('fetch_url', { url: broken });
    assert.equal(result.isError, true, broken);
    assert.match(textOf(result), /is not a valid URL/, broken);
  }
  assertCanaryUntouched();
});

test('fetch_url: an endless body is cut off at FETCH_MAX_BYTES, quickly', async () => {
  const started = Date.now();
  const result = await call('fetch_url', { url: `${jobs.url}/endless` });
  assert.equal(result.isError, true);
  assert.match(textOf(result), new RegExp(`more than the ${MAX_BYTES} bytes allowed`));
  assert.ok(Date.now() - started < 10_000, `answered after ${Date.now() - started} ms`);
  const endless = jobs.requests.filter((r) => r.path === '/endless').at(-1);
  // The Worker stopped reading: the job server stops sending soon after.
  await new Promise((r) => setTimeout(r, 500));
  const sent = endless.sentBytes;
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(endless.sentBytes, sent, 'the connection must be closed, not drained');
  assert.ok(sent < 64 * MAX_BYTES, `sent ${sent} bytes`);
});

test('fetch_url: a body that trickles forever ends at FETCH_TIMEOUT_MS', async () => {
  const started = Date.now();
  const result = await call('fetch_url', { url: `${jobs.url}/endless?chunk=16&everyMs=100` });
  const took = Date.now() - started;
  assert.equal(result.isError, true);
  assert.match(textOf(result), new RegExp(`did not answer within ${TIMEOUT_MS} ms`));
  assert.ok(took >= TIMEOUT_MS - 100 && took < TIMEOUT_MS + 5000, `answered after ${took} ms`);
});

test('http_job: a start URL redirecting elsewhere sends nothing there, whatever the method', async () => {
  for (const status of [302, 307, 308]) {
    const result = await call('http_job', { startUrl: redirect(status, `${canary.url}/jobs`), body: { tag: 'x' } });
    assert.equal(result.isError, true, `status ${status}`);
    assert.match(textOf(result), /not allowed/);
  }
  assertCanaryUntouched();
});

test('http_job: a 303 to its start URL arrives as GET without a body; 307 and 308 keep the POST and its body', async () => {
  for (const [status, method] of [[303, 'GET'], [307, 'POST'], [308, 'POST']]) {
    const body = { tag: `method-${status}`, inline: true };
    const from = jobs.requests.length;
    await call('http_job', { startUrl: redirect(status, `${jobs.url}/jobs`), body });
    const hops = jobs.requests.slice(from);
    assert.deepEqual(hops.map((r) => [r.method, r.path]), [['POST', `/redirect/${status}`], [method, '/jobs']], `status ${status}`);
    assert.deepEqual(hops[0].body, body);
    if (method === 'POST') {
      assert.deepEqual(hops[1].body, body, `status ${status} keeps the body`);
      assert.match(hops[1].headers['content-type'] ?? '', /application\/json/);
    } else {
      assert.equal(hops[1].raw, '', 'a 303 sends no body');
      assert.equal(hops[1].headers['content-type'], undefined, 'nor its content type');
    }
  }
  assertCanaryUntouched();
});

test('http_job: a status URL redirecting elsewhere fails the task; the canary gets no poll', async () => {
  const created = await call('http_job', { startUrl: `${jobs.url}/jobs`, body: { statusRedirect: `${canary.url}/status` } });
  assert.equal(created.resultType, 'task');
  const task = await pollUntil(url, created.taskId, terminal, { timeoutMs: 30_000 });
  assert.equal(task.status, 'completed');
  assert.equal(task.result.isError, true);
  assert.match(task.result.content[0].text, /not allowed/);
  assertCanaryUntouched();
});

test('http_job: cancelling sends DELETE to the status URL only; its redirect is not followed off the list', async () => {
  const created = await call('http_job', {
    startUrl: `${jobs.url}/jobs`,
    body: { steps: 100, tag: 'cancel-redirect', deleteRedirect: `${canary.url}/delete` },
  });
  assert.equal(created.resultType, 'task');
  await ok(url, 'tasks/cancel', { taskId: created.taskId });
  const id = jobs.jobByTag('cancel-redirect').id;
  const deadline = Date.now() + 10_000;
  while (!jobs.requestsFor(id).some((r) => r.method === 'DELETE') && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(jobs.requestsFor(id).some((r) => r.method === 'DELETE'), 'the DELETE reached the job server');
  await new Promise((r) => setTimeout(r, 500));
  assertCanaryUntouched();
});
