// Scale runs (the end of `make bench`): the project's Worker under one `wrangler dev`
// on loopback (tests/support/server.mjs, the test keys and fixtures; quotas unlimited so no
// run is refused), every request from ONE principal (the test key "alice": an anonymous
// caller lists nothing, src/auth/anonymous.rs), three bounded runs one after the other:
//   1. SCALE_CREATE tasks created (tools/call slow_compute 0.01 s, 2026-07-28, a task each,
//      SCALE_CONCURRENCY at once), then listed with mcp-tasks-edge/tasks/list through every
//      cursor: the ids must be unique, all among those created, and as many as the index
//      keeps (min(created, MAX_INDEXED), read from src/quota/index.rs, not typed here).
//   2. SCALE_WATCH tasks (confirm_delete: each waits for an answer, so none ends before it
//      is watched) watched by subscriptions/listen, each answered (tasks/update) when its
//      stream says input_required, until each has its completed notification. One stream
//      takes at most the server's bound of taskIds (asked first: a stream with all
//      SCALE_WATCH ids must be refused with the bound in its message), so: 2a one stream at
//      that bound, 2b SCALE_WATCH tasks on streams of that bound, all open at once.
//   3. SCALE_CLIENTS clients at once, each its own connection, each creating SCALE_PER_CLIENT
//      tasks (slow_compute 0.2 s) and polling tasks/get every pollIntervalMs until all of
//      them are completed.
// Errors: every non-200, JSON-RPC error, timeout, wrong task or stream ending early is
// counted; any makes the script exit 1. Memory: VmRSS (/proc/<pid>/status) summed over the
// workerd processes of that wrangler's process group, before and after each run and after
// SCALE_SETTLE_MS of quiet. Output: one table on stdout, JSON in target/bench/scale.json.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { ROOT, TEST_KEYS, startServer } from '../support/server.mjs';
import { openListen } from '../support/listen.mjs';
import { rpc } from '../e2e/mcp.mjs';
import { percentile } from './lifecycles.mjs';
import { mcpRequest, resultOf, send, workerdPorts, workerdProcesses } from './servers.mjs';

