// `make bench` helpers: start `wrangler dev` for a baseline's own config directory, find
// the port on which the workerd behind a `wrangler dev` listens itself (wrangler's port is a
// proxy in front of it), and start the rmcp peer (tests/bench/peer-rmcp, a native binary).
// Servers listen on 127.0.0.1 only; wrangler is stopped by process group, the peer by PID.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { ROOT, freePort } from '../support/server.mjs';
import { ALL_CAPS, headersFor } from '../e2e/mcp.mjs';

/** Sixteen API keys, each its own principal (and ledger): creation by one against all. */
export const BENCH_KEYS = Array.from({ length: 16 }, (_, i) => `bench-key-${i}`);

/** `API_KEYS` with the bench keys added to `base` (name=SHA-256 digest each). */
export function benchApiKeys(base) {
  const digest = (key) => createHash('sha256').update(key).digest('hex');
  return [base, ...BENCH_KEYS.map((key, i) => `bench${i}=${digest(key)}`)].join(',');
}

let nextId = 1;
/**
 * An MCP POST as a conforming 2026-07-28 client sends it (headers + _meta, like
 * tests/e2e), from `client` (its clientInfo name): { method, path, headers, body }.
 */
export function mcpRequest(client, method, params = {}, extraHeaders = {}) {
  const full = { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: client, version: '1' }, 'io.modelcontextprotocol/clientCapabilities': ALL_CAPS } };
  return { method: 'POST', path: '/mcp', headers: headersFor(method, full, extraHeaders), body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: full })) };
}

/**
 * The JSON-RPC result of a response, JSON or an event stream (a job's wait is streamed to a
 * client whose Accept names text/event-stream: heartbeats, then the response), or throws.
 */
export function resultOf({ status, text }) {
  if (status !== 200) throw new Error(`HTTP ${status}: ${text.slice(0, 300)}`);
  const body = text.startsWith('{') ? JSON.parse(text) : lastResponse(text);
  if (body.error || !body.result) throw new Error(`JSON-RPC error: ${text.slice(0, 300)}`);
  return body.result;
}

/** The last JSON-RPC response among an event stream's `data:` lines. */
function lastResponse(text) {
  const messages = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim())
    .filter((d) => d.startsWith('{')).map((d) => JSON.parse(d));
  return messages.reverse().find((m) => 'result' in m || 'error' in m) ?? {};
}

/** The bench build's counts (GET /__bench/counters: src/cloudflare/bench.rs) of `server`. */
export async function counters(server) {
  const res = await fetch(`${server.url}/__bench/counters`);
  if (res.status !== 200) throw new Error(`GET /__bench/counters: HTTP ${res.status} (is this the bench build?)`);
  return res.json();
}

/** CPU seconds (user + system) spent so far by each process of a process group, by command name. */
export function groupCpu(group) {
  const ticks = 100; // USER_HZ on Linux
  const byCommand = {};
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[2]) !== group) continue;
      byCommand[comm] = (byCommand[comm] ?? 0) + (Number(f[11]) + Number(f[12])) / ticks;
    } catch { /* gone */ }
  }
  return byCommand;
}

/**
 * Starts `wrangler dev` on `<configDir>/<config>` (default wrangler.toml; its [build] command
 * included) on a free loopback port. `probe(url)` resolves true once the Worker answers as
 * expected.
 */
export async function startWrangler({ configDir, config = 'wrangler.toml', probe, vars = {}, startTimeoutMs = 240_000 }) {
  const port = await freePort();
  const persistDir = mkdtempSync(join(tmpdir(), 'mcp-bench-state-'));
  const args = ['dev', '--config', join(configDir, config), '--ip', '127.0.0.1', '--port', String(port),
    '--persist-to', persistDir, '--inspector-port', String(await freePort()), '--show-interactive-dev-session=false'];
  for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}:${v}`);
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'wrangler'), args, {
    cwd: configDir,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', CI: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  while (true) {
    if (child.exitCode !== null) throw new Error(`wrangler dev (${configDir}) exited early:\n${log}`);
    if (/Ready on/.test(log) && await probe(url).catch(() => false)) break;
    if (Date.now() > deadline) {
      await stopGroup(child.pid, child);
      throw new Error(`wrangler dev (${configDir}) did not become ready:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, port, persistDir, pid: child.pid, log: () => log, stop: () => stopGroup(child.pid, child) };
}

function stopGroup(pgid, child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    try { process.kill(-pgid, 'SIGTERM'); } catch { resolve(); }
    setTimeout(() => { try { process.kill(-pgid, 'SIGKILL'); } catch { /* gone */ } resolve(); }, 10_000).unref();
  });
}

/**
 * Starts the rmcp peer's binary (built by tests/bench/peer-rmcp/build.sh) on a free loopback
 * port, telling it the poll interval to suggest. `probe(url)` resolves true once it answers as
 * expected. Stopped by its PID (SIGTERM, then SIGKILL after 10 s).
 */
