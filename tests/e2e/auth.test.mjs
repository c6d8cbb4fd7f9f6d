// Authentication and quotas end to end under `wrangler dev`, with a local OAuth issuer
// (metadata and JWKS on loopback, tokens signed by npm `jose`): Protected Resource
// Metadata, 401/403 challenges, RS256 and ES256, every refusal the issue lists, key
// rotation, API keys, ownership across principals, each quota exceeded and recovered,
// and request bodies bounded while streaming.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { startIssuer } from '../support/issuer.mjs';
import { rpc, ok, headersFor } from './mcp.mjs';
import { openSession } from '../support/legacy.mjs';

let server;
let issuer;
let url;
let base;

before(async () => {
  issuer = await startIssuer();
  await issuer.addKey('rsa-1', 'RS256');
  await issuer.addKey('ec-1', 'ES256');
  await issuer.addKey('rsa-2', 'RS256');
  await issuer.addKey('rogue', 'RS256'); // never published
  issuer.publish('rsa-1', 'ec-1');
  server = await startServer({ vars: {
    ALLOW_ANONYMOUS: 'false',
    OAUTH_ISSUER: issuer.url,
    OAUTH_REQUIRED_SCOPES: 'mcp:tools',
    OAUTH_JWKS_MIN_REFETCH_MS: '2000',
    QUOTA_TASKS_PER_MINUTE: '4',
    QUOTA_LIVE_TASKS: '2',
    QUOTA_LISTEN_STREAMS: '1',
    MAX_BODY_BYTES: '65536',
  } });
  url = server.mcpUrl;
  base = server.url;
});

after(async () => {
  await server?.stop();
  await issuer?.stop();
});

const prm = () => `${base}/.well-known/oauth-protected-resource/mcp`;
const sub = (s, extra = {}) => issuer.token({ sub: s, aud: url, ...extra }, { kid: 'rsa-1' });
const now = () => Math.floor(Date.now() / 1000);

async function refused(token, status, pattern) {
  const r = await rpc(url, 'tools/list', {}, { token });
  assert.equal(r.status, status, JSON.stringify(r.body));
  const challenge = r.headers.get('www-authenticate');
  assert.ok(challenge.startsWith(`Bearer resource_metadata="${prm()}"`), challenge);
  if (pattern) assert.match(challenge, pattern);
  assert.equal(r.body.jsonrpc, '2.0');
  assert.ok(r.body.error.message.length > 10);
  return r;
}

test('OAUTH_ISSUER: plain http only on loopback; any other is refused, naming the variable', async () => {
  // This suite's issuer is plain http on 127.0.0.1, and every test here signs in with it.
  assert.match(issuer.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await rpc(url, 'tools/list', {}, { token: await sub('loopback') })).status, 200);
  const clear = await startServer({ vars: { OAUTH_ISSUER: 'http://issuer.example' }, ready: (status) => status === 500 });
  try {
    const r = await fetch(clear.mcpUrl, { method: 'POST', headers: headersFor('tools/list', {}),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) });
    assert.equal(r.status, 500, 'no request is served under a refused configuration');
    await r.text();
    // wrangler prints the Worker's error line after the response: wait for it (10 s at most).
    const refusal = /invalid configuration: OAUTH_ISSUER must be an https URL \(http only on loopback, for development\), got "http:\/\/issuer\.example"/;
    for (const deadline = Date.now() + 10_000; !refusal.test(clear.log()) && Date.now() < deadline;) {
      await new Promise((done) => setTimeout(done, 100));
    }
    assert.match(clear.log(), refusal);
  } finally {
    await clear.stop();
  }
});

test('Protected Resource Metadata at both well-known paths', async () => {
  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    const r = await fetch(base + path);
    assert.equal(r.status, 200, path);
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(await r.json(), {
      resource: url, authorization_servers: [issuer.url], bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:tools'],
    });
  }
});

