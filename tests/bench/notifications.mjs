// Notification bench: pushed notifications against the polling design, in
// the same run, on one `wrangler dev`.
//
//  1. latency, change → client: a task waiting for input is answered with tasks/update;
//     the time until the stream's next notifications/tasks arrives (p50 over TRIALS).
//     Polling design, same change: a client reading tasks/get every pollIntervalMs (what
//     the Worker's listen stream did before the objects pushed) sees it after (p50).
//  2. object requests per idle watched task per minute: IDLE tasks waiting for input
//     (nothing scheduled for 24 h) watched by one listen stream for IDLE_MS, counting
//     the objects' own invocations (TRACE_OBJECT_REQUESTS logs one line per fetch,
//     alarm and WebSocket event). Polling design: the same tasks read every
//     pollIntervalMs for the same window.
//
// Usage: node tests/bench/notifications.mjs  (env: TRIALS=10 IDLE=5 IDLE_MS=60000)
// Prints a table and writes target/bench/notifications.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';
import { openListen } from '../support/listen.mjs';
import { ok } from '../e2e/mcp.mjs';

const TRIALS = Number(process.env.TRIALS ?? 10);
const IDLE = Number(process.env.IDLE ?? 5);
const IDLE_MS = Number(process.env.IDLE_MS ?? 60_000);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

async function waitingTask(url) {
  const { taskId } = await ok(url, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'bench.txt' } });
  for (;;) {
    const task = await ok(url, 'tasks/get', { taskId });
    if (task.status === 'input_required') return { taskId, key: Object.keys(task.inputRequests)[0], pollMs: task.pollIntervalMs };
    await sleep(50);
  }
}

const answer = (url, t) => ok(url, 'tasks/update', { taskId: t.taskId,
  inputResponses: { [t.key]: { action: 'accept', content: { confirm: true } } } });

async function pushLatency(url) {
  const t = await waitingTask(url);
  const stream = await openListen(url, [t.taskId]);
  await stream.until((m) => m.params?.status === 'input_required');
  const start = performance.now();
  await answer(url, t);
  await stream.until((m) => m.method === 'notifications/tasks');
  const ms = performance.now() - start;
  stream.close();
  return ms;
}

async function pollLatency(url) {
  const t = await waitingTask(url);
  // A poller's phase is arbitrary relative to the change: its next read comes after a
  // random part of the interval, then every interval.
  const start = performance.now();
  const answered = answer(url, t);
  for (let wait = Math.random() * t.pollMs; ; wait = t.pollMs) {
    await sleep(wait);
    const task = await ok(url, 'tasks/get', { taskId: t.taskId });
    if (task.status !== 'input_required') break;
  }
  await answered;
  return performance.now() - start;
}

function objectRequests(server) {
  return (server.log().match(/\[object-request\]/g) ?? []).length;
}

async function idlePush(server, tasks) {
  const stream = await openListen(server.mcpUrl, tasks.map((t) => t.taskId));
  await stream.until((m) => m.method === 'notifications/subscriptions/acknowledged');
  await sleep(1_000); // the opens and first states are done
  const before = objectRequests(server);
  await sleep(IDLE_MS);
  const count = objectRequests(server) - before;
  stream.close();
  return count;
}

async function idlePoll(server, tasks) {
  const before = objectRequests(server);
  const until = Date.now() + IDLE_MS;
  await Promise.all(tasks.map(async (t) => {
    while (Date.now() < until) {
      await ok(server.mcpUrl, 'tasks/get', { taskId: t.taskId });
      await sleep(t.pollMs);
    }
  }));
  return objectRequests(server) - before;
}

const server = await startServer({ vars: { TRACE_OBJECT_REQUESTS: 'true' } });
try {
  const url = server.mcpUrl;
  await pushLatency(url); // warm-up
  const push = [];
  const poll = [];
  for (let i = 0; i < TRIALS; i++) {
    push.push(await pushLatency(url));
    poll.push(await pollLatency(url));
  }
  const idle = [];
  for (let i = 0; i < IDLE; i++) idle.push(await waitingTask(url));
  const pushIdle = await idlePush(server, idle);
  const pollIdle = await idlePoll(server, idle);
  const perTaskMinute = (n) => (n / IDLE) * (60_000 / IDLE_MS);
  const report = {
    trials: TRIALS,
    latencyMs: {
      push: { p50: pct(push, 0.5), p90: pct(push, 0.9), max: Math.max(...push) },
      polling: { p50: pct(poll, 0.5), p90: pct(poll, 0.9), max: Math.max(...poll) },
    },
    idle: { tasks: IDLE, windowMs: IDLE_MS },
    objectRequestsPerIdleTaskPerMinute: { push: perTaskMinute(pushIdle), polling: perTaskMinute(pollIdle) },
  };
  const row = (name, a, b) => console.log(`${name.padEnd(52)} ${String(a).padStart(10)} ${String(b).padStart(10)}`);
  console.log(`\nnotifications (${TRIALS} trials; idle: ${IDLE} tasks for ${IDLE_MS / 1000} s)`);
  row('', 'push', 'polling');
  row('latency change → client, p50 (ms)', report.latencyMs.push.p50.toFixed(1), report.latencyMs.polling.p50.toFixed(1));
  row('latency change → client, p90 (ms)', report.latencyMs.push.p90.toFixed(1), report.latencyMs.polling.p90.toFixed(1));
  row('object requests per idle watched task per minute', report.objectRequestsPerIdleTaskPerMinute.push.toFixed(2),
    report.objectRequestsPerIdleTaskPerMinute.polling.toFixed(2));
  const dir = join(ROOT, 'target', 'bench');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'notifications.json'), `${JSON.stringify(report, null, 2)}\n`);
} finally {
  await server.stop();
}
