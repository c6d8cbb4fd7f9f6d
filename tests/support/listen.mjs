// Reads a subscriptions/listen SSE stream message by message (for the e2e tests and the
// notification bench): `until(predicate)` waits for the next matching message, `all()`
// collects everything to the end of the stream. `notifications` replaces the filter
// ({ taskIds } by default).
import { ALL_CAPS, headersFor } from '../e2e/mcp.mjs';

export async function openListen(url, taskIds, { id = 'sub', token, notifications } = {}) {
  const params = { notifications: notifications ?? { taskIds }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': ALL_CAPS } };
  const headers = headersFor('subscriptions/listen', params);
  if (token) headers.authorization = `Bearer ${token}`;
  const controller = new AbortController();
  const res = await fetch(url, { method: 'POST', headers, signal: controller.signal,
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }) });
  if (res.status !== 200) throw new Error(`listen: HTTP ${res.status} ${await res.text()}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  let endedBy = null;
  const queue = [];
  /** The next message (parsed), or null at the end of the stream. */
  async function next() {
    while (!queue.length && !ended) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (error) {
        // The connection broke (no clean end of the body): also an end without a result.
        ended = true;
        endedBy = `transport: ${error.message}`;
        break;
      }
      const { value, done } = chunk;
      if (done) { ended = true; endedBy = 'end of body'; break; }
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (frame.startsWith('data: ')) queue.push({ at: performance.now(), message: JSON.parse(frame.slice(6)) });
      }
    }
    return queue.shift() ?? null;
  }
  const withTimeout = (promise, ms, what) => Promise.race([promise, new Promise((_, reject) =>
    setTimeout(() => reject(new Error(`listen: ${what} within ${ms} ms`)), ms).unref())]);
  return {
    next,
    async until(predicate, timeoutMs = 20_000) {
      return withTimeout((async () => {
        for (;;) {
          const item = await next();
          if (!item) throw new Error('listen: the stream ended first');
          if (predicate(item.message)) return item.message;
        }
      })(), timeoutMs, 'no matching message');
    },
    async all(timeoutMs = 30_000) {
      return withTimeout((async () => {
        const out = [];
        for (let item = await next(); item; item = await next()) out.push(item.message);
        return out;
      })(), timeoutMs, 'no end of stream');
    },
    /** How the stream ended: 'end of body', 'transport: …', or null while open. */
    get endedBy() { return endedBy; },
    close() { controller.abort(); },
  };
}
