// A minimal MCP 2026-07-28 HTTP client for the end-to-end tests: every request carries
// the standard headers and _meta, like a conforming client.
import { readFileSync } from 'node:fs';

export const TASKS = 'io.modelcontextprotocol/tasks';
export const ALL_CAPS = { extensions: { [TASKS]: {} }, elicitation: {}, sampling: {}, roots: {} };
/** The empty result of an acknowledgement (`tasks/update`, `tasks/cancel`), which names the
 *  server as every 2026-07-28 result does (the demo's name, the crate's version). */
export const ACK = { resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo':
  { name: 'mcp-tasks-edge', version: /^version = "(.*)"$/m.exec(readFileSync(new URL('../../Cargo.toml', import.meta.url), 'utf8'))[1] } } };

let nextId = 1;

export function headersFor(method, params, extra = {}) {
  const h = { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...extra };
  const name = { 'tools/call': params.name, 'prompts/get': params.name, 'resources/read': params.uri,
    'tasks/get': params.taskId, 'tasks/update': params.taskId, 'tasks/cancel': params.taskId }[method];
  if (typeof name === 'string' && !('mcp-name' in h)) h['mcp-name'] = name;
  return h;
}

/** Sends one request; resolves to { status, body } (body parsed JSON). */
export async function rpc(url, method, params = {}, { caps = ALL_CAPS, token, headers = {} } = {}) {
  const full = { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'e2e', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': caps } };
  const h = headersFor(method, full, headers);
  if (token) h.authorization = `Bearer ${token}`;
  const res = await fetch(url, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: full }) });
  const text = await res.text();
  let body;
  try { body = JSON.parse(text); } catch { body = text; }
  return { status: res.status, body, headers: res.headers };
}

/** The result of a request that must succeed. */
export async function ok(url, method, params, options) {
  const { status, body } = await rpc(url, method, params, options);
  if (status !== 200 || body.error) throw new Error(`${method} failed: ${status} ${JSON.stringify(body)}`);
  return body.result;
}

/** Polls tasks/get until `done(task)` or the deadline. */
export async function pollUntil(url, taskId, done, { timeoutMs = 20_000, options } = {}) {
  const deadline = Date.now() + timeoutMs;
  let task;
  while (Date.now() < deadline) {
    task = await ok(url, 'tasks/get', { taskId }, options);
    if (done(task)) return task;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`task ${taskId} never reached the expected state; last: ${JSON.stringify(task)}`);
}

export const terminal = (t) => ['completed', 'failed', 'cancelled'].includes(t.status);

/** `check()`'s first truthy value (awaited), tried every 200 ms; throws naming `what` past the deadline. */
export async function until(what, check, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
