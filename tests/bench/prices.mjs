// Cloudflare's published list prices, the one place the cost bench (tests/bench/cost.mjs)
// takes them from. Marginal prices: beyond each plan's monthly included amounts (the
// Workers Paid plan's $5 a month and its allowances are left out), in US dollars per
// million units. Read on 2026-11-25 through the search tool's stored copies of the pages;
// check them against the live pages before relying on a figure.
//
// Workers Paid, Standard usage model:
//   https://developers.cloudflare.com/workers/platform/pricing
//   (stored copy read: a preview build of that page, cloudflare-docs-7ou.pages.dev/workers/platform/pricing)
//   requests: 10 million a month included, then $0.30 per million; CPU time: 30 million
//   CPU ms included, then $0.02 per million CPU ms; subrequests are not billed.
// Durable Objects, compute:
//   https://developers.cloudflare.com/durable-objects/platform/pricing
//   requests (HTTP requests, RPC sessions, WebSocket messages, alarm invocations): 1 million
//   included, then $0.15 per million; incoming WebSocket messages count 20:1; outgoing ones
//   are free. Duration: 400,000 GB-s included, then $12.50 per million GB-s, billed for
//   128 MB whatever the object uses, while it is active (a hibernatable idle object is not).
// Durable Objects, SQLite storage backend: the stored copies of the official page above
//   ended before its storage section, so these figures come from pages quoting it
//   (cf-trader-docs.pages.dev/cloudflare/pricing.html and
//   www.oflight.co.jp/en/columns/cloudflare-durable-objects-2026-07, which also says a
//   setAlarm() counts as one row written): rows read $0.001 per million (25 billion a
//   month included), rows written $1.00 per million (50 million included), stored data
//   $0.20 per GB-month (5 GB included). Stored data is not priced here: the counters count
//   rows, not bytes (a task's few kilobytes kept for its TTL, 1 h by default, come to a
//   fraction of a cent per million tasks at that price).
// Workers Logs (with [observability] enabled, as this repository's wrangler.toml and the
//   starter's): https://developers.cloudflare.com/workers/observability/logs/workers-logs/#pricing
//   (stored copy read: the page's source in cloudflare/cloudflare-docs, its pricing
//   examples): 20 million log events a month included on Workers Paid, then $0.60 per
//   million; every invocation emits one execution log, and every console.log is one more.
//   Read 2026-11-26.
export const PRICES_READ_ON = '2026-11-25';
export const PRICES = {
  workerRequestsPerMillion: 0.3,
  workerCpuMsPerMillion: 0.02,
  objectRequestsPerMillion: 0.15,
  websocketMessagesPerRequest: 20,
  durationGbSecondsPerMillion: 12.5,
  objectMemoryGb: 0.128,
  rowsReadPerMillion: 0.001,
  rowsWrittenPerMillion: 1.0,
  logEventsPerMillion: 0.6,
};

/**
 * Dollars per million tasks for per-task `counts` ({ workerRequests, objectRequests,
 * alarms, websocketMessages, rowsRead, rowsWritten, awakeMs, workerCpuMs }): `ops` prices
 * the counted operations (requests, alarms, messages, rows), `total` adds the objects'
 * duration and the Worker's CPU when they are given.
 */
export function dollarsPerMillionTasks(c) {
  const p = PRICES;
  const ops = c.workerRequests * p.workerRequestsPerMillion
    + (c.objectRequests + c.alarms + c.websocketMessages / p.websocketMessagesPerRequest) * p.objectRequestsPerMillion
    + c.rowsRead * p.rowsReadPerMillion
    + c.rowsWritten * p.rowsWrittenPerMillion;
  const duration = ((c.awakeMs ?? 0) / 1000) * p.objectMemoryGb * p.durationGbSecondsPerMillion;
  const cpu = (c.workerCpuMs ?? 0) * p.workerCpuMsPerMillion;
  return { ops, duration, cpu, total: ops + duration + cpu };
}