test('no token: 401 with the resource_metadata challenge and no error code', async () => {
  const r = await refused(undefined, 401);
  assert.equal(r.headers.get('www-authenticate'), `Bearer resource_metadata="${prm()}"`);
});

test('valid RS256 and ES256 tokens are accepted (aud as a string or an array)', async () => {
  assert.ok((await ok(url, 'tools/list', {}, { token: await sub('rs') })).tools.length > 0);
  const es = await issuer.token({ sub: 'es', aud: ['https://other.example', url] }, { kid: 'ec-1' });
  assert.ok((await ok(url, 'tools/list', {}, { token: es })).tools.length > 0);
});

test('expired, not yet valid, wrong audience, wrong issuer: 401 invalid_token', async () => {
  await refused(await sub('x', { exp: now() - 3600, iat: now() - 7200 }), 401, /error="invalid_token".*expired/);
  await refused(await sub('x', { nbf: now() + 3600 }), 401, /error="invalid_token".*not valid yet/);
  await refused(await sub('x', { aud: 'https://elsewhere.example/mcp' }), 401, /error="invalid_token".*audience/);
  await refused(await sub('x', { iss: 'https://evil.example' }), 401, /error="invalid_token".*issued/);
});

test('bad signature, unknown kid, alg none, HS256 with the public key: 401 invalid_token', async () => {
  const claims = { iss: issuer.url, sub: 'x', aud: url, exp: now() + 600, scope: 'mcp:tools' };
  // Signed by a key the issuer never published, under a published kid.
  await refused(await issuer.token(claims, { kid: 'rsa-1', signWith: 'rogue' }), 401, /signature does not verify/);
  const fetchesBefore = issuer.jwksFetches;
  for (let i = 0; i < 10; i++) {
    await refused(await issuer.token(claims, { kid: 'rogue' }), 401, /kid/);
  }
  // A flood of unknown kids refetches the JWKS at most once per OAUTH_JWKS_MIN_REFETCH_MS.
  assert.ok(issuer.jwksFetches - fetchesBefore <= 2, `JWKS fetched ${issuer.jwksFetches - fetchesBefore} times`);
  await refused(issuer.none(claims, 'rsa-1'), 401, /algorithm .*none/);
  await refused(await issuer.hs256WithPublicKey(claims, 'rsa-1'), 401, /algorithm .*HS256/);
});

test('a valid token without the required scope: 403 insufficient_scope', async () => {
  const r = await refused(await sub('x', { scope: 'other' }), 403, /error="insufficient_scope", scope="mcp:tools"/);
  assert.equal(r.body.error.data.error, 'insufficient_scope');
});

test('key rotation: a new kid is fetched, a withdrawn one is refused', async () => {
  issuer.publish('rsa-2', 'ec-1');
  await new Promise((r) => setTimeout(r, 2200)); // past OAUTH_JWKS_MIN_REFETCH_MS
  const fresh = await issuer.token({ sub: 'rot', aud: url }, { kid: 'rsa-2' });
  assert.ok((await ok(url, 'tools/list', {}, { token: fresh })).tools.length > 0);
  await refused(await sub('rot'), 401, /kid/);
  issuer.publish('rsa-1', 'ec-1', 'rsa-2');
  await new Promise((r) => setTimeout(r, 2200));
  assert.ok((await ok(url, 'tools/list', {}, { token: await sub('rot') })).tools.length > 0);
});

test('API keys: the right key is accepted, a wrong one refused', async () => {
  assert.ok((await ok(url, 'tools/list', {}, { token: TEST_KEYS.alice })).tools.length > 0);
  await refused('not-a-key', 401, /error="invalid_token"/);
});

