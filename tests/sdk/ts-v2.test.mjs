// The official TypeScript client 2.x (@modelcontextprotocol/client). Its default version
// negotiation is 'legacy' (the plain 2025-11-25 initialize handshake), so by default it
// lands in this server's session era; with versionNegotiation 'auto' it probes
// server/discover and should land in the 2026-07-28 era on the same endpoint.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startServer } from '../support/server.mjs';

let server;
const open = [];

before(async () => { server = await startServer(); });
after(async () => {
  for (const c of open) { try { await c.close(); } catch { /* closed */ } }
  await server?.stop();
});

async function connect(options = {}) {
  const client = new Client({ name: 'sdk-v2-test', version: '1.0.0' }, options);
  const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl));
  await client.connect(transport);
  open.push(client);
  return { client, transport };
}

test('default mode: initialize (2025-11-25, a session), then tools/call greet', async () => {
  const { client, transport } = await connect();
  assert.equal(client.getProtocolEra(), 'legacy');
  assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
  assert.match(transport.sessionId ?? '', /^[\x21-\x7e]+$/, 'Mcp-Session-Id');
  assert.equal(typeof client.getServerVersion()?.name, 'string');
  const result = await client.callTool({ name: 'greet', arguments: { name: 'Grace' } });
  assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Grace!' }]);
  assert.notEqual(result.isError, true);
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'greet'));
});

test("versionNegotiation 'auto': server/discover, the 2026-07-28 era, then greet", async () => {
  const { client, transport } = await connect({ versionNegotiation: { mode: 'auto' } });
  assert.equal(client.getProtocolEra(), 'modern');
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  assert.equal(transport.sessionId, undefined, 'the modern era is stateless: no session');
  const result = await client.callTool({ name: 'greet', arguments: { name: 'Grace' } });
  assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Grace!' }]);
});
