// The web console (www/) end to end: Debian's Chromium (driven by playwright-core) against
// `wrangler dev`, clicking through what a newcomer does. Screenshots land in
// target/console/ for review (docs/console.png is one of them), with wrangler's log.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer, ROOT, TEST_KEYS } from '../support/server.mjs';
import { ok } from '../e2e/mcp.mjs';

const SHOTS = join(ROOT, 'target', 'console');
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
  '--disable-component-update', '--disable-sync'];

let server;
let browser;
let page;
const pageErrors = [];

/** Polls `probe` until it returns a truthy value; fails with `what` after `timeout` ms. */
async function until(what, probe, timeout = 20_000) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try { last = await probe(); if (last) return last; } catch (e) { last = e; }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
}

const shot = (name) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
const newestCard = (tool) => page.locator(`.task-card[data-tool="${tool}"]`).first();
const badge = (card) => card.locator('.status-badge').textContent();
const statusOf = (card) => card.getAttribute('data-status');

async function waitStatus(card, status, timeout) {
  await until(`status ${status}`, async () => (await statusOf(card)) === status, timeout);
}

async function selectTool(name) {
  await page.locator(`.tool-item[data-tool="${name}"]`).click();
  await page.locator(`#tool-form[data-tool="${name}"]`).waitFor();
}

/** Selects `name`, fills fields by label, presses Run; returns the new card. */
async function run(name, fields = {}) {
  const before = await page.locator(`.task-card[data-tool="${name}"]`).count();
  await selectTool(name);
  for (const [label, value] of Object.entries(fields)) {
    await page.locator('#tool-form').getByLabel(label).fill(String(value));
  }
  await page.locator('#run-button').click();
  await until(`a new ${name} card`, async () => (await page.locator(`.task-card[data-tool="${name}"]`).count()) > before);
  return newestCard(name);
}