test('another principal gets "not found" for get, update, cancel and listen', async () => {
  const alice = await sub('alice');
  const bob = await sub('bob');
  const { taskId } = await ok(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30 } }, { token: alice });
  const unknown = await rpc(url, 'tasks/get', { taskId: 'f'.repeat(32) }, { token: bob });
  for (const [method, params] of [['tasks/get', { taskId }], ['tasks/cancel', { taskId }],
    ['tasks/update', { taskId, inputResponses: {} }]]) {
    for (const token of [bob, TEST_KEYS.alice]) { // an API key is another principal too
      const r = await rpc(url, method, params, { token });
      assert.equal(r.status, unknown.status, method);
      assert.deepEqual(r.body.error, unknown.body.error, method);
    }
  }
  const text = await listen(bob, [taskId]);
  assert.deepEqual(frames(text)[0].params.notifications, { taskIds: [] });
  assert.equal((await ok(url, 'tasks/get', { taskId }, { token: alice })).status, 'working');
  await ok(url, 'tasks/cancel', { taskId }, { token: alice });
});

function listenRequest(token, taskIds, id = 'sub') {
  const params = { notifications: { taskIds }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } } };
  return fetch(url, { method: 'POST', headers: { ...headersFor('subscriptions/listen', params), authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }) });
}

async function listen(token, taskIds) {
  const res = await listenRequest(token, taskIds);
  assert.equal(res.status, 200);
  return res.text();
}

const frames = (text) => text.split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.parse(f.slice(6)));

async function tooMany(r, limit) {
  assert.equal(r.status, 429, JSON.stringify(r.body));
  const retry = Number(r.headers.get('retry-after'));
  assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
  assert.equal(r.body.error.data.limit, limit);
  assert.match(r.body.error.message, new RegExp(limit));
  return retry;
}

const start = (token) => rpc(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30 } }, { token });

test('QUOTA_LIVE_TASKS and QUOTA_TASKS_PER_MINUTE: exceeded, others unaffected, recovered', async () => {
  const q = await sub('quota-tasks');
  const a = (await start(q)).body.result.taskId;
  const b = (await start(q)).body.result.taskId;
  await tooMany(await start(q), 'QUOTA_LIVE_TASKS');
  // The principal's existing tasks and other principals are unaffected.
  assert.equal((await ok(url, 'tasks/get', { taskId: a }, { token: q })).status, 'working');
  const other = (await start(await sub('quota-other'))).body.result.taskId;
  assert.ok(other);
  // A task that ends frees its slot.
  await ok(url, 'tasks/cancel', { taskId: a }, { token: q });
  const c = (await start(q)).body.result.taskId; // the fourth run this minute (the refused one ran too)
  assert.ok(c);
  await ok(url, 'tasks/cancel', { taskId: b }, { token: q });
  const retry = await tooMany(await start(q), 'QUOTA_TASKS_PER_MINUTE');
  await new Promise((r) => setTimeout(r, retry * 1000 + 500));
  const e = await start(q);
  assert.equal(e.status, 200, JSON.stringify(e.body));
  for (const [token, taskId] of [[q, c], [q, e.body.result.taskId], [await sub('quota-other'), other]]) {
    await ok(url, 'tasks/cancel', { taskId }, { token });
  }
});

// A job is a task: the same refusal, the same 429 and Retry-After, whichever era asks and
// whether its answer is a task or a job (docs/configuration.md, "Quotas").
test('QUOTA_LIVE_TASKS refuses a job with 429 and Retry-After in both eras', async () => {
  const q = await sub('quota-jobs');
  const held = [(await start(q)).body.result.taskId, (await start(q)).body.result.taskId];
  const job = { name: 'process_batch', arguments: { items: 5, delayMs: 1000 } };
  await tooMany(await rpc(url, 'tools/call', job, { caps: {}, token: q }), 'QUOTA_LIVE_TASKS');
  const session = await openSession(url, { accept: 'application/json', token: q, capabilities: {} });
  const res = await session.post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: job });
  await tooMany({ status: res.status, headers: res.headers, body: await res.json() }, 'QUOTA_LIVE_TASKS');
  for (const taskId of held) await ok(url, 'tasks/cancel', { taskId }, { token: q });
});

