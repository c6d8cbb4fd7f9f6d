// The "my tasks" page of tests/package/app (my-tasks.html + my-tasks.js, under 100 lines):
// `watchMyTasks` in a real app, in Chromium and Firefox, with what the browser reports
// about the page recorded (webdriver.mjs `watch`: console entries and failed requests).
//
//  1. node starts a batch (another client, same API key) before the page loads: the page
//     shows it (found by its first listing);
//  2. the page starts one (its button): it joins at once;
//  3. node starts another while both run: a later listing finds it;
//  4. each row shows the tool and a <progress> whose value and max are the server's
//     numbers, and ends "completed"; the stream reopened for the new tasks (the replaced
//     streams aborted, the last one read to its end), and neither the console nor the
//     network log holds an error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/server.mjs';
import { openBrowser } from './webdriver.mjs';

const APP_FILES = ['my-tasks.html', 'my-tasks.js'];
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

/** Starts process_batch as another client would (plain fetch); its task id. */
async function startElsewhere(server, token, items) {
  const response = await fetch(server.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json',
    'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'process_batch', authorization: `Bearer ${token}` },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call',
    params: { name: 'process_batch', arguments: { items, delayMs: 600 }, _meta: META } }) });
  const answer = await response.json();
  if (!answer.result?.taskId) throw new Error(`tools/call process_batch: ${JSON.stringify(answer)}`);
  return answer.result.taskId;
}

/** What the page shows: one entry per row. */
const ROWS = `return [...document.querySelectorAll('#tasks li')].map((li) => { const bar = li.querySelector('progress');
  return { id: li.dataset.taskId, tool: li.dataset.tool, status: li.dataset.status,
    value: bar.hasAttribute('value') ? bar.value : null, max: bar.max }; })`;

/** Whether a failed request is an abort the page asked for (a replaced listen stream). */
const isAbort = (event) => /ABORTED/.test(event.params.errorText ?? '');
const methodOf = (event) => (event.params.request?.headers ?? [])
  .find((h) => h.name.toLowerCase() === 'mcp-method')?.value?.value ?? '';

export async function myTasks(browser, B, { site, server, token, check }) {
  const lines = APP_FILES.map((f) => readFileSync(join(ROOT, 'tests', 'package', 'app', f), 'utf8').trimEnd().split('\n').length);
  const total = lines.reduce((a, b) => a + b, 0);
  check(`${B}: the "my tasks" app is under 100 lines`, total < 100, `${APP_FILES.join(' + ')}: ${lines.join(' + ')} = ${total} lines`);

  const page = await openBrowser(browser, { watch: true });
  try {
    const before = await startElsewhere(server, token, 10);
    await page.go(`${site.url}/my-tasks.html?${new URLSearchParams({ mcp: server.mcpUrl, token })}`);
    const rows = () => page.run(ROWS);
    await page.until('the task started before the page', `return document.querySelector('[data-task-id="${before}"]') ? true : null`);
    // The button works once the watch is up (its promise resolves after the first listing's
    // states went to the callback, once the stream is open).
    await page.until('the start button', "return document.querySelector('#start').disabled ? null : true");
    const loaded = Date.now();
    await page.run("document.querySelector('#start').click()");
    const mine = await page.until('the task the page started', `${ROWS.replace('return ', 'const rows = ')}; const r = rows.find((r) => r.id !== '${before}'); return r ? r.id : null`);
    const joinedIn = Date.now() - loaded;
    const elsewhere = await startElsewhere(server, token, 6);
    const startedElsewhere = Date.now();
    const samples = new Map();
    let foundIn;
    for (const end = Date.now() + 60_000; Date.now() < end;) {
      const seen = await rows();
      for (const r of seen) samples.set(r.id, [...(samples.get(r.id) ?? []), r]);
      if (foundIn === undefined && seen.some((r) => r.id === elsewhere)) foundIn = Date.now() - startedElsewhere;
      if (foundIn !== undefined && [before, mine, elsewhere].every((id) => seen.find((r) => r.id === id)?.status === 'completed')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1_000)); // the last stream's end
    const tasks = { before: [before, 10], mine: [mine, 5], elsewhere: [elsewhere, 6] };
    for (const [name, [id, items]] of Object.entries(tasks)) {
      const seen = samples.get(id) ?? [];
      const numeric = seen.some((r) => r.max === items && r.value > 0 && r.value < items);
      check(`${B}: my tasks: the ${name} task shows its tool and a numeric progress bar, then completed`,
        seen.length > 0 && seen.every((r) => r.tool === 'process_batch') && numeric && seen.at(-1).status === 'completed',
        JSON.stringify(seen.map((r) => `${r.status} ${r.value}/${r.max}`).filter((v, i, a) => a.indexOf(v) === i)));
    }
    check(`${B}: my tasks: the page's own task joined at once, one started elsewhere was found by a listing`,
      joinedIn < 5_000 && foundIn !== undefined && foundIn < 5_000, `joined in ${joinedIn} ms, found in ${foundIn} ms (relistIntervalMs 2000)`);
    const mode = await page.run("return document.querySelector('#mode').textContent");
    const shown = await page.run("return document.querySelector('#error').textContent");
    check(`${B}: my tasks: on the stream, no error shown`, mode === 'stream' && shown === '', `mode ${mode}; error ${JSON.stringify(shown)}`);

    const events = page.events();
    const listens = events.filter((e) => e.method === 'network.beforeRequestSent' && methodOf(e) === 'subscriptions/listen');
    const failed = events.filter((e) => e.method === 'network.fetchError');
    const aborted = failed.filter((e) => methodOf(e) === 'subscriptions/listen' && isAbort(e));
    const errors = failed.filter((e) => !aborted.includes(e));
    check(`${B}: my tasks: the stream reopened for the new tasks; a replaced stream is aborted, no request fails`,
      listens.length >= 3 && aborted.length >= 1 && aborted.length < listens.length && errors.length === 0,
      `${listens.length} listen requests, ${aborted.length} aborted on reopen; failed: ${JSON.stringify(errors.map((e) => `${methodOf(e) || e.params.request?.url} ${e.params.errorText}`))}`);
    const logged = events.filter((e) => e.method === 'log.entryAdded' && e.params.level === 'error').map((e) => e.params.text);
    const chromium = (await page.consoleLog()).filter((l) => l.level === 'SEVERE').map((l) => l.message);
    check(`${B}: my tasks: nothing in the console (no network error across the reopens, no unhandled rejection)`,
      logged.length === 0 && chromium.length === 0, JSON.stringify([...logged, ...chromium]).slice(0, 400));
  } finally {
    await page.close();
  }
}