describe('web console', () => {
  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startServer();
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(server.url);
    await until('a connection', async () => (await page.locator('#connection-status').getAttribute('data-state')) === 'ok', 60_000)
      .catch(async (e) => { throw new Error(`${e.message}: ${await page.locator('#connection-status').textContent()}`); });
  });

  after(async () => {
    await browser?.close();
    if (server) writeFileSync(join(SHOTS, 'wrangler.log'), server.log()); // for a failed run's review
    await server?.stop();
  });

  test('shows the server, its capabilities and its tools', async () => {
    assert.match(await page.locator('#server-versions').textContent(), /2026-07-28/);
    assert.match(await page.locator('#server-capabilities').textContent(), /io\.modelcontextprotocol\/tasks/);
    assert.equal(await page.locator('#server-url').inputValue(), `${server.url}/mcp`);
    for (const tool of ['greet', 'process_batch', 'hello_world', 'confirm_delete', 'slow_compute']) {
      assert.equal(await page.locator(`.tool-item[data-tool="${tool}"]`).count(), 1, tool);
    }
    await page.locator('#tool-filter').fill('batch');
    assert.equal(await page.locator('.tool-item').count(), 1);
    await page.locator('#tool-filter').fill('');
  });

  test('runs greet and shows its result', async () => {
    await selectTool('greet');
    await page.locator('#run-button').click();
    assert.equal(await page.locator('#tool-form [aria-invalid="true"]').count(), 1, 'the required name is flagged');
    const card = await run('greet', { name: 'Ada' });
    await waitStatus(card, 'complete');
    assert.equal(await badge(card), 'Done');
    assert.equal((await card.locator('.result-text').textContent()).trim(), 'Hello, Ada!');
  });

  test('runs a long task and watches its progress to the end', async () => {
    const card = await run('process_batch', { items: 3, delayMs: 500, label: 'demo' });
    const taskId = await until('a task id', () => card.getAttribute('data-task-id'));
    assert.ok(taskId.length > 8);
    await until('a progress bar', () => card.locator('progress.progress:not([hidden])').count());
    assert.match(await card.locator('.status-message').textContent(), /Processed \d\/3 items/);
    assert.equal(await card.locator('progress').getAttribute('max'), '3');
    // notifications/tasks over subscriptions/listen: the card says it is live.
    await until('the live indicator', async () => (await card.locator('.live-mode').getAttribute('data-mode')) === 'stream');
    await shot('long-task-running');
    await waitStatus(card, 'completed', 30_000);
    assert.equal(await badge(card), 'Completed');
    assert.match(await card.locator('.result-text').textContent(), /Processed 3 items of demo in \d+ ms\./);
    assert.match(await card.locator('.structured pre').textContent(), /"items": 3/);
  });

  test('10 tasks at once stay live on one shared stream and the page stays responsive', async () => {
    const methods = [];
    const onRequest = (request) => {
      const method = request.headers()['mcp-method'];
      if (method) methods.push({ method, at: Date.now() });
    };
    page.on('request', onRequest);
    const cards = [];
    for (let i = 0; i < 10; i++) cards.push(await run('process_batch', { items: 4, delayMs: 900, label: `many-${i}` }));
    const started = Date.now();
    for (const card of cards) {
      await until('the live indicator', async () => (await card.locator('.live-mode').getAttribute('data-mode')) === 'stream');
    }
    // Responsive while they run: the page answers at once, the clock on the cards ticks.
    const lags = [];
    for (let i = 0; i < 10; i++) {
      const t = Date.now();
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
      lags.push(Date.now() - t);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(Math.max(...lags) < 1_000, `the page answered in ${lags.join(', ')} ms`);
    // Live: every card shows progress before its end.
    for (const card of cards) {
      await until('progress on every card', async () => /Processed [1-4]\/4 items/.test(await card.locator('.status-message').textContent()), 30_000);
    }
    await shot('ten-tasks-live');
    for (const card of cards) await waitStatus(card, 'completed', 60_000);
    page.off('request', onRequest);
    // The stream covered them: no polling of tasks/get while they ran.
    const gets = methods.filter((m) => m.method === 'tasks/get' && m.at >= started).length;
    const listens = methods.filter((m) => m.method === 'subscriptions/listen').length;
    assert.ok(gets <= 10, `${gets} tasks/get while 10 tasks were covered by the stream`);
    assert.ok(listens <= 12, `${listens} listen streams opened for 10 tasks`);
    console.log(`# 10 tasks: ${listens} listen (re)opens, ${gets} tasks/get, page lag max ${Math.max(...lags)} ms`);
  });

  test('answers an elicitation inside a task', async () => {
    const card = await run('hello_world');
    const form = card.locator('.input-request.kind-elicitation');
    await form.waitFor({ timeout: 20_000 });
    await waitStatus(card, 'input_required');
    assert.equal(await badge(card), 'Needs input');
    assert.match(await form.locator('.request-message').textContent(), /Please enter your name/);
    await shot('elicitation');
    await form.getByLabel('Your name').fill('Grace');
    await form.getByRole('button', { name: 'Accept' }).click();
    await waitStatus(card, 'completed', 30_000);
    assert.equal((await card.locator('.result-text').textContent()).trim(), 'Hello, Grace!');
  });

  test("shows a task's timeline on its card", async () => {
    const card = await run('hello_world');
    const form = card.locator('.input-request.kind-elicitation');
    await form.waitFor({ timeout: 20_000 });
    const timeline = card.locator('details.timeline');
    await timeline.locator('summary').click();
    const events = () => timeline.locator('.timeline-list li[data-event]').evaluateAll((items) => items.map((li) => li.dataset.event));
    // hello_world asks from its first step (`ask_in_task`): the task is created asking.
    await until('the question in the timeline', async () => (await events()).includes('created'));
    assert.match(await timeline.locator('li[data-event="created"]').textContent(), /Waiting for input/);
    await form.getByLabel('Your name').fill('Ada');
    await form.getByRole('button', { name: 'Accept' }).click();
    await waitStatus(card, 'completed', 30_000);
    // Open, it follows the task: the answer and the end arrive without another click.
    await until('the whole timeline', async () => (await events()).at(-1) === 'completed');
    assert.deepEqual(await events(), ['created', 'input_answered', 'completed']);
    assert.match(await timeline.locator('li[data-event="created"] time').getAttribute('datetime'), /^\d{4}-\d\d-\d\dT/);
    await shot('timeline');
  });

  test('confirms a deletion with a boolean field, using only the keyboard', async () => {
    await selectTool('confirm_delete');
    await page.locator('#tool-form').getByLabel('filename').focus();
    await page.keyboard.type('notes.txt');
    await page.keyboard.press('Enter');
    const card = newestCard('confirm_delete');
    const form = card.locator('.input-request');
    await form.waitFor({ timeout: 20_000 });
    assert.match(await form.textContent(), /Delete notes\.txt\?/);
    await form.getByLabel('confirm').focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter'); // Accept
    await waitStatus(card, 'completed', 30_000);
    assert.equal((await card.locator('.result-text').textContent()).trim(), 'Deleted notes.txt.');
  });

  test('answers a sampling request with a written reply', async () => {
    const card = await run('test_input_required_result_sampling');
    const form = card.locator('.input-request.kind-sampling');
    await form.waitFor({ timeout: 20_000 });
    assert.match(await form.textContent(), /What is the capital of France\?/);
    await form.getByLabel('Your reply').fill('Paris');
    await form.getByRole('button', { name: 'Send reply' }).click();
    await waitStatus(card, 'complete');
    assert.equal((await card.locator('.result-text').textContent()).trim(), 'The model said: Paris');
  });

  test('answers a roots request with none, and says so', async () => {
    const card = await run('test_input_required_result_list_roots');
    await waitStatus(card, 'complete');
    assert.equal((await card.locator('.result-text').textContent()).trim(), 'Roots:');
    assert.match(await card.locator('.roots-note').textContent(), /shared none/);
  });

  test('shows a URL elicitation as a link', async () => {
    const card = await run('read_the_spec');
    const box = card.locator('.input-request.kind-url');
    await box.waitFor({ timeout: 20_000 });
    const href = await box.locator('a.url-link').getAttribute('href');
    assert.match(href, /^https:\/\/modelcontextprotocol\.io\//);
    assert.equal(await box.locator('a.url-link').getAttribute('rel'), 'noopener noreferrer');
    await box.getByRole('button', { name: 'I have done it' }).click();
    await until('the result', async () => /Thanks for reading/.test(await card.locator('.outcome').textContent()), 30_000);
  });

  test('shows a failed task plainly', async () => {
    const card = await run('protocol_error_job');
    await waitStatus(card, 'failed', 30_000);
    assert.match(await card.locator('.outcome .error-text').textContent(), /internal error on purpose/);
  });

  test('cancels a running task', async () => {
    const card = await run('slow_compute', { seconds: 30, label: 'to cancel' });
    await until('a task id', () => card.getAttribute('data-task-id'));
    await waitStatus(card, 'working');
    await card.getByRole('button', { name: 'Cancel task' }).click();
    await waitStatus(card, 'cancelled', 20_000);
    assert.equal(await badge(card), 'Cancelled');
    assert.equal(await card.getByRole('button', { name: 'Cancel task' }).isVisible(), false);
  });

  test('resumes an unfinished task after a reload', async () => {
    const card = await run('process_batch', { items: 6, delayMs: 700, label: 'survivor' });
    const taskId = await until('a task id', () => card.getAttribute('data-task-id'));
    await waitStatus(card, 'working');
    const saved = await page.evaluate(() => localStorage.getItem('mcp-tasks-console/v1'));
    assert.ok(saved.includes(taskId), 'the task is in localStorage');
    await page.reload();
    const resumed = page.locator(`.task-card[data-task-id="${taskId}"]`);
    await resumed.waitFor({ timeout: 30_000 });
    assert.equal(await resumed.getAttribute('data-tool'), 'process_batch');
    await until('progress after the reload', () => resumed.locator('progress.progress:not([hidden])').count(), 30_000);
    await shot('resumed');
    await waitStatus(resumed, 'completed', 30_000);
    assert.match(await resumed.locator('.result-text').textContent(), /Processed 6 items of survivor/);
    // Finished tasks from before the reload are shown again with their final status.
    assert.equal(await page.locator('.task-card[data-tool="slow_compute"][data-status="cancelled"]').count(), 1);
    assert.equal(await page.locator('.task-card[data-tool="greet"]').count(), 0, 'inline results are not persisted');
    await shot('console');
  });

  test('asks again after a reload when a task still needs input', async () => {
    const card = await run('hello_world');
    const taskId = await until('a task id', () => card.getAttribute('data-task-id'));
    await card.locator('.input-request').waitFor({ timeout: 20_000 });
    await page.reload();
    const resumed = page.locator(`.task-card[data-task-id="${taskId}"]`);
    const form = resumed.locator('.input-request.kind-elicitation');
    await form.waitFor({ timeout: 30_000 });
    await form.getByLabel('Your name').fill('Linus');
    await form.getByRole('button', { name: 'Accept' }).click();
    await waitStatus(resumed, 'completed', 30_000);
    assert.equal((await resumed.locator('.result-text').textContent()).trim(), 'Hello, Linus!');
  });

  test('fits a 360 px wide screen', async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    await page.locator('.tool-item[data-tool="process_batch"]').click();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 360, `no horizontal scrolling (scrollWidth ${width})`);
    await shot('mobile');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('takes the overview screenshot (docs/console.png)', async () => {
    await page.locator('#clear-finished').click();
    assert.equal(await page.locator('.task-card').count(), 0);
    await run('greet', { name: 'Ada' });
    const batch = await run('process_batch', { items: 12, delayMs: 400, label: 'nightly' });
    const hello = await run('hello_world');
    await hello.locator('.input-request').waitFor({ timeout: 20_000 });
    await until('a third of the batch', async () => Number(await batch.locator('progress').getAttribute('value')) >= 4, 30_000);
    await page.locator('.tool-item[data-tool="process_batch"]').click();
    await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
    await page.screenshot({ path: join(SHOTS, 'overview.png') });
    await hello.getByLabel('Your name').fill('Ada');
    await hello.getByRole('button', { name: 'Accept' }).click();
    await batch.getByRole('button', { name: 'Cancel task' }).click();
    await waitStatus(hello, 'completed', 30_000);
    await waitStatus(batch, 'cancelled', 30_000);
  });

  test("shows the principal's tasks from the server, also those started elsewhere", async () => {
    // A keyed principal (an anonymous caller has no task list: each anonymous task is its
    // own principal, docs/security.md): the console connects with an API key...
    await page.locator('#bearer-token').fill(TEST_KEYS.alice);
    await page.locator('#connect-button').click();
    await until('the keyed connection', async () => (await page.locator('#connection-status').getAttribute('data-state')) === 'ok', 30_000);
    // ...and another device (here: a plain HTTP client) starts a task as the same principal.
    const { taskId } = await ok(server.mcpUrl, 'tools/call', { name: 'process_batch', arguments: { items: 4, delayMs: 300, label: 'elsewhere' } },
      { token: TEST_KEYS.alice });
    await page.reload();
    const card = page.locator(`.task-card[data-task-id="${taskId}"]`);
    await card.waitFor({ timeout: 30_000 });
    // The task names its tool and title (its `_meta`): the card says which it is.
    assert.equal(await card.getAttribute('data-tool'), 'process_batch');
    await until('the tool\'s title', async () => /Process a batch/.test(await card.locator('h3').textContent()), 30_000);
    await waitStatus(card, 'completed', 30_000);
    assert.match(await card.locator('.result-text').textContent(), /Processed 4 items of elsewhere/);
    // Dismissed here, it stays dismissed: the server's list does not bring it back.
    await card.getByRole('button', { name: /Dismiss/ }).click();
    await page.reload();
    await until('the console reconnected', async () => (await page.locator('#connection-status').getAttribute('data-state')) === 'ok', 30_000);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(await page.locator(`.task-card[data-task-id="${taskId}"]`).count(), 0);
  });

  test('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
