// A small 2025-11-25 session client for the end-to-end tests: initialize, POSTs with the
// session id, answers read as JSON or SSE (with the Content-Type kept, so a test can
// assert which one it got), and the session's GET stream.
import { readSse } from './sse.mjs';

let nextId = 1;

/**
 * Opens a session at `url`. Options: accept (the Accept header of every request;
 * default both types), capabilities (the client's), token (an API key or bearer token).
 */
export async function openSession(url, { accept = 'application/json, text/event-stream',
  capabilities = { elicitation: {}, sampling: {} }, token } = {}) {
  const headers = { 'content-type': 'application/json', accept };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++,
    method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities,
      clientInfo: { name: 'e2e-legacy-helper', version: '1' } } }) });
  if (res.status !== 200) throw new Error(`initialize: HTTP ${res.status} ${await res.text()}`);
  const id = res.headers.get('mcp-session-id');
  await res.json();
  const sessionHeaders = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
  const post = (message) => fetch(url, { method: 'POST', headers: sessionHeaders, body: JSON.stringify(message) });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    id,
    post,
    /** The client's answer to a server→client request. */
    answer: (requestId, result) => post({ jsonrpc: '2.0', id: requestId, result }),
    /**
     * Sends a request; resolves to { status, contentType, messages } with every JSON-RPC
     * message of the answer, calling onRequest(message) for server→client requests on
     * this response stream and POSTing what it returns.
     */
    async call(method, params = {}, onRequest) {
      const res = await post({ jsonrpc: '2.0', id: nextId++, method, params });
      const contentType = res.headers.get('content-type') ?? '';
      if (!contentType.includes('text/event-stream')) {
        const text = await res.text();
        return { status: res.status, contentType, messages: text ? [JSON.parse(text)] : [] };
      }
      const messages = [];
      const refused = [];
      for await (const message of readSse(res.body)) {
        messages.push(message);
        if (message.method && message.id !== undefined && onRequest) {
          // Answered beside the reading: the stream goes on while the user thinks.
          (async () => {
            const r = await post({ jsonrpc: '2.0', id: message.id, result: await onRequest(message) });
            if (r.status !== 202) refused.push(r.status);
          })().catch((error) => refused.push(error.message));
        }
      }
      if (refused.length) throw new Error(`answers refused: ${refused.join(', ')}`);
      return { status: res.status, contentType, messages };
    },
    /** Opens the session's GET stream: { next(timeoutMs), close() }; next() gives the next message. */
    async listen() {
      const controller = new AbortController();
      const res = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': id,
        'mcp-protocol-version': '2025-11-25', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      signal: controller.signal });
      if (res.status !== 200) throw new Error(`GET stream: HTTP ${res.status}`);
      const messages = readSse(res.body)[Symbol.asyncIterator]();
      return {
        async next(timeoutMs = 15_000) {
          let timer;
          const timeout = new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`GET stream: nothing within ${timeoutMs} ms`)), timeoutMs);
          });
          try {
            const { value, done } = await Promise.race([messages.next(), timeout]);
            return done ? null : value;
          } finally {
            clearTimeout(timer);
          }
        },
        close() { controller.abort(); },
      };
    },
  };
}

/** The JSON-RPC response among an answer's messages. */
export const responseOf = (answer) => answer.messages.find((m) => m.id !== undefined && !m.method);
