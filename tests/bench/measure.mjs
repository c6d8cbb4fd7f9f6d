// `make bench`'s load loop (tests/bench/run.mjs): closed-loop measurement of one request
// on keep-alive connections, and a pool for the requests around it.
import http from 'node:http';
import { percentile } from './lifecycles.mjs';
import { send } from './servers.mjs';

/** A keep-alive agent for `n` connections. */
export const newAgent = (n) => new http.Agent({ keepAlive: true, maxSockets: n, maxFreeSockets: n });

/**
 * Closed loop: `connections` loops each with one request in flight, for warm-up then
 * `seconds` (or `maxRequests`), as run.mjs's SETTINGS give them. `check(response)` throws on
 * a wrong answer.
 */
export async function measure(port, req, check, { connections, seconds, warmupSeconds, maxRequests }) {
  const agent = newAgent(connections);
  const latencies = new Float64Array(maxRequests);
  let count = 0;
  let errors = 0;
  let firstError;
  const phase = async (ms, record) => {
    const end = performance.now() + ms;
    await Promise.all(Array.from({ length: connections }, async () => {
      while (performance.now() < end && (!record || count < maxRequests)) {
        const t0 = performance.now();
        try {
          const r = typeof req === 'function' ? req() : req;
          check(await send(agent, port, r.method, r.path, r.headers, r.body), r);
          if (record && count < maxRequests) latencies[count++] = performance.now() - t0;
        } catch (e) {
          errors++;
          firstError ??= e.message;
          if (errors > 20) return;
        }
      }
    }));
  };
  await phase(warmupSeconds * 1000, false);
  const t0 = performance.now();
  await phase(seconds * 1000, true);
  const elapsed = (performance.now() - t0) / 1000;
  agent.destroy();
  const sorted = latencies.slice(0, count).sort();
  return { requests: count, seconds: elapsed, rps: count / elapsed, p50: percentile(sorted, 50), p99: percentile(sorted, 99), errors, firstError };
}

/** Runs `fn(item)` over items with `n` in flight; resolves to the number that succeeded. */
export async function pool(items, n, fn) {
  let i = 0;
  let ok = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < items.length) {
      const item = items[i++];
      try { await fn(item); ok++; } catch { /* counted by ok */ }
    }
  }));
  return ok;
}