export async function startPeer({ binary, pollIntervalMs, probe, startTimeoutMs = 30_000 }) {
  const port = await freePort();
  const child = spawn(binary, [String(port), String(pollIntervalMs)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  let spawnError;
  child.on('error', (e) => { spawnError = e; });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try { process.kill(child.pid, 'SIGTERM'); } catch { return; }
    const timer = setTimeout(() => { try { process.kill(child.pid, 'SIGKILL'); } catch { /* gone */ } }, 10_000);
    await exited;
    clearTimeout(timer);
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  while (true) {
    if (spawnError) throw new Error(`the rmcp peer (${binary}) did not start: ${spawnError.message}`);
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the rmcp peer (${binary}) exited early:\n${log}`);
    if (/listening on/.test(log) && await probe(url).catch(() => false)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the rmcp peer (${binary}) did not become ready:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, port, pid: child.pid, log: () => log, stop };
}

/** Every TCP listener on the machine: [{ port, pid, command }] (from `ss -ltnpH`). */
function listeners() {
  const ss = spawnSync('ss', ['-ltnpH'], { encoding: 'utf8' });
  if (ss.status !== 0) throw new Error(`ss -ltnp failed: ${ss.stderr}`);
  const rows = [];
  for (const line of ss.stdout.split('\n')) {
    const local = line.trim().split(/\s+/)[3];
    if (!local) continue;
    const port = Number(local.slice(local.lastIndexOf(':') + 1));
    for (const m of line.matchAll(/\("([^"]+)",pid=(\d+)/g)) rows.push({ port, pid: Number(m[2]), command: m[1] });
  }
  return rows;
}

function processGroup(pid) {
  // /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

/**
 * The ports the `workerd` processes of the `wrangler dev` listening on `wranglerPort`
 * listen on (same process group as that wrangler), other than wrangler's port itself.
 */
export function workerdPorts(wranglerPort) {
  const all = listeners();
  const owner = all.find((l) => l.port === wranglerPort);
  if (!owner) throw new Error(`nothing listens on ${wranglerPort}`);
  const group = processGroup(owner.pid);
  const inGroup = new Set(readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number).filter((p) => {
    try { return processGroup(p) === group; } catch { return false; }
  }));
  const ports = all.filter((l) => l.command === 'workerd' && inGroup.has(l.pid) && l.port !== wranglerPort);
  return { wranglerPid: owner.pid, wranglerCommand: owner.command, group, workerd: [...new Map(ports.map((l) => [l.port, l])).values()] };
}

/**
 * Restricts every process of process group `group` (every thread: `taskset -a`) to the CPUs
 * `cpus` ("0", "1", "0,1"); `group` may also be a single process id (`{ pid }`).
 */
export function pin(group, cpus) {
  const pids = typeof group === 'object' ? [group.pid]
    : readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number).filter((p) => {
      try { return processGroup(p) === group; } catch { return false; }
    });
  for (const pid of pids) {
    const r = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { encoding: 'utf8' });
    if (r.status !== 0 && existsSync(`/proc/${pid}`)) throw new Error(`taskset ${cpus} ${pid}: ${r.stderr}`);
  }
}

/**
 * workerd's own port for the Worker behind `wranglerPort`: the one candidate on which
 * `probe(url)` answers as through wrangler. Throws when none or several do.
 */
export async function directPort(wranglerPort, probe) {
  const found = workerdPorts(wranglerPort);
  const matches = [];
  for (const l of found.workerd) {
    if (await probe(`http://127.0.0.1:${l.port}`).catch(() => false)) matches.push(l);
  }
  if (matches.length !== 1) {
    throw new Error(`expected one workerd port answering like wrangler's ${wranglerPort}; candidates ${JSON.stringify(found.workerd)}, answering ${JSON.stringify(matches)}`);
  }
  return { port: matches[0].port, workerdPid: matches[0].pid, wranglerPid: found.wranglerPid, listeners: found.workerd };
}

/**
 * One plain HTTP request over node:http (the benchmark's client): { status, text }, the body
 * decoded when it came gzip or brotli encoded (a request that sent Accept-Encoding).
 */
export function send(agent, port, method, path, headers, body, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, timeout: timeoutMs,
      headers: body ? { ...headers, 'content-length': body.length } : headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const decoded = { gzip: gunzipSync, br: brotliDecompressSync }[res.headers['content-encoding']]?.(raw) ?? raw;
        resolve({ status: res.statusCode, text: decoded.toString() });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Live workerd processes on the machine (zombies excluded): [{ pid, pgid }]. */
export function workerdProcesses() {
  const out = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const [state, , pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (comm === 'workerd' && state !== 'Z') out.push({ pid: Number(p), pgid: Number(pgid) });
    } catch { /* gone */ }
  }
  return out;
}
