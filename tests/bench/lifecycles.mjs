// `make bench`'s full task lifecycles (tests/bench/run.mjs): one loop that drives any server
// through a small adapter, so the project, the rmcp peer and the lifecycle ceiling (the JS
// baseline's bare Durable Object task, tests/bench/baseline-js/index.js) are measured by the
// same client code with the same poll interval; and the project's listening lifecycles.
import http from 'node:http';
import { openListen } from '../support/listen.mjs';
import { mcpRequest, resultOf, send } from './servers.mjs';

const mcp = (method, params, extraHeaders) => mcpRequest('bench', method, params, extraHeaders);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const newAgent = (n) => new http.Agent({ keepAlive: true, maxSockets: n, maxFreeSockets: n });

export function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The task every lifecycle creates: slow_compute for 0.2 s (the ceiling's alarm waits as long). */
const SLOW = { name: 'slow_compute', arguments: { seconds: 0.2 } };

/**
 * A lifecycle target speaking MCP (the project, or the peer with `headers` added to every
 * request): create = tools/call slow_compute, get = tasks/get.
 */
export function mcpTarget(port, headers = {}) {
  const call = async (agent, req) => resultOf(await send(agent, port, req.method, req.path, req.headers, req.body));
  return {
    port,
    async create(agent) {
      const task = await call(agent, mcp('tools/call', SLOW, headers));
      if (task.resultType !== 'task') throw new Error(`not a task: ${JSON.stringify(task).slice(0, 200)}`);
      return task;
    },
    get: (agent, taskId) => call(agent, mcp('tasks/get', { taskId }, headers)),
  };
}

/**
 * The lifecycle ceiling (tests/bench/baseline-js/index.js): create = POST /task (one write
 * and an alarm set in a new object), get = GET /task/<id> (one read). It gives no
 * pollIntervalMs, so the loop waits the bench's own (the project is told the same).
 */
export function ceilingTarget(port) {
  const json = async (agent, method, path) => {
    const { status, text } = await send(agent, port, method, path, {}, method === 'POST' ? Buffer.alloc(0) : undefined);
    if (status !== 200) throw new Error(`HTTP ${status}: ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  return {
    port,
    async create(agent) {
      const task = await json(agent, 'POST', '/task');
      if (typeof task.taskId !== 'string' || task.status !== 'working') throw new Error(`not a new task: ${JSON.stringify(task).slice(0, 200)}`);
      return task;
    },
    async get(agent, taskId) {
      const task = await json(agent, 'GET', `/task/${encodeURIComponent(taskId)}`);
      if (task.taskId !== taskId) throw new Error(`asked for ${taskId}, got ${JSON.stringify(task).slice(0, 200)}`);
      if (task.status === 'completed' && !task.result) throw new Error(`completed without a result: ${JSON.stringify(task).slice(0, 200)}`);
      return task;
    },
  };
}

/**
 * Full lifecycles: each client creates a 0.2 s task and polls it (every pollIntervalMs the
 * server gives, else `pollIntervalMs`) to completion, in a loop, for `seconds`.
 */
export async function lifecycles(target, concurrency, seconds, pollIntervalMs) {
  const agent = newAgent(concurrency);
  const durations = [];
  let errors = 0;
  let firstError;
  let polls = 0;
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const start = performance.now();
      try {
        let task = await target.create(agent);
        const { taskId } = task;
        const deadline = performance.now() + 30_000;
        while (task.status !== 'completed') {
          if (['failed', 'cancelled'].includes(task.status)) throw new Error(`task ended ${task.status}`);
          if (performance.now() > deadline) throw new Error(`task ${taskId} not completed after 30 s`);
          await sleep(task.pollIntervalMs ?? pollIntervalMs);
          task = await target.get(agent, taskId);
          polls++;
        }
        // Lifecycles finishing after the window (their clients were mid-way) are not counted.
        if (performance.now() <= end) durations.push(performance.now() - start);
      } catch (e) {
        errors++;
        firstError ??= e.message;
        if (errors > 20) return;
      }
    }
  }));
  const window = Math.min(performance.now(), end) - t0;
  agent.destroy();
  durations.sort((a, b) => a - b);
  return { concurrency, seconds: window / 1000, lifecycles: durations.length, perSecond: durations.length / (window / 1000),
    p50: percentile(durations, 50), p99: percentile(durations, 99), polls, errors, firstError };
}

/**
 * Full lifecycles with pushed notifications instead of polling: each client creates a
 * 0.2 s task, opens a subscriptions/listen stream for it, and waits for the
 * notifications/tasks that says completed (it carries the result: nothing is polled).
 */
export async function listeningLifecycles(port, concurrency, seconds) {
  const agent = newAgent(concurrency);
  const target = mcpTarget(port);
  const url = `http://127.0.0.1:${port}/mcp`;
  const durations = [];
  let errors = 0;
  let firstError;
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const start = performance.now();
      let stream;
      try {
        const task = await target.create(agent);
        stream = await openListen(url, [task.taskId]);
        const done = await stream.until((m) => m.method === 'notifications/tasks' && m.params?.taskId === task.taskId
          && ['completed', 'failed', 'cancelled'].includes(m.params.status), 30_000);
        if (done.params.status !== 'completed' || !done.params.result) throw new Error(`task ended ${done.params.status} ${JSON.stringify(done.params).slice(0, 200)}`);
        // As a client would: read the stream to its graceful end (the listen result, then
        // the end of the body), so its connection is kept for the next request.
        const rest = await stream.all(30_000);
        if (!rest.some((m) => m.id === 'sub' && m.result) || stream.endedBy !== 'end of body') {
          throw new Error(`the stream did not end with its result: ${stream.endedBy} ${JSON.stringify(rest).slice(0, 200)}`);
        }
        if (performance.now() <= end) durations.push(performance.now() - start);
      } catch (e) {
        errors++;
        firstError ??= e.message;
        if (errors > 20) return;
      } finally {
        stream?.close();
      }
    }
  }));
  const window = Math.min(performance.now(), end) - t0;
  agent.destroy();
  durations.sort((a, b) => a - b);
  return { concurrency, seconds: window / 1000, lifecycles: durations.length, perSecond: durations.length / (window / 1000),
    p50: percentile(durations, 50), p99: percentile(durations, 99), errors, firstError };
}

