// `make bench`'s `agents` peer: the MCP server a Cloudflare user would write in JavaScript
// instead of this project, as Cloudflare's own guide writes it (agents' docs/mcp-servers.md,
// "Create a server"): `createMcpHandler` from `agents/mcp/server` (stateless, a fresh SDK v2
// `McpServer` per request, 2026-07-28 and stateless 2025-era clients on one endpoint) with
// one `echo` tool, the same tool the project's bench calls. Nothing else: no auth, no
// quotas, no logs, no tasks (the handler serves none). wrangler bundles it (esbuild).
import { McpServer } from '@modelcontextprotocol/server';
import { createMcpHandler } from 'agents/mcp/server';
import { z } from 'zod';

function createServer() {
  const server = new McpServer({ name: 'bench-peer-agents', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes the given text back.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

const handler = createMcpHandler(createServer);

export default {
  fetch(request, env, ctx) {
    return handler(request, env, ctx);
  },
};
