// A local OAuth authorization server for the tests, on a loopback port: its metadata
// (RFC 8414) and JWKS, with keys the test adds, publishes and rotates, and tokens signed
// by npm `jose`. It counts JWKS fetches so a test can see the server's refetch limits.
import { createServer } from 'node:http';
import { createHmac } from 'node:crypto';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair } from 'jose';

const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

export async function startIssuer() {
  const keys = new Map(); // kid → { alg, privateKey, publicKey, jwk }
  let published = [];
  let jwksFetches = 0;
  const srv = createServer((req, res) => {
    const send = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/oauth-authorization-server') {
      return send(200, { issuer: issuer.url, jwks_uri: `${issuer.url}/jwks`,
        authorization_endpoint: `${issuer.url}/authorize`, token_endpoint: `${issuer.url}/token`,
        response_types_supported: ['code'], code_challenge_methods_supported: ['S256'] });
    }
    if (req.url === '/jwks') {
      jwksFetches += 1;
      return send(200, { keys: published.map((kid) => keys.get(kid).jwk) });
    }
    send(404, { error: 'not_found' });
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const issuer = {
    url: `http://127.0.0.1:${srv.address().port}`,
    get jwksFetches() { return jwksFetches; },
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
    stop: () => new Promise((r) => srv.close(r)),
  };
  return issuer;
}
