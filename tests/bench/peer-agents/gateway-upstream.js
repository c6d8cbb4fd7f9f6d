// The gateway's `agents` upstream (tests/e2e/gateway-binding.test.mjs): a Worker written as
// Cloudflare's guide writes an MCP server (`createMcpHandler` from `agents/mcp/server`, a
// stateless SDK v2 `McpServer` per request), without tasks, reached by the gateway through
// a service binding. It shares the bench peer's pinned packages (./install.sh).
import { McpServer } from '@modelcontextprotocol/server';
import { acceptedContent, inputRequired } from '@modelcontextprotocol/server';
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
  // A question asked by MRTR (2026-07-28 InputRequiredResult), as the SDK's own example
  // writes it; `deploy_again` is the same tool marked idempotent.
  const deploy = async ({ env }, ctx) => {
    const confirmation = z.object({ confirm: z.boolean() });
    const confirmed = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmation);
    if (confirmed?.confirm !== true) {
      return inputRequired({
        inputRequests: { confirm: inputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: confirmation }) },
      });
    }
    return { content: [{ type: 'text', text: `deployed to ${env}` }] };
  };
  server.registerTool('deploy', { description: 'Deploys, once confirmed.', inputSchema: { env: z.string() } }, deploy);
  server.registerTool('deploy_again', { description: 'Deploys, once confirmed (idempotent).', inputSchema: { env: z.string() },
    annotations: { idempotentHint: true } }, deploy);
  return server;
}

const handler = createMcpHandler(createServer);

export default {
  fetch(request, env, ctx) {
    return handler(request, env, ctx);
  },
};
