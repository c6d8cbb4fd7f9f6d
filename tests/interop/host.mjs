// What a host application writes to use the official Tasks client
// (@modelcontextprotocol/ext-tasks) with the official TypeScript client
// (@modelcontextprotocol/client): connect, then createTaskSessionFromClient. A 2026-07-28
// Tasks server also needs the host's own request path ("rawDispatch", the package's
// README: the SDK's codecs reject V2 task wire shapes) and the request framing; this is
// that path, written from the transport spec (streamable-http "Sending Messages",
// "Standard Request Headers"): one POST per request with Accept for both types,
// MCP-Protocol-Version, Mcp-Method and Mcp-Name, and an answer read as JSON or SSE.
// Every exchange is recorded so tests can check what went over the wire.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DispatchError, createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';
import { readSse } from '../support/sse.mjs';

export const MODERN = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';
const CLIENT_INFO = { name: 'ext-tasks-interop', version: '1.0.0' };

let nextId = 1;

/** The host's raw request path for V2 task traffic (tools/call, tasks/*). */
function rawDispatch(url, { token, wire }) {
  return async (request, options = {}) => {
    const id = `raw-${nextId++}`;
    const message = { jsonrpc: '2.0', id, ...request };
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': request.method,
    };
    if (request.method === 'tools/call' || request.method === 'prompts/get') headers['mcp-name'] = request.params.name;
    for (const [name, value] of Object.entries(options.context?.headers ?? {})) headers[name.toLowerCase()] = value;
    if (token) headers.authorization = `Bearer ${token}`;
    const signal = options.context?.requestTimeoutMs === undefined ? options.signal
      : AbortSignal.any([options.signal, AbortSignal.timeout(options.context.requestTimeoutMs)].filter(Boolean));
    let res;
    try {
      res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message), signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new DispatchError(`POST ${request.method} failed: ${error.message}`, true, { cause: error });
    }
    const contentType = res.headers.get('content-type') ?? '';
    let response;
    if (contentType.includes('text/event-stream')) {
      for await (const m of readSse(res.body)) {
        if (m.id === id && !m.method) { response = m; break; }
      }
    } else if (contentType.includes('application/json')) {
      response = await res.json();
    }
    wire.push({ method: request.method, params: request.params, status: res.status, contentType, response });
    if (!response || (response.result === undefined && response.error === undefined)) {
      throw new DispatchError(`${request.method}: HTTP ${res.status} without a JSON-RPC response`);
    }
    return response.error ? { kind: 'error', error: response.error } : { kind: 'result', result: response.result };
  };
}

/**
 * Connects the official client and wraps it in an ext-tasks session.
 * generation: 'v2' (2026-07-28, version negotiation 'auto') or 'v1' (2025-11-25, the
 * SDK's default handshake). Options: token (API key), onInputRequest, endpointId.
 * Resolves to { client, session, wire, notifications, close }.
 */
export async function connect(url, { generation, token, onInputRequest, endpointId = `interop:${url}` }) {
  const modern = generation === 'v2';
  const capabilities = { elicitation: { form: {}, url: {} }, sampling: {}, ...(modern ? { extensions: { [TASKS]: {} } } : {}) };
  const client = new Client(CLIENT_INFO, { capabilities, ...(modern ? { versionNegotiation: { mode: 'auto' } } : {}) });
  const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : undefined;
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit });
  await client.connect(transport);
  const expected = modern ? 'modern' : 'legacy';
  if (client.getProtocolEra() !== expected) throw new Error(`negotiated the ${client.getProtocolEra()} era, wanted ${expected}`);
  const wire = [];
  const options = { endpointId, onInputRequest, onError: () => {} };
  if (modern) {
    options.rawDispatch = rawDispatch(url, { token, wire });
    options.v2RequestFraming = { protocolVersion: MODERN, clientInfo: CLIENT_INFO, clientCapabilities: capabilities };
  }
  const session = createTaskSessionFromClient(client, options);
  // Every notification the session is handed (the package installs itself as the
  // client's fallback handler): kept so tests can tell pushed states from polled ones.
  const notifications = [];
  const handler = client.fallbackNotificationHandler;
  client.fallbackNotificationHandler = async (notification) => {
    notifications.push(notification);
    return handler(notification);
  };
  return {
    client,
    session,
    wire,
    notifications,
    async close() {
      await session.close().catch(() => {});
      await client.close().catch(() => {});
    },
  };
}

/** An input handler answering every question as a user would: confirm, and a name. */
export function answering(log = []) {
  return async (request, context) => {
    log.push({ request, context });
    if (request.kind === 'elicitation') {
      const properties = request.params?.requestedSchema?.properties ?? {};
      const content = {};
      for (const [name, schema] of Object.entries(properties)) content[name] = schema.type === 'boolean' ? true : 'Ada';
      return { action: 'accept', content };
    }
    if (request.kind === 'sampling') return { role: 'assistant', model: 'interop', content: { type: 'text', text: 'an answer' } };
    return { roots: [] };
  };
}

/** Rejects after `ms` with `what`, so a hang fails the test instead of the run. */
export function within(ms, promise, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms); }),
  ]);
}