/**
 * `make bench`'s lifecycle runs, on each route of `routes` in turn (straight to workerd's own
 * ports first, then through wrangler's, as the hot paths), each concurrency of
 * `settings.lifecycleConcurrency` in turn:
 *
 * Full task lifecycles (create slow_compute 0.2 s, poll tasks/get every pollIntervalMs =
 * 100 ms until completed) at several concurrencies, each right after the same loop
 * (`lifecycles`, through an adapter) against the lifecycle ceiling on the same route, the
 * least a lifecycle can cost in this runtime: the JS baseline's POST /task (a new object named
 * by a fresh id: one storage write + an alarm at 0.2 s, which writes the result) and GET
 * /task/<id> (one storage read: working or completed), polled every 100 ms too; the table
 * gives project per s ÷ ceiling per s. On the first route each is followed at once by the
 * same loop against the rmcp peer (on its own port, whatever the route):
 *   tests/bench/peer-rmcp/      a minimal native server on the official Rust SDK (rmcp 3.11,
 *                               tokio + hyper; built by its build.sh, its own CARGO_TARGET_DIR)
 *                               with the same slow_compute as a Tasks-extension tool; its tasks
 *                               live in rmcp's in-memory TaskManager (not durable, one process),
 *                               and it is reached on its own port (no proxy in front of it).
 * Then the same lifecycles with pushed notifications: one subscriptions/listen stream per task,
 * read to its end (the completed notification, which carries the result, then the listen
 * result, so its connection is kept), nothing polled; the project
 * only (rmcp's TaskManager sends no notifications/tasks), its ratios are to the ceiling
 * (same route) and to the peer's polling at the same concurrency.
 *
 * A route is `{ route: 'direct' | 'wrangler', ports }` (the hot paths' modes), `ports()` resolving to the ports of
 * `{ ceiling, project }` on it (asked right before its runs: workerd's own port moves when
 * wrangler restarts it). `checked(label, result)` flags a result's errors; resolves to the
 * report's `lifecycles` and `listeningLifecycles`, each row with its `route`.
 */
export async function lifecycleRuns({ routes, peerPort, peerHeaders, settings, log, checked }) {
  const out = { lifecycles: [], listeningLifecycles: [] };
  const { lifecycleSeconds: seconds, pollIntervalMs: poll } = settings;
  const peers = new Map();
  for (const { route, ports } of routes) {
    const via = ROUTES[route];
    const { ceiling: ceilingPort, project: projectPort } = await ports();
    log(`full lifecycles ${via}, each after the ceiling (JS baseline /task)${peerPort && !peers.size ? ' and followed by the rmcp peer' : ''}`);
    const polled = [];
    for (const n of settings.lifecycleConcurrency) {
      log(`  concurrency ${n}, ceiling`);
      const ceiling = checked('ceiling', await lifecycles(ceilingTarget(ceilingPort), n, seconds, poll));
      log(`  concurrency ${n}, project`);
      const r = { route, ...checked('project', await lifecycles(mcpTarget(projectPort), n, seconds, poll)) };
      r.ceiling = ceiling;
      r.ratioToCeiling = ratio(r, ceiling);
      if (peerPort && !peers.has(n)) {
        log(`  concurrency ${n}, rmcp peer`);
        peers.set(n, checked('peer', await lifecycles(mcpTarget(peerPort, peerHeaders), n, seconds, poll)));
        r.peer = peers.get(n);
      }
      r.ratioToPeer = ratio(r, peers.get(n));
      polled.push(r);
    }
    log(`full lifecycles with pushed notifications (subscriptions/listen) ${via}`);
    for (const n of settings.lifecycleConcurrency) {
      log(`  concurrency ${n}`);
      const r = { route, ...checked('project, listening', await listeningLifecycles(projectPort, n, seconds)) };
      r.ratioToCeiling = ratio(r, polled.find((l) => l.concurrency === n)?.ceiling);
      r.ratioToPeer = ratio(r, peers.get(n));
      out.listeningLifecycles.push(r);
    }
    out.lifecycles.push(...polled);
  }
  return out;
}

/** `r`'s lifecycles per second ÷ `base`'s; null without a base. */
const ratio = (r, base) => (base?.perSecond ? r.perSecond / base.perSecond : null);

/** How each route is named in the log and the tables (the hot paths' modes, run.mjs). */
export const ROUTES = { direct: 'straight to workerd', wrangler: "through wrangler's port" };
