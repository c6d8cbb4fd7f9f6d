// Starts `wrangler dev` on a free loopback port for a test run and stops it by PID.
// Used by the end-to-end tests, the conformance runner, the browser tests and the bench.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const sha256 = (s) => createHash('sha256').update(s).digest('hex');

/** API keys the test servers accept (name → key), for tests that need distinct callers. */
export const TEST_KEYS = { alice: 'alice-token', mallory: 'mallory-token', browser: 'browser-test-token' };

/**
 * Variables every test server gets: fixtures on, a development requestState secret,
 * anonymous callers allowed (as `make dev`), the test API keys, and quotas generous
 * enough for the suites yet still counted.
 */
export const TEST_VARS = {
  CONFORMANCE_FIXTURES: 'true',
  REQUEST_STATE_SECRET: 'test-only-secret-0123456789abcdef',
  FETCH_ALLOWED_HOSTS: '127.0.0.1:*,localhost:*',
  ALLOW_ANONYMOUS: 'true',
  API_KEYS: Object.entries(TEST_KEYS).map(([name, key]) => `${name}=${sha256(key)}`).join(','),
  QUOTA_TASKS_PER_MINUTE: '1000',
  QUOTA_LIVE_TASKS: '1000',
  QUOTA_LISTEN_STREAMS: '100',
};

// Ports this process has handed out: the kernel may give a just-closed port again at once,
// and two servers told the same port (a Worker and its issuer, say) make the second fail.
const handedOut = new Set();

/** A loopback port free now and not handed out before by this process. */
export async function freePort() {
  for (;;) {
    const port = await new Promise((resolve, reject) => {
      const srv = createServer();
      srv.unref();
      srv.on('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const { port: bound } = srv.address();
        srv.close(() => resolve(bound));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/**
 * The structured log lines (src/ops/log.rs: one JSON object per line with an `event`) in
 * `text`, wrangler's output, parsed, in order.
 */
export function logEvents(text) {
  const events = [];
  for (const raw of text.split('\n')) {
    // With several configurations (`wrangler dev -c a -c b`), wrangler puts the Worker's
    // name in brackets before each line.
    const line = raw.replace(/^\[[^\]]*\] /, '');
    if (!line.startsWith('{"event":')) continue;
    try { events.push(JSON.parse(line)); } catch { /* a line cut by a chunk boundary */ }
  }
  return events;
}

/**
 * Starts a server. Options: persistDir (default: a new temp dir), port (default: free),
 * vars (merged over baseVars, default TEST_VARS), cwd (the project wrangler serves,
 * default this repository), env (extra environment for wrangler and the build it runs,
 * e.g. WORKER_FEATURES), ready (whether an `OPTIONS /mcp` status means the server is up;
 * default: below 500), command (what runs `wrangler dev`, given the options after it:
 * default this repository's wrangler, `dev`; e.g. `['npm', 'run', 'dev', '--']` for a
 * project whose own script serves it). Resolves once wrangler reports it is ready.
 *
 * A free port is free only until someone binds it: between `freePort()` and wrangler's own
 * bind, another process (workerd of a server starting beside this one, say) can take it.
 * When wrangler then exits with "Address already in use" on ports this function chose, it
 * starts again on new ones (at most three times); a port the caller chose is not retried.
 */
export async function startServer(options = {}) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (e) {
      const lostRace = options.port === undefined && /Address already in use/.test(e.message);
      if (!lostRace || attempt === 3) throw e;
    }
  }
}

/**
 * Starts servers side by side ({@link startServer} options each) and resolves with them in
 * order. If one fails, the others are stopped before the error is thrown, so no server
 * outlives a failed `before` hook (a server left running keeps the test process alive).
 */
export async function startServers(...optionsList) {
  const started = await Promise.allSettled(optionsList.map((options) => startServer(options)));
  const failed = started.find((s) => s.status === 'rejected');
  if (!failed) return started.map((s) => s.value);
  await Promise.all(started.filter((s) => s.status === 'fulfilled').map((s) => s.value.stop()));
  throw failed.reason;
}

/**
 * The process groups of the servers started here and not stopped: whatever is left of them
 * is killed when the process exits. The state directories made here are removed then too,
 * not at a server's stop: a restart test starts a server again on the one it stopped.
 */
const live = new Set();
const madeDirs = new Set();
process.on('exit', () => {
  for (const pid of live) {
    try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
  }
  for (const dir of madeDirs) {
    try { rmSync(dir, { recursive: true, force: true, maxRetries: 3 }); } catch { /* a dying workerd still writing: left to /tmp */ }
  }
});

async function startOnce(options) {
  const port = options.port ?? (await freePort());
  let persistDir = options.persistDir;
  if (!persistDir) {
    persistDir = mkdtempSync(join(tmpdir(), 'mcp-tasks-state-'));
    madeDirs.add(persistDir);
  }
  const vars = { ...(options.baseVars ?? TEST_VARS), ...(options.vars ?? {}) };
  const [command, ...before] = options.command ?? [join(ROOT, 'node_modules', '.bin', 'wrangler'), 'dev'];
  const args = [...before, '--ip', '127.0.0.1', '--port', String(port), '--persist-to', persistDir,
    '--inspector-port', String(await freePort()), '--show-interactive-dev-session=false'];
  for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}:${v}`);
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', CI: 'true', ...(options.env ?? {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child.pid);
  let log = '';
  const onData = (d) => { log += d.toString(); };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 240_000);
  while (true) {
    if (child.exitCode !== null) {
      await stopGroup(child, 'SIGKILL');
      throw new Error(`wrangler dev exited early:\n${log}`);
    }
    if (/Ready on/.test(log)) {
      try {
        const r = await fetch(`${url}/mcp`, { method: 'OPTIONS' });
        if ((options.ready ?? ((status) => status < 500))(r.status)) break;
      } catch { /* not listening yet */ }
    }
    if (Date.now() > deadline) {
      await stopGroup(child, 'SIGKILL');
      throw new Error(`wrangler dev did not become ready:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    mcpUrl: `${url}/mcp`,
    port,
    persistDir,
    log: () => log,
    /** The structured log lines printed so far ({@link logEvents}). */
    events: () => logEvents(log),
    /** Graceful stop. With `TEST_SERVER_LOGS=<dir>`, the server's output is kept there. */
    stop: async () => {
      await stopGroup(child, 'SIGTERM');
      if (process.env.TEST_SERVER_LOGS) writeFileSync(join(process.env.TEST_SERVER_LOGS, `wrangler-${port}.log`), log);
    },
    /** Hard kill of wrangler and workerd (the whole process group). */
    kill: () => stopGroup(child, 'SIGKILL'),
  };
}

/**
 * Stops wrangler's process group with `signal`, then SIGKILL after 10 s. When wrangler has
 * already exited, what is left of its group (workerd) is killed at once.
 */
function stopGroup(child, signal) {
  return new Promise((done) => {
    const resolve = () => { live.delete(child.pid); done(); };
    if (child.exitCode !== null || child.signalCode !== null) {
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* the whole group is gone */ }
      return resolve();
    }
    child.once('exit', () => resolve());
    try { process.kill(-child.pid, signal); } catch { resolve(); }
    setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } resolve(); }, 10_000).unref();
  });
}
