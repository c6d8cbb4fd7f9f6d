// A local OAuth authorization server for the tests, on a loopback port: its metadata
// (RFC 8414) and JWKS, with keys the test adds, publishes and rotates, and tokens signed
// by npm `jose`. It counts JWKS fetches so a test can see the server's refetch limits.
//
// It also signs pages in (tests/package, the console test): an authorization endpoint
// that approves at once (there is no user: it redirects back with a code), and a token
// endpoint for the authorization_code grant (PKCE S256 verified, RFC 7636 section 4.6;
// redirect_uri and client_id must match the authorization) and the refresh_token grant
// (refresh tokens rotate: each is good once). Every response allows any origin (a page
// calls the metadata and the token endpoint cross-origin). `issuer.signIn` holds the
// knobs; `issuer.log` records every authorization and token request. `make dev AUTH=oauth`
// runs it too (scripts/with-issuer.mjs), for a developer's pages to sign in against.
import { createServer } from 'node:http';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair } from 'jose';

const s256 = (verifier) => createHash('sha256').update(verifier).digest('base64url');
const CODE_TTL_MS = 60_000;

function readBody(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (d) => { body += d; if (body.length > 65_536) req.destroy(); });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** Starts the issuer on 127.0.0.1:`port` (default: a free port). */
export async function startIssuer({ port = 0 } = {}) {
  const keys = new Map(); // kid → { alg, privateKey, publicKey, jwk }
  let published = [];
  let jwksFetches = 0;
  const codes = new Map(); // code → the authorization it answers
  const refreshTokens = new Map(); // refresh token → { clientId, resource, scope, sub }
  const log = [];
  const signIn = {
    /** The kid that signs issued access tokens (default: the first published). */
    kid: undefined,
    /** `expires_in` of issued access tokens, in seconds. */
    expiresIn: 600,
    /** The subject of issued tokens. */
    sub: 'browser-user',
    /** An `error` code to answer authorizations with (e.g. 'access_denied'), or undefined. */
    deny: undefined,
    /** Issue this many access tokens with a wrong audience first (the MCP server refuses them). */
    badTokens: 0,
  };

  async function accessToken({ sub, resource, scope }) {
    const kid = signIn.kid ?? published[0];
    const now = Math.floor(Date.now() / 1000);
    const aud = signIn.badTokens > 0 ? (signIn.badTokens--, 'https://not-this-server.example/mcp') : resource;
    return new SignJWT({ iss: issuer.url, sub, aud, iat: now, exp: now + signIn.expiresIn, scope })
      .setProtectedHeader({ alg: keys.get(kid).alg, kid, typ: 'at+jwt' })
      .sign(keys.get(kid).privateKey);
  }

  async function tokens(grant) {
    const refresh = randomBytes(24).toString('base64url');
    refreshTokens.set(refresh, grant);
    return { access_token: await accessToken(grant), token_type: 'Bearer', expires_in: signIn.expiresIn,
      refresh_token: refresh, scope: grant.scope };
  }

  /** GET /authorize: checks the request and approves at once (RFC 6749 4.1.1, RFC 7636 4.3). */
  function authorize(url, res) {
    const q = Object.fromEntries(url.searchParams);
    log.push({ endpoint: 'authorize', ...q });
    const refuse = (why) => { res.writeHead(400, { 'content-type': 'text/plain' }); res.end(why); };
    let redirect;
    try { redirect = new URL(q.redirect_uri); } catch { return refuse('redirect_uri is not a URL'); }
    if (!q.client_id) return refuse('client_id is missing');
    const back = (params) => {
      for (const [k, v] of Object.entries({ ...params, state: q.state, iss: issuer.url })) {
        if (v !== undefined) redirect.searchParams.set(k, v);
      }
      res.writeHead(302, { location: redirect.href, 'cache-control': 'no-store' });
      res.end();
    };
    if (q.response_type !== 'code') return back({ error: 'unsupported_response_type' });
    if (q.code_challenge_method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(q.code_challenge ?? '')) {
      return back({ error: 'invalid_request', error_description: 'PKCE with S256 is required' });
    }
    if (!q.resource) return back({ error: 'invalid_target', error_description: 'resource is required' });
    if (signIn.deny) return back({ error: signIn.deny, error_description: 'The test issuer refused' });
    const code = randomBytes(24).toString('base64url');
    codes.set(code, { clientId: q.client_id, redirectUri: q.redirect_uri, challenge: q.code_challenge,
      resource: q.resource, scope: q.scope ?? 'mcp:tools', at: Date.now() });
    back({ code });
  }

  /** POST /token: authorization_code (with PKCE) and refresh_token (RFC 6749 4.1.3, 6). */
  async function token(req, send) {
    const form = Object.fromEntries(new URLSearchParams(await readBody(req)));
    log.push({ endpoint: 'token', ...form });
    const refuse = (error, description) => send(400, { error, error_description: description });
    if (form.grant_type === 'authorization_code') {
      const grant = codes.get(form.code);
      codes.delete(form.code); // a code is good once, even when the exchange fails
      if (!grant || Date.now() - grant.at > CODE_TTL_MS) return refuse('invalid_grant', 'unknown or expired code');
      if (grant.clientId !== form.client_id) return refuse('invalid_grant', 'the code was issued to another client');
      if (grant.redirectUri !== form.redirect_uri) return refuse('invalid_grant', 'redirect_uri differs from the authorization');
      if (!form.code_verifier || s256(form.code_verifier) !== grant.challenge) {
        return refuse('invalid_grant', 'PKCE verification failed');
      }
      return send(200, await tokens({ clientId: grant.clientId, resource: form.resource ?? grant.resource,
        scope: grant.scope, sub: signIn.sub }));
    }
    if (form.grant_type === 'refresh_token') {
      const grant = refreshTokens.get(form.refresh_token);
      refreshTokens.delete(form.refresh_token); // rotation: each refresh token is good once
      if (!grant || grant.clientId !== form.client_id) return refuse('invalid_grant', 'unknown refresh token');
      return send(200, await tokens(grant));
    }
    return refuse('unsupported_grant_type', `grant_type ${form.grant_type}`);
  }

  const srv = createServer((req, res) => {
    const cors = { 'access-control-allow-origin': '*' };
    const send = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...cors });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url, issuer.url);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...cors, 'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': 'content-type, accept' });
      return res.end();
    }
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return send(200, { issuer: issuer.url, jwks_uri: `${issuer.url}/jwks`,
        authorization_endpoint: `${issuer.url}/authorize`, token_endpoint: `${issuer.url}/token`,
        response_types_supported: ['code'], code_challenge_methods_supported: ['S256'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['none'] });
    }
    if (url.pathname === '/jwks') {
      jwksFetches += 1;
      return send(200, { keys: published.map((kid) => keys.get(kid).jwk) });
    }
    if (url.pathname === '/authorize' && req.method === 'GET') return authorize(url, res);
    if (url.pathname === '/token' && req.method === 'POST') {
      return token(req, send).catch((e) => send(500, { error: 'server_error', error_description: String(e) }));
    }
    send(404, { error: 'not_found' });
  });
  await new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', resolve);
  });
  const issuer = {
    url: `http://127.0.0.1:${srv.address().port}`,
    get jwksFetches() { return jwksFetches; },
    /** Knobs of the sign-in endpoints (see above). */
    signIn,
    /** Every authorization and token request, oldest first. */
    log,
    /** Creates a key pair (RS256 or ES256) under `kid`; not published until `publish`. */
    async addKey(kid, alg) {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
      keys.set(kid, { alg, privateKey, publicKey, jwk });
    },
    /** The JWKS from now on lists exactly these kids. */
    publish(...kids) { published = kids; },
    /** A signed access token: claims over sensible defaults; options.kid picks the key. */
    async token(claims = {}, { kid, alg, signWith } = {}) {
      const key = keys.get(signWith ?? kid);
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer.url, sub: 'user-1', iat: now, exp: now + 600, scope: 'mcp:tools', ...claims })
        .setProtectedHeader({ alg: alg ?? key.alg, kid, typ: 'at+jwt' })
        .sign(key.privateKey);
    },
    /** An unsigned token (`alg: none`). */
    none(claims, kid) {
      return `${b64url({ alg: 'none', kid, typ: 'JWT' })}.${b64url(claims)}.`;
    },
    /** HS256 "signed" with an RSA key's public PEM as the HMAC secret (algorithm confusion). */
    async hs256WithPublicKey(claims, kid) {
      const pem = await exportSPKI(keys.get(kid).publicKey);
      const input = `${b64url({ alg: 'HS256', kid, typ: 'JWT' })}.${b64url(claims)}`;
      return `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`;
    },
    stop: () => new Promise((r) => { srv.close(r); srv.closeAllConnections(); }),
  };
  return issuer;
}
