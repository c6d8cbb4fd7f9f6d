// `make dev AUTH=oauth` as a developer runs it (the Makefile's own line: scripts/with-issuer.mjs
// in front of `wrangler dev`, on ports of the test's choosing): the local OAuth issuer is up
// beside the server and named by its Protected Resource Metadata, a request without a token
// is refused with the challenge a page follows, a token got as a page gets one
// (authorization code + PKCE S256 at the issuer, no secret) is accepted, and a Ctrl-C stops
// the server and the issuer with it. (The build is done already, by `make build` and
// `make client`, the targets `make test` runs before this one; `make dev` finds it current.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, freePort } from '../support/server.mjs';
import { rpc } from './mcp.mjs';

const persistDir = mkdtempSync(join(tmpdir(), 'mcp-dev-auth-'));
let port;
let issuerPort;
let make;
let log = '';
const base = () => `http://127.0.0.1:${port}`;
const issuerUrl = () => `http://127.0.0.1:${issuerPort}`;

function exited() {
  return make.exitCode !== null || make.signalCode !== null;
}

test.before(async () => {
  port = await freePort();
  issuerPort = await freePort();
  make = spawn('make', ['--no-print-directory', 'dev', 'AUTH=oauth', `PORT=${port}`, `ISSUER_PORT=${issuerPort}`,
    `PERSIST_DIR=${persistDir}`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    env: { ...process.env, CI: 'true' } });
  make.stdout.on('data', (d) => { log += d; });
  make.stderr.on('data', (d) => { log += d; });
  for (const deadline = Date.now() + 600_000; ;) {
    assert.ok(!exited(), `make dev AUTH=oauth exited early:\n${log}`);
    assert.ok(Date.now() < deadline, `make dev AUTH=oauth did not become ready:\n${log}`);
    if (/Ready on/.test(log)) {
      try {
        if ((await fetch(`${base()}/mcp`, { method: 'OPTIONS' })).status < 500) break;
      } catch { /* not listening yet */ }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
});

test.after(() => {
  if (make && !exited()) {
    try { process.kill(-make.pid, 'SIGKILL'); } catch { /* gone */ }
  }
  rmSync(persistDir, { recursive: true, force: true });
});

test('the issuer is up and the server names it: metadata with PKCE (S256) and a JWKS', async () => {
  assert.match(log, new RegExp(`with-issuer: OAuth issuer ${issuerUrl()}`));
  const meta = await (await fetch(`${issuerUrl()}/.well-known/oauth-authorization-server`)).json();
  assert.equal(meta.issuer, issuerUrl());
  assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
  assert.equal((await (await fetch(meta.jwks_uri)).json()).keys.length, 1);
  const prm = await (await fetch(`${base()}/.well-known/oauth-protected-resource/mcp`)).json();
  assert.deepEqual(prm.authorization_servers, [issuerUrl()]);
  assert.deepEqual(prm.scopes_supported, ['mcp:tools']);
});

test('without a token: 401 and the resource_metadata challenge (anonymous callers are off)', async () => {
  const r = await rpc(`${base()}/mcp`, 'tools/list', {});
  assert.equal(r.status, 401, JSON.stringify(r.body));
  assert.equal(r.headers.get('www-authenticate'), `Bearer resource_metadata="${base()}/.well-known/oauth-protected-resource/mcp"`);
});

test('a token got as a page gets one (authorization code + PKCE, no secret) is accepted', async () => {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const redirectUri = 'http://127.0.0.1:5173/signed-in.html';
  const resource = `${base()}/mcp`;
  const authorize = new URL(`${issuerUrl()}/authorize`);
  for (const [k, v] of Object.entries({ response_type: 'code', client_id: 'my-app', redirect_uri: redirectUri,
    code_challenge: challenge, code_challenge_method: 'S256', resource, scope: 'mcp:tools', state: 's1' })) {
    authorize.searchParams.set(k, v);
  }
  const back = await fetch(authorize, { redirect: 'manual' });
  assert.equal(back.status, 302);
  const location = new URL(back.headers.get('location'));
  assert.equal(location.searchParams.get('state'), 's1');
  const code = location.searchParams.get('code');
  assert.ok(code, location.href);
  const exchange = (more) => fetch(`${issuerUrl()}/token`, { method: 'POST', body: new URLSearchParams({
    grant_type: 'authorization_code', code, client_id: 'my-app', redirect_uri: redirectUri, resource, ...more }) });
  const tokens = await (await exchange({ code_verifier: verifier })).json();
  assert.equal(tokens.token_type, 'Bearer', JSON.stringify(tokens));
  const listed = await rpc(resource, 'tools/list', {}, { token: tokens.access_token });
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  assert.ok(listed.body.result.tools.some((t) => t.name === 'echo'));
  // A token is the caller's: the subject the issuer signs in is `dev-user`.
  const [, claims] = tokens.access_token.split('.');
  assert.equal(JSON.parse(Buffer.from(claims, 'base64url')).sub, 'dev-user');
});

test('Ctrl-C stops the server and the issuer with it', async () => {
  process.kill(-make.pid, 'SIGINT');
  for (const deadline = Date.now() + 30_000; !exited();) {
    assert.ok(Date.now() < deadline, `make dev did not stop:\n${log.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await assert.rejects(fetch(`${issuerUrl()}/.well-known/oauth-authorization-server`), 'the issuer is stopped');
  await assert.rejects(fetch(`${base()}/mcp`, { method: 'OPTIONS' }), 'the server is stopped');
});
