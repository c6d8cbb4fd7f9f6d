// The gateway's `agents` upstream (tests/e2e/gateway-binding.test.mjs): a Worker written as
// Cloudflare's guide writes an MCP server (`createMcpHandler` from `agents/mcp/server`, a
// stateless SDK v2 `McpServer` per request), without tasks, reached by the gateway through
// a service binding. It shares the bench peer's pinned packages (./install.sh).
import { McpServer } from '@modelcontextprotocol/server';
import { createMcpHandler } from 'agents/mcp/server';
import { z } from 'zod';

function createServer() {
  const server = new McpServer({ name: 'gateway-agents-upstream', version: '1.0.0' });
  server.registerTool(
    'greet',
    { description: 'Greets someone.', inputSchema: { name: z.string() }, annotations: { readOnlyHint: true } },
    async ({ name }) => ({ content: [{ type: 'text', text: `Hello from agents, ${name}!` }] }),
  );
  server.registerTool(
    'slow_sum',
    { description: 'Adds two numbers, slowly.', inputSchema: { a: z.number(), b: z.number(), seconds: z.number().int().min(0).max(60) },
      outputSchema: { sum: z.number() } },
    async ({ a, b, seconds }) => {
      await new Promise((r) => setTimeout(r, seconds * 1000));
      return { content: [{ type: 'text', text: `${a + b}` }], structuredContent: { sum: a + b } };
    },
  );
  return server;
}

const handler = createMcpHandler(createServer);

export default {
  fetch(request, env, ctx) {
    return handler(request, env, ctx);
  },
};
