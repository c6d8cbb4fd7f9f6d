// A small W3C WebDriver client for page tests in Debian's Chromium (chromedriver) and
// Firefox ESR (geckodriver): playwright-core drives only its own Firefox build, which
// cannot be downloaded here. Starts the driver on a free loopback port, opens a headless
// session with the prefs of webdriver.json, navigates, runs scripts, stops by PID.
// With `{ watch: true }` it also records what the browser reports about the page
// (WebDriver BiDi: console entries and failed requests; Chromium's own console log, where
// "Failed to load resource: net::…" lines go, through its classic log endpoint).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, freePort } from '../support/server.mjs';
import { tool } from '../support/scripts.mjs';

export const BROWSERS = ['chromium', 'firefox'];
const prefs = JSON.parse(readFileSync(join(ROOT, 'webdriver.json'), 'utf8'));

function capabilities(browser, watch) {
  const bidi = watch ? { webSocketUrl: true } : {};
  if (browser === 'chromium') {
    const options = prefs['goog:chromeOptions'];
    return { browserName: 'chrome', ...bidi, ...(watch ? { 'goog:loggingPrefs': { browser: 'ALL' } } : {}),
      'goog:chromeOptions': { ...options, args: [...options.args, '--headless=new'] } };
  }
  return { browserName: 'firefox', ...bidi, 'moz:firefoxOptions': { ...prefs['moz:firefoxOptions'],
    binary: '/usr/bin/firefox-esr', args: ['-headless'] } };
}

/** The events WebDriver BiDi reports for the session (`events`, appended as they come). */
async function record(url) {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = reject; });
  const events = [];
  let subscribed;
  socket.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.type === 'event') events.push({ ...data, at: Date.now() });
    else if (data.id === 1) subscribed(data);
  };
  const answer = await new Promise((resolve) => {
    subscribed = resolve;
    socket.send(JSON.stringify({ id: 1, method: 'session.subscribe',
      params: { events: ['log.entryAdded', 'network.beforeRequestSent', 'network.fetchError'] } }));
  });
  if (answer.type !== 'success') throw new Error(`BiDi session.subscribe: ${JSON.stringify(answer)}`);
  return { events, close: () => socket.close() };
}

async function call(base, method, path, body) {
  const r = await fetch(base + path, { method, headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await r.json();
  if (!r.ok) throw new Error(`WebDriver ${method} ${path}: ${json.value?.error}: ${json.value?.message}`);
  return json.value;
}

/** Starts the browser's driver and a session; `close()` ends both. */
export async function openBrowser(browser, { watch = false } = {}) {
  const port = await freePort();
  const [command, args] = browser === 'chromium'
    ? ['/usr/bin/chromedriver', [`--port=${port}`]]
    : [tool('geckodriver'), ['--port', String(port), '--host', '127.0.0.1']];
  const driver = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let log = '';
  driver.stdout.on('data', (d) => { log += d; });
  driver.stderr.on('data', (d) => { log += d; });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try { if ((await call(base, 'GET', '/status')).ready !== false) break; } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error(`${command} did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const kill = () => { try { process.kill(-driver.pid, 'SIGKILL'); } catch { /* gone */ } };
  let session, recorder;
  try {
    const opened = await call(base, 'POST', '/session', { capabilities: { alwaysMatch: capabilities(browser, watch) } });
    session = opened.sessionId;
    if (watch) recorder = await record(opened.capabilities.webSocketUrl);
  } catch (e) {
    kill();
    throw new Error(`${e.message}\n${log}`);
  }
  const at = (path) => `/session/${session}${path}`;
  const page = {
    browser,
    go: (url) => call(base, 'POST', at('/url'), { url }),
    url: () => call(base, 'GET', at('/url')),
    /** Runs `script` (a function body) in the page with `args`; its return value. */
    run: (script, args = []) => call(base, 'POST', at('/execute/sync'), { script, args }),
    /** Polls `script` until it returns something other than null/undefined. */
    async until(what, script, timeout = 60_000) {
      const end = Date.now() + timeout;
      let last;
      while (Date.now() < end) {
        try { last = await page.run(script); if (last !== null && last !== undefined) return last; } catch (e) { last = e.message; }
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`${browser}: timed out waiting for ${what} (last: ${JSON.stringify(last)}; at ${await page.url().catch(() => '?')})`);
    },
    /** With `watch`: the BiDi events so far ({method, params, at}). */
    events: () => recorder?.events ?? [],
    /** With `watch`, in Chromium: its console log since the last call ({level, message, source}). */
    consoleLog: () => (browser === 'chromium' && watch ? call(base, 'POST', at('/se/log'), { type: 'browser' }) : Promise.resolve([])),
    async close() {
      recorder?.close();
      await call(base, 'DELETE', at('')).catch(() => {});
      kill();
    },
  };
  return page;
}