test('QUOTA_LISTEN_STREAMS: exceeded while a stream is open, recovered when it ends', async () => {
  const l = await sub('quota-listen');
  const { taskId } = (await start(l)).body.result;
  const first = await listenRequest(l, [taskId], 'first');
  assert.equal(first.status, 200);
  const reader = first.body.getReader();
  await reader.read(); // the acknowledgement: the stream is open
  const second = await listenRequest(l, [taskId], 'second');
  const text = await second.text();
  await tooMany({ status: second.status, headers: second.headers, body: JSON.parse(text) }, 'QUOTA_LISTEN_STREAMS');
  // Another principal may listen meanwhile.
  const elsewhere = await listenRequest(await sub('quota-listen-2'), [], 'x');
  assert.equal(elsewhere.status, 200);
  await elsewhere.body.cancel();
  await ok(url, 'tasks/cancel', { taskId }, { token: l });
  while (!(await reader.read()).done) { /* the stream ends once the task is terminal */ }
  const third = await listenRequest(l, [taskId], 'third');
  assert.equal(third.status, 200);
  await third.text();
});

test('a chunked body over MAX_BODY_BYTES (no Content-Length) is refused with 413', async () => {
  const chunk = Buffer.alloc(16 * 1024, 0x20);
  const headers = { ...headersFor('tools/list', {}), authorization: `Bearer ${TEST_KEYS.alice}` };
  const r = await postChunked(url, headers, chunk, 16); // 256 KiB in all, 4x the limit
  assert.equal(r.status, 413);
  assert.match(JSON.parse(r.text).error.message, /65536/);
});

/**
 * POSTs `count` chunks of `chunk` without a Content-Length and resolves with the answer's
 * status and text. The server answers once it has read past its limit and reads no more,
 * so the connection may break while the rest is still being sent: `fetch` then fails even
 * though the answer came (seen once under load), so this stops sending when the answer
 * arrives and takes a write error after it as the expected end.
 */
function postChunked(target, headers, chunk, count) {
  return new Promise((resolve, reject) => {
    const req = http.request(target, { method: 'POST', headers, timeout: 30_000 });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => { resolve({ status: res.statusCode, text }); req.destroy(); });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', (e) => { if (!answered) reject(e); });
    (async () => {
      for (let i = 0; i < count && !answered && !req.destroyed; i++) {
        if (!req.write(chunk)) await new Promise((r) => { req.once('drain', r); req.once('close', r); });
      }
      if (!answered && !req.destroyed) req.end();
    })();
  });
}

test('the log names each OAuth refusal and the caller by fingerprint, never a token', async () => {
  const good = await sub('logged-user');
  const narrow = await sub('narrow-user', { scope: 'other' });
  const expired = await sub('late-user', { exp: now() - 60 });
  assert.equal((await rpc(url, 'tools/list', {}, { token: good })).status, 200);
  await refused(narrow, 403, /insufficient_scope/);
  await refused(expired, 401, /invalid_token/);
  const deadline = Date.now() + 10_000;
  const refusal = (reason) => server.events().some((e) => e.event === 'auth.refused' && e.reason === reason);
  while (!(refusal('insufficient_scope') && refusal('invalid_token')) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(refusal('insufficient_scope'), 'an auth.refused line with reason insufficient_scope');
  assert.ok(refusal('invalid_token'), 'an auth.refused line with reason invalid_token');
  const log = server.log();
  for (const token of [good, narrow, expired]) {
    // Neither the token nor its signature, nor the subject in clear.
    assert.ok(!log.includes(token), 'a token in the log');
    assert.ok(!log.includes(token.split('.')[2]), 'a token signature in the log');
  }
  assert.ok(!/logged-user|narrow-user|late-user/.test(log), 'a subject in clear in the log');
});