const num = (name, fallback) => Number(process.env[name] || fallback);
const S = {
  create: num('SCALE_CREATE', 10_000), watch: num('SCALE_WATCH', 1_000), clients: num('SCALE_CLIENTS', 100),
  perClient: num('SCALE_PER_CLIENT', 10), concurrency: num('SCALE_CONCURRENCY', 8), settleMs: num('SCALE_SETTLE_MS', 5_000),
  timeoutMs: 30_000,
};
const TOKEN = TEST_KEYS.alice;
const AUTH = { authorization: `Bearer ${TOKEN}` };
const MAX_INDEXED = Number(/MAX_INDEXED: u64 = ([\d_]+)/.exec(readFileSync(join(ROOT, 'src/quota/index.rs'), 'utf8'))[1].replaceAll('_', ''));
const started = Date.now();
const log = (msg) => console.error(`[scale +${((Date.now() - started) / 1000).toFixed(0)}s] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const agentOf = (n) => new http.Agent({ keepAlive: true, maxSockets: n, maxFreeSockets: n });
const terminal = (s) => ['completed', 'failed', 'cancelled'].includes(s);

/**
 * Errors and latencies of one run; `error` counts each error once (however many callers
 * it passes through) and keeps the first message for the report.
 */
function tally() {
  return { errors: 0, firstError: null, latencies: [],
    error(e) { if (e.counted) return; e.counted = true; this.errors++; this.firstError ??= e.message; } };
}

/** One MCP request of the principal, timed into `t`; any failure is counted there and thrown. */
async function call(t, agent, port, method, params) {
  const req = mcpRequest('scale', method, params, AUTH);
  const t0 = performance.now();
  try {
    const result = resultOf(await send(agent, port, req.method, req.path, req.headers, req.body, S.timeoutMs));
    t.latencies.push(performance.now() - t0);
    return result;
  } catch (e) { t.error(e); throw e; }
}

/** Runs `fn(i)` for i < n with `width` in flight; failures are already counted by `call`. */
async function pool(n, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, width) }, async () => {
    while (next < n) { const i = next++; await fn(i).catch(() => {}); }
  }));
}

/** A new task of slow_compute `seconds` (it must be a task, not an inline answer). */
async function createTask(t, agent, port, seconds) {
  const task = await call(t, agent, port, 'tools/call', { name: 'slow_compute', arguments: { seconds } });
  if (task.resultType !== 'task') { const e = new Error(`not a task: ${JSON.stringify(task).slice(0, 200)}`); t.error(e); throw e; }
  return task;
}

/** MB of VmRSS over the workerd processes of process group `group`. */
function rssMb(group) {
  let kb = 0;
  for (const { pid } of workerdProcesses().filter((w) => w.pgid === group)) {
    try { kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0); } catch { /* gone */ }
  }
  return kb / 1024;
}

/** Runs `body()` between memory readings; returns the row of the table. */
async function measured(label, group, body) {
  log(label);
  const before = rssMb(group);
  const t0 = performance.now();
  const row = await body();
  const seconds = (performance.now() - t0) / 1000;
  const after = rssMb(group);
  await sleep(S.settleMs);
  return { label, seconds, perSecond: row.tasks / seconds, before, after, settled: rssMb(group), ...row };
}

/** The p50/p99 and errors of a tally as row fields; `of` says what the latency times. */
function stats(t, of) {
  const sorted = [...t.latencies].sort((a, b) => a - b);
  return { of, p50: percentile(sorted, 50), p99: percentile(sorted, 99), errors: t.errors, firstError: t.firstError };
}

// ---------------------------------------------------------------- run 1: create and list

async function createMany(port) {
  const t = tally();
  const agent = agentOf(S.concurrency);
  const ids = [];
  await pool(S.create, S.concurrency, async () => { ids.push((await createTask(t, agent, port, 0.01)).taskId); });
  agent.destroy();
  return { tasks: ids.length, ids, ...stats(t, 'tools/call') };
}

async function listAll(port, created) {
  const t = tally();
  const agent = agentOf(1);
  const seen = new Map();
  let cursor;
  let pages = 0;
  do {
    const page = await call(t, agent, port, 'mcp-tasks-edge/tasks/list', cursor ? { cursor } : {}).catch(() => null);
    if (!page) break;
    pages++;
    for (const task of page.tasks) seen.set(task.taskId, (seen.get(task.taskId) ?? 0) + 1);
    cursor = page.nextCursor;
  } while (cursor);
  agent.destroy();
  // The index keeps the newest MAX_INDEXED of a principal's tasks (src/quota/index.rs).
  const expected = Math.min(created.length, MAX_INDEXED);
  const known = new Set(created);
  const twice = [...seen.values()].filter((n) => n > 1).length;
  const strangers = [...seen.keys()].filter((id) => !known.has(id)).length;
  if (seen.size !== expected || twice || strangers) {
    t.error(new Error(`listed ${seen.size} distinct ids (expected ${expected}), ${twice} more than once, ${strangers} never created`));
  }
  return { tasks: seen.size, pages, note: `${seen.size} of ${created.length} listed (index keeps ${MAX_INDEXED})`, ...stats(t, 'list page') };
}

// ---------------------------------------------------------------- run 2: listen

/** The most taskIds one stream takes: a stream asking for `n` must be refused naming it. */
async function listenBound(url, n) {
  const ids = Array.from({ length: n }, (_, i) => i.toString(16).padStart(32, '0'));
  const { status, body } = await rpc(url, 'subscriptions/listen', { notifications: { taskIds: ids } }, { token: TOKEN });
  const bound = /at most (\d+) taskIds/.exec(body?.error?.message ?? '')?.[1];
  if (!bound) throw new Error(`a listen stream for ${n} taskIds was not refused with a bound: ${status} ${JSON.stringify(body).slice(0, 300)}`);
  return Number(bound);
}

/**
 * One stream over `tasks` (each waiting for input or about to): answers each task with
 * tasks/update when the stream says it is input_required, and waits for its completed
 * notification (with its result). Records the time from the answer's acknowledgement to
 * that notification: the resumed step and the push, nothing polled.
 */
async function watchOne(t, agent, url, port, tasks, delays) {
  const answered = new Map();
  const done = new Set();
  let stream;
  try {
    stream = await openListen(url, tasks.map((k) => k.taskId), { token: TOKEN });
    await stream.until((m) => {
      const p = m.params;
      if (m.method !== 'notifications/tasks' || !tasks.some((k) => k.taskId === p?.taskId)) return false;
      if (p.status === 'input_required' && !answered.has(p.taskId)) {
        answered.set(p.taskId, null);
        const key = Object.keys(p.inputRequests ?? {})[0];
        call(t, agent, port, 'tasks/update', { taskId: p.taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } })
          .then(() => answered.set(p.taskId, performance.now()), () => {});
      }
      if (!terminal(p.status) || done.has(p.taskId)) return false;
      if (p.status !== 'completed' || !p.result) throw new Error(`task ${p.taskId} ended ${p.status}`);
      done.add(p.taskId);
      // The notification may overtake the acknowledgement of the answer: then 0.
      delays.push(Math.max(0, performance.now() - (answered.get(p.taskId) ?? performance.now())));
      return done.size === tasks.length;
    }, 120_000);
  } catch (e) {
    t.error(new Error(`${e.message}; ${await missing(t, agent, port, tasks, answered, done)}`));
  } finally { stream?.close(); }
}

/** Why a stream's tasks did not all complete: which were never seen asking, which were answered, and what tasks/get says of one. */
async function missing(t, agent, port, tasks, answered, done) {
  const left = tasks.filter((k) => !done.has(k.taskId));
  const unasked = left.filter((k) => !answered.has(k.taskId)).length;
  const first = left[0] && await call(t, agent, port, 'tasks/get', { taskId: left[0].taskId }).then((r) => r.status, (e) => e.message);
  return `${left.length} of ${tasks.length} not seen completed: ${unasked} never seen input_required, ${left.length - unasked} answered; tasks/get of ${left[0]?.taskId}: ${first}`;
}

/**
 * `total` tasks of confirm_delete (each waits for an answer, so none ends before its
 * stream opens), then all streams of ≤`perStream` at once, each answering and waiting.
 */
async function watchRun(url, port, total, perStream) {
  const t = tally();
  const agent = agentOf(S.concurrency);
  const tasks = [];
  await pool(total, S.concurrency, async () => {
    const task = await call(t, agent, port, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'scale.txt' } });
    if (task.resultType !== 'task') t.error(new Error(`confirm_delete is not a task: ${JSON.stringify(task).slice(0, 200)}`));
    else tasks.push(task);
  });
  const delays = [];
  const streams = Math.ceil(tasks.length / perStream);
  await Promise.all(Array.from({ length: streams }, (_, i) =>
    watchOne(t, agent, url, port, tasks.slice(i * perStream, (i + 1) * perStream), delays)));
  agent.destroy();
  const sorted = delays.sort((a, b) => a - b);
  return { tasks: delays.length, of: 'answered → notified', p50: percentile(sorted, 50), p99: percentile(sorted, 99),
    errors: t.errors, firstError: t.firstError, note: `${streams} stream(s) of ≤${perStream} open at once; created, then answered on input_required` };
}

// ---------------------------------------------------------------- run 3: many clients

async function followers(port) {
  const t = tally();
  const lifecycles = [];
  await Promise.all(Array.from({ length: S.clients }, async () => {
    const agent = agentOf(1); // each client its own connection
    try {
      const mine = [];
      for (let i = 0; i < S.perClient; i++) mine.push({ task: await createTask(t, agent, port, 0.2), t0: performance.now() });
      const deadline = performance.now() + S.timeoutMs;
      while (mine.some((m) => !m.end)) {
        if (performance.now() > deadline) throw new Error(`tasks still not completed after ${S.timeoutMs} ms`);
        await sleep(mine[0].task.pollIntervalMs);
        for (const m of mine.filter((x) => !x.end)) {
          const got = await call(t, agent, port, 'tasks/get', { taskId: m.task.taskId });
          if (got.status === 'completed') { m.end = performance.now(); lifecycles.push(m.end - m.t0); } else if (terminal(got.status)) throw new Error(`task ended ${got.status}`);
        }
      }
    } catch (e) { t.error(e); } finally { agent.destroy(); }
  }));
  const sorted = lifecycles.sort((a, b) => a - b);
  const lifecycle = `${lifecycles.length} tasks seen completed; created → seen completed p50 ${sorted.length ? percentile(sorted, 50).toFixed(0) : '-'} ms, p99 ${sorted.length ? percentile(sorted, 99).toFixed(0) : '-'} ms`;
  return { tasks: lifecycles.length, ...stats(t, 'request (create, get)'), note: `${t.latencies.length} requests; ${lifecycle} (polled once all ${S.perClient} are created)` };
}

// ---------------------------------------------------------------- the run

function print(rows, notes) {
  const W = [24, 6, 6, 7, 24, 7, 7, 6, 7, 7, 7];
  const line = (cells) => cells.map((c, i) => (i === 0 || i === 4 ? String(c).padEnd(W[i]) : String(c).padStart(W[i]))).join(' ');
  const f = (x, d = 0) => (x == null ? '-' : x.toFixed(d));
  console.log(`\nScale runs (one principal, one wrangler dev on loopback; RSS = workerd VmRSS summed, MB; settled = after ${S.settleMs / 1000} s quiet)`);
  console.log(line(['run', 'tasks', 'secs', 'tasks/s', 'latency of', 'p50 ms', 'p99 ms', 'errors', 'RSS', 'after', 'settled']));
  for (const r of rows) {
    console.log(line([r.label, r.tasks, f(r.seconds, 1), f(r.perSecond, 1), r.of, f(r.p50), f(r.p99), r.errors, f(r.before), f(r.after), f(r.settled)]));
    if (r.note) console.log(`  ${r.note}`);
    if (r.firstError) console.log(`  first error: ${r.firstError}`);
  }
  for (const n of notes) console.log(n);
}

const vars = { QUOTA_TASKS_PER_MINUTE: 'unlimited', QUOTA_LIVE_TASKS: 'unlimited', QUOTA_LISTEN_STREAMS: 'unlimited' };
const server = await startServer({ vars });
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, async () => { await server.stop(); process.exit(130); });
const rows = [];
const notes = [];
let failure;
try {
  const { group } = workerdPorts(server.port);
  const port = server.port;
  const warm = agentOf(1);
  // Warm-up (the isolate, the ledger); its task is the principal's too, so it is listed.
  const created = [(await createTask(tally(), warm, port, 0.01)).taskId];
  warm.destroy();
  rows.push(await measured(`1a: ${S.create} created`, group, async () => { const r = await createMany(port); created.push(...r.ids); delete r.ids; return r; }));
  rows.push(await measured('1b: listed, all cursors', group, () => listAll(port, created)));
  const bound = await listenBound(server.mcpUrl, S.watch);
  notes.push(`one listen stream takes at most ${bound} taskIds (a stream for ${S.watch} was refused): run 2 at that bound, then on streams of it`);
  // Creation is what bounds this script's time (it was meant to take about 4 min): say so when it does.
  const creating = rows[0].seconds;
  if (creating > 120) notes.push(`creating ${S.create} tasks took ${creating.toFixed(0)} s (${rows[0].perSecond.toFixed(1)}/s): most of this script's time`);
  rows.push(await measured(`2a: ${bound} on 1 stream`, group, () => watchRun(server.mcpUrl, port, bound, bound)));
  rows.push(await measured(`2b: ${S.watch} on streams`, group, () => watchRun(server.mcpUrl, port, S.watch, bound)));
  rows.push(await measured(`3: ${S.clients} clients × ${S.perClient}`, group, () => followers(port)));
} catch (e) {
  failure = e;
  console.error(e);
} finally {
  await server.stop();
  rmSync(server.persistDir, { recursive: true, force: true });
}
print(rows, notes);
const errors = rows.reduce((n, r) => n + r.errors, 0);
console.log(`${((Date.now() - started) / 1000).toFixed(0)} s in all; ${errors} errors`);
mkdirSync(join(ROOT, 'target', 'bench'), { recursive: true });
writeFileSync(join(ROOT, 'target', 'bench', 'scale.json'), `${JSON.stringify({ settings: S, maxIndexed: MAX_INDEXED, rows }, null, 2)}\n`);
if (failure || errors) process.exit(1);
