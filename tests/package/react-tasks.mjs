// The React page of tests/package/app (react-tasks.html + react-tasks.jsx, under 100 lines):
// `myTasks()` through `useSyncExternalStore` under React.StrictMode (React's development
// build), in Chromium and Firefox, with what the browser reports recorded (webdriver.mjs).
//
//  1. node finishes a task (another client, same API key) before the page loads: the page
//     shows it completed (the store's first listing brings finished tasks too);
//  2. the page starts a batch (its button): its row shows the tool and numeric progress
//     live, then "completed";
//  3. node starts a long batch while the page is open: its row appears (a relisting finds
//     it) with numeric progress; its Cancel button cancels it;
//  4. node starts approve_release, which asks: the row shows a form built from
//     `requestedSchema` (checkbox, select of the titled options, text); filled and sent, the
//     task completes with the answer (checked through tasks/get);
//  5. a reload shows every one of those tasks in its final state;
//  6. StrictMode lists nothing twice (one listing per load before the first relisting), and
//     neither the console nor the network log holds an error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/server.mjs';
import { openBrowser } from './webdriver.mjs';

const APP_FILES = ['react-tasks.html', 'react-tasks.jsx'];
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } } };

/** One request as another client sends it (plain fetch): its result. */
async function rpc(server, token, method, params, name) {
  const response = await fetch(server.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json',
    'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, 'Mcp-Name': name, authorization: `Bearer ${token}` },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } }) });
  const answer = await response.json();
  if (!answer.result) throw new Error(`${method}: ${JSON.stringify(answer)}`);
  return answer.result;
}
const startElsewhere = async (server, token, tool, args) => (await rpc(server, token, 'tools/call', { name: tool, arguments: args }, tool)).taskId;
const getTask = (server, token, taskId) => rpc(server, token, 'tasks/get', { taskId }, taskId);

/** What the page shows: one entry per row. */
const ROWS = `return [...document.querySelectorAll('#tasks li')].map((li) => { const bar = li.querySelector('progress');
  return { id: li.dataset.taskId, tool: li.dataset.tool, status: li.dataset.status, value: bar.dataset.value, max: bar.dataset.max,
    form: [...li.querySelectorAll('form [name]')].map((f) => [f.name, f.type, [...(f.options ?? [])].map((o) => o.value).filter(Boolean)]) }; })`;

const isAbort = (event) => /ABORTED/.test(event.params.errorText ?? '');
const methodOf = (event) => (event.params.request?.headers ?? [])
  .find((h) => h.name.toLowerCase() === 'mcp-method')?.value?.value ?? '';

export async function reactTasks(browser, B, { site, server, token, check }) {
  const lines = APP_FILES.map((f) => readFileSync(join(ROOT, 'tests', 'package', 'app', f), 'utf8').trimEnd().split('\n').length);
  const total = lines.reduce((a, b) => a + b, 0);
  check(`${B}: the React "my tasks" page is under 100 lines`, total < 100, `${APP_FILES.join(' + ')}: ${lines.join(' + ')} = ${total} lines`);

  const page = await openBrowser(browser, { watch: true });
  const samples = new Map();
  const rows = async () => {
    const seen = await page.run(ROWS);
    for (const r of seen) samples.set(r.id, [...(samples.get(r.id) ?? []), r]);
    return seen;
  };
  /** Samples the rows until `done(rows)` returns something. */
  const until = async (what, done, timeout = 60_000) => {
    for (const end = Date.now() + timeout; Date.now() < end;) {
      const found = done(await rows().catch(() => []));
      if (found) return found;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${B}: timed out waiting for ${what}: ${JSON.stringify(await rows().catch((e) => e.message)).slice(0, 600)}`);
  };
  const status = (id) => (seen) => seen.find((r) => r.id === id)?.status;
  try {
    const finished = await startElsewhere(server, token, 'process_batch', { items: 2, delayMs: 50 });
    for (let i = 0; i < 100 && (await getTask(server, token, finished)).status !== 'completed'; i++) await new Promise((r) => setTimeout(r, 100));
    const url = `${site.url}/react-tasks.html?${new URLSearchParams({ mcp: server.mcpUrl, token })}`;
    const loads = [Date.now()];
    await page.go(url);
    await until('the task finished before the page', (seen) => status(finished)(seen) === 'completed');
    await page.until('the start button', "return document.querySelector('#start').disabled ? null : true");
    const before = new Set((await rows()).map((r) => r.id));
    await page.run("document.querySelector('#start').click()");
    const mine = await until('the task the page started', (seen) => seen.find((r) => !before.has(r.id))?.id);

    const long = await startElsewhere(server, token, 'process_batch', { items: 20, delayMs: 400 });
    await until('numeric progress of the task started elsewhere', (seen) => Number(seen.find((r) => r.id === long)?.value) >= 1);
    await page.run(`document.querySelector('[data-task-id="${long}"] .cancel').click()`);
    await until('the cancelled task', (seen) => status(long)(seen) === 'cancelled');

    const asking = await startElsewhere(server, token, 'approve_release', { version: '2.1.0' });
    const form = await until('the question\'s form', (seen) => { const f = seen.find((r) => r.id === asking)?.form; return f?.length ? f : null; });
    await page.run(`const form = document.querySelector('[data-task-id="${asking}"] form');
      form.querySelector('[name=approve]').click();
      const select = form.querySelector('[name=environment]');
      Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(select, 'production');
      select.dispatchEvent(new Event('change', { bubbles: true }));
      form.querySelector('button[type=submit]').click();`);
    await until('the answered task', (seen) => status(asking)(seen) === 'completed');
    const answered = await getTask(server, token, asking);
    check(`${B}: React: a question answered with a form typed from requestedSchema`,
      answered.result?.structuredContent?.decision === 'approved' && answered.result.structuredContent.environment === 'production'
      && form.some(([name, type]) => name === 'approve' && type === 'checkbox')
      && form.some(([name, , options]) => name === 'environment' && options.join() === 'staging,production'),
    `form ${JSON.stringify(form)}; result ${JSON.stringify(answered.result?.structuredContent)}`);
    await until('the page\'s own task completed', (seen) => status(mine)(seen) === 'completed');

    for (const [name, id, items, end] of [['page\'s own', mine, 5, 'completed'], ['elsewhere', long, 20, 'cancelled']]) {
      const seen = samples.get(id) ?? [];
      const numeric = seen.some((r) => Number(r.max) === items && Number(r.value) > 0 && Number(r.value) < items);
      check(`${B}: React: the ${name} task shows its tool and numeric progress live, then ${end}`,
        seen.every((r) => r.tool === 'process_batch') && numeric && seen.at(-1).status === end,
        JSON.stringify(seen.map((r) => `${r.status} ${r.value}/${r.max}`).filter((v, i, a) => a.indexOf(v) === i)));
    }

    loads.push(Date.now());
    await page.go(url);
    const expected = { [finished]: 'completed', [mine]: 'completed', [long]: 'cancelled', [asking]: 'completed' };
    const after = await until('every task after a reload', (seen) => (Object.entries(expected).every(([id, s]) => status(id)(seen) === s) ? seen : null));
    check(`${B}: React: after a reload every task is there in its final state, newest first`,
      after.findIndex((r) => r.id === asking) < after.findIndex((r) => r.id === finished), `${after.length} rows`);
    const connection = await page.run("return document.querySelector('#connection').textContent");
    const shown = await page.run("return document.querySelector('#error').textContent + document.querySelector('#problem').textContent");
    check(`${B}: React: live, no error shown`, connection === 'live' && shown === '', `connection ${connection}; error ${JSON.stringify(shown)}`);

    await new Promise((r) => setTimeout(r, 500));
    const events = page.events();
    const listings = loads.map((at) => events.filter((e) => e.method === 'network.beforeRequestSent' && e.at >= at && e.at < at + 1_500
      && methodOf(e) === 'mcp-tasks-edge/tasks/list').length);
    check(`${B}: React: StrictMode lists nothing twice (one listing per load)`, listings.every((n) => n === 1), `listings in the first 1.5 s of each load: ${listings}`);
    const failed = events.filter((e) => e.method === 'network.fetchError' && !(methodOf(e) === 'subscriptions/listen' && isAbort(e)));
    const logged = events.filter((e) => e.method === 'log.entryAdded' && e.params.level === 'error').map((e) => e.params.text);
    const chromium = (await page.consoleLog()).filter((l) => l.level === 'SEVERE').map((l) => l.message);
    check(`${B}: React: nothing in the console, no failed request (StrictMode, a reload, a cancel)`,
      logged.length === 0 && chromium.length === 0 && failed.length === 0,
      JSON.stringify([...logged, ...chromium, ...failed.map((e) => `${methodOf(e)} ${e.params.errorText}`)]).slice(0, 500));
  } finally {
    await page.close();
  }
}
