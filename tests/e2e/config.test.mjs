// A misconfigured deployment under wrangler dev: every request gets a JSON-RPC error that
// names the variable to fix (never its value) with HTTP 500, and the log says why; the
// documented promise of docs/configuration.md ("a clear configuration error").
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { rpc } from './mcp.mjs';

let server;
after(async () => { await server?.stop(); });

test('a plain-http OAUTH_ISSUER: -32603 naming OAUTH_ISSUER, not its value; the log has the reason', async () => {
  server = await startServer({ vars: { OAUTH_ISSUER: 'http://issuer.example/' }, ready: () => true });
  const { status, body } = await rpc(server.mcpUrl, 'tools/list', {});
  assert.equal(status, 500);
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(body.error.code, -32603);
  assert.deepEqual(body.error.data, { misconfigured: 'OAUTH_ISSUER' });
  assert.match(body.error.message, /misconfigured: OAUTH_ISSUER is invalid/);
  assert.doesNotMatch(JSON.stringify(body), /issuer\.example/);
  // The log line reaches wrangler's output shortly after the response.
  const deadline = Date.now() + 10_000;
  while (!/OAUTH_ISSUER must be an https URL/.test(server.log()) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(server.log(), /invalid configuration: OAUTH_ISSUER must be an https URL/);
});
