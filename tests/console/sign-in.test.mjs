// The console's "Sign in" end to end: Debian's Chromium (playwright-core) against a
// `wrangler dev` that refuses anonymous callers and trusts a local OAuth issuer
// (tests/support/issuer.mjs, which approves at once). On load the console connects
// without opening a window and offers "Sign in"; the button signs in through a popup
// (authorization code + PKCE), a reload stays signed in (sessionStorage), "Sign out"
// forgets the token.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startServer } from '../support/server.mjs';
import { startIssuer } from '../support/issuer.mjs';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
  '--disable-component-update', '--disable-sync'];

let issuer;
let server;
let browser;
let page;
const pageErrors = [];

const state = () => page.locator('#connection-status').getAttribute('data-state');
const statusText = () => page.locator('#connection-status').textContent();
const authorizations = () => issuer.log.filter((l) => l.endpoint === 'authorize');

async function until(what, probe, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try { last = await probe(); if (last) return last; } catch (e) { last = e; }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)}; status: ${await statusText()})`);
}

describe('web console sign-in', () => {
  before(async () => {
    issuer = await startIssuer();
    await issuer.addKey('console-key', 'RS256');
    issuer.publish('console-key');
    server = await startServer({ vars: { ALLOW_ANONYMOUS: 'false', OAUTH_ISSUER: issuer.url, OAUTH_REQUIRED_SCOPES: 'mcp:tools' } });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(server.url);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await issuer?.stop();
  });

  test('on load: no window opens, the status names the authorization server, Sign in is offered', async () => {
    await until('the refusal', async () => (await state()) === 'error');
    assert.match(await statusText(), new RegExp(`needs you to sign in \\(with ${issuer.url.replace(/[.:/]/g, '\\$&')}\\)`));
    assert.equal(await page.locator('#sign-in-button').isVisible(), true);
    assert.equal(await page.locator('#sign-out-button').isVisible(), false);
    assert.equal(authorizations().length, 0, 'nothing was asked of the issuer before the click');
    assert.equal(browser.contexts()[0].pages().length, 1, 'no window opened');
  });

  test('Sign in: a popup signs in with PKCE and the console connects', async () => {
    const popup = page.waitForEvent('popup');
    await page.locator('#sign-in-button').click();
    const win = await popup;
    await until('a connection', async () => (await state()) === 'ok');
    assert.match(await statusText(), /Connected to mcp-tasks-edge .*\(signed in\)/);
    await until('the popup to close', () => win.isClosed());
    const [authorization] = authorizations();
    assert.equal(authorization.client_id, 'mcp-tasks-console');
    assert.equal(authorization.redirect_uri, `${server.url}/signed-in`);
    assert.equal(authorization.code_challenge_method, 'S256');
    assert.equal(authorization.resource, server.mcpUrl);
    assert.equal(await page.locator('#sign-in-button').isVisible(), false);
    assert.equal(await page.locator('#sign-out-button').isVisible(), true);
    // The console works as the signed-in user: a tool runs.
    await page.locator('.tool-item[data-tool="greet"]').click();
    await page.locator('#tool-form').getByLabel('name').fill('Ada');
    await page.locator('#run-button').click();
    const card = page.locator('.task-card[data-tool="greet"]').first();
    await until('the greeting', async () => (await card.locator('.result-text').textContent().catch(() => '')).includes('Hello, Ada!'));
  });

  test('a reload stays signed in (the token is in sessionStorage), with no new authorization', async () => {
    await page.reload();
    await until('a connection', async () => (await state()) === 'ok');
    assert.match(await statusText(), /\(signed in\)/);
    assert.equal(authorizations().length, 1);
  });

  test('Sign out forgets the token: the console needs sign-in again', async () => {
    await page.locator('#sign-out-button').click();
    await until('the refusal', async () => (await state()) === 'error');
    assert.equal(await page.locator('#sign-in-button').isVisible(), true);
    assert.equal(await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('mcp-tasks-edge/sign-in')).length), 0);
  });

  test('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
