// A client on the official TypeScript SDK 1.x: 2025-11-25, no Tasks extension, as Claude Code
// (after its fallback), VS Code and Claude Desktop speak to a server. Connected to `url` with
// `capabilities`, keyed by `token` when given; `setup(client)` installs its handlers before
// it connects; `clients`, when given, collects it for the test file's `after` to close.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function sdkClient(url, { name, capabilities = {}, token, setup, clients } = {}) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  setup?.(client);
  const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  clients?.push(client);
  return client;
}
