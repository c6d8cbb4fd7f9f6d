// `make test-package`: the npm package as a web developer uses it, in headless Chromium
// and Firefox (through WebDriver) against `wrangler dev` and a local OAuth issuer.
//
//  1. the tarball `make client` packed (target/npm): the package.json inside it (name, ESM
//     exports, types) and its contents (the wasm and every snippet its glue imports);
//  2. a web app (tests/package/app, copied to target/package-test) installs the tarball
//     with npm and imports it BY NAME: bundled by esbuild (the wasm as a file, passed to
//     `init`) and by Vite (no configuration: `vite build`, and the `vite` dev server with
//     its dependency pre-bundling), and unbundled through an import map;
//  3. each page connects with an API key, lists tools, calls a tool and a task; the
//     esbuild pages run under the Content-Security-Policy docs/web-apps.md gives;
//  4. a page on an origin the server refuses (ALLOWED_ORIGINS), and a dead port: both
//     reject, and `data.reason` says "blocked" for one and "could not reach" for the other;
//  5. sign-in: a 401 leads to the issuer's metadata, authorization code + PKCE in a popup
//     (memory) and by redirect (sessionStorage, then a reload that needs no new sign-in),
//     a refresh before expiry and after a 401, a refusal, and `interactive: false`;
//  6. a "my tasks" page under 100 lines (app/my-tasks.*, my-tasks.mjs): every task of the
//     caller, new ones included, live on one stream, with no error in the console;
//  7. the same in React under StrictMode on `myTasks()` (app/react-tasks.*, react-tasks.mjs):
//     finished tasks too, a question answered with a form typed from its schema, a task
//     cancelled, a reload; and cleanups that run twice (the `handles` scenario).
//
// Prints PASS/FAIL per check and a summary; exits non-zero on failure. `PACKAGE_ONLY=react`
// runs only the React page and the `handles` scenario (while working on them).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { build as viteBuild, createServer as viteServer } from 'vite';
import { ROOT, freePort, startServer } from '../support/server.mjs';
import { startIssuer } from '../support/issuer.mjs';
import { serveStatic } from '../support/static.mjs';
import { BROWSERS, openBrowser } from './webdriver.mjs';
import { myTasks } from './my-tasks.mjs';
import { reactTasks } from './react-tasks.mjs';

const APP = join(ROOT, 'target', 'package-test');
const ONLY_REACT = process.env.PACKAGE_ONLY === 'react';
const results = [];

function check(name, ok, detail = '') {
  results.push({ name, ok: Boolean(ok), detail });
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
}

/** The newest tarball of target/npm and its file list. */
function tarball() {
  const dir = join(ROOT, 'target', 'npm');
  const name = existsSync(dir) && readdirSync(dir).filter((f) => /^mcp-tasks-edge-.*\.tgz$/.test(f)).sort().pop();
  if (!name) throw new Error('no package in target/npm: run `make client` first');
  const files = execFileSync('tar', ['tzf', join(dir, name)], { encoding: 'utf8' }).trim().split('\n');
  return { path: join(dir, name), files: files.map((f) => f.replace(/^package\//, '')) };
}

/** A file of the tarball as npm will unpack it (not its source in www/pkg); '' if absent. */
const packed = ({ path, files }, file) => (files.includes(file) ? execFileSync('tar', ['xzOf', path, `package/${file}`], { encoding: 'utf8' }) : '');

function checkPackage(tgz) {
  const { files } = tgz;
  const pkg = JSON.parse(packed(tgz, 'package.json') || '{}');
  check('package.json (the tarball\'s): name, ESM, types, exports', pkg.name === 'mcp-tasks-edge' && pkg.type === 'module'
    && pkg.types === './mcp_tasks_edge.d.ts' && pkg.exports?.['.']?.types === pkg.types
    && pkg.exports['.'].default === './mcp_tasks_edge.js' && pkg.exports['./mcp_tasks_edge_bg.wasm'],
  pkg.name ? `${pkg.name}@${pkg.version}` : 'no package.json in the tarball');
  const glue = packed(tgz, 'mcp_tasks_edge.js');
  const imported = [...glue.matchAll(/^import .* from '\.\/(.*)';$/gm)].map((m) => m[1]);
  const needed = ['mcp_tasks_edge.js', 'mcp_tasks_edge.d.ts', 'mcp_tasks_edge_bg.wasm', 'package.json', ...imported];
  const missing = needed.filter((f) => !files.includes(f));
  check('the tarball holds the glue, the types, the wasm and every snippet it imports', imported.length > 0 && missing.length === 0,
    missing.length ? `missing ${missing.join(', ')}` : `${files.length} files, ${imported.length} snippet(s)`);
}

/** The web app: sources, the tarball installed by npm, the esbuild and Vite builds. */
async function buildApp(tgz) {
  rmSync(APP, { recursive: true, force: true });
  mkdirSync(APP, { recursive: true });
  cpSync(join(ROOT, 'tests', 'package', 'app'), APP, { recursive: true });
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--save', tgz], { cwd: APP, stdio: 'inherit' });
  check('npm install of the tarball', existsSync(join(APP, 'node_modules', 'mcp-tasks-edge', 'mcp_tasks_edge_bg.wasm')));
  const built = await esbuild.build({
    entryPoints: [join(APP, 'esbuild.js')], bundle: true, format: 'esm', outdir: join(APP, 'dist-esbuild'),
    loader: { '.wasm': 'file' }, absWorkingDir: APP, logLevel: 'warning', metafile: true,
  });
  check('esbuild bundles the app (the wasm as a file)', Object.keys(built.metafile.outputs).some((f) => f.endsWith('.wasm')));
  // The React page: JSX, React's development build (StrictMode's double effects happen there).
  const react = await esbuild.build({
    entryPoints: [join(APP, 'react-tasks.jsx')], bundle: true, format: 'esm', outdir: join(APP, 'dist-react'), jsx: 'automatic',
    loader: { '.wasm': 'file' }, define: { 'process.env.NODE_ENV': '"development"' }, absWorkingDir: APP, logLevel: 'warning', metafile: true,
  });
  check('esbuild bundles the React page (JSX, React from the registry)', Object.keys(react.metafile.outputs).some((f) => f.endsWith('.wasm')));
  await viteBuild({ root: APP, base: './', configFile: false, logLevel: 'warn',
    build: { outDir: join(APP, 'dist-vite'), emptyOutDir: true, rollupOptions: { input: join(APP, 'vite.html') } } });
  const assets = readdirSync(join(APP, 'dist-vite', 'assets'));
  check('Vite builds the app with no configuration (the wasm emitted as an asset)', assets.some((f) => f.endsWith('.wasm')), assets.join(', '));
}

/** The Content-Security-Policy docs/web-apps.md tells a page to send. */
const csp = (mcp, issuer) => `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' ${mcp} ${issuer}`;

async function main() {
  const pkg = tarball();
  checkPackage(pkg);
  await buildApp(pkg.path);

  const issuer = await startIssuer();
  await issuer.addKey('page-key', 'ES256');
  issuer.publish('page-key');
  const refusedPort = await freePort();
  let site, refused, dev, server;
  try {
    site = await serveStatic(APP, { headers: (path) => (path === '/esbuild.html' ? { 'content-security-policy': csp(serverOrigin(), issuer.url) } : {}) });
    refused = await serveStatic(APP, { port: refusedPort });
    dev = await viteServer({ root: APP, configFile: false, logLevel: 'warn', server: { host: '127.0.0.1', port: await freePort(), strictPort: true } });
    await dev.listen();
    dev.url = `http://127.0.0.1:${dev.config.server.port}`;
    server = await startServer({ vars: { ALLOW_ANONYMOUS: 'false', OAUTH_ISSUER: issuer.url, OAUTH_REQUIRED_SCOPES: 'mcp:tools',
      ALLOWED_ORIGINS: `${site.url},${dev.url}` } });
    // The issuer double really checks PKCE (else the sign-in checks below prove nothing).
    const forged = await fetch(`${issuer.url}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'authorization_code',
      code: 'forged', client_id: 'x', redirect_uri: 'http://x/', code_verifier: 'y'.repeat(43) }) });
    check('the test issuer refuses an unknown code', forged.status === 400 && (await forged.json()).error === 'invalid_grant');
    for (const browser of BROWSERS) await inBrowser(browser, { site, refused, dev, server, issuer });
  } finally {
    await server?.stop();
    await dev?.close();
    await site?.stop();
    await refused?.stop();
    await issuer.stop();
  }

  function serverOrigin() { return server ? new URL(server.url).origin : 'http://127.0.0.1:*'; }
}

async function inBrowser(browser, { site, refused, dev, server, issuer }) {
  const page = await openBrowser(browser);
  const B = browser === 'chromium' ? 'Chromium' : 'Firefox';
  const visit = async (origin, path, params) => {
    await page.go(`${origin}/${path}?${new URLSearchParams(params)}`);
    return page.until(`${path} ${params.scenario}`, 'return window.__result ?? null', 90_000);
  };
  try {
    const pages = [[site.url, 'esbuild.html', 'esbuild, under the documented CSP'], [site.url, 'dist-vite/vite.html', 'vite build'],
      [dev.url, 'vite.html', 'the vite dev server'], [site.url, 'plain.html', 'no bundler']];
    for (const [origin, path, how] of ONLY_REACT ? [] : pages) {
      const r = await visit(origin, path, { scenario: 'basic', mcp: server.mcpUrl, token: 'browser-test-token' });
      check(`${B}: ${how}: connect, tools, a call and a task`, r.ok && r.greet === 'Hello, Ada!' && r.tools > 3
        && /Processed 2 items/.test(r.batch) && r.statuses.at(-1) === 'completed', JSON.stringify(r).slice(0, 300));
    }

    const h = await visit(site.url, 'esbuild.html', { scenario: 'handles', mcp: server.mcpUrl, token: 'browser-test-token' });
    check(`${B}: free() twice, close() and Symbol.dispose after free(): nothing throws; a signal closes every watch`,
      h.ok && h.thrown.length === 0 && h.rejected === 'gone' && h.frozen
      && h.connections.every((c) => ['live', 'reconnecting', 'polling', 'offline'].includes(c)), JSON.stringify(h).slice(0, 300));
    if (!ONLY_REACT) {
      const dead = `http://127.0.0.1:${await freePort()}/mcp`;
      const e = await visit(refused.url, 'esbuild.html', { scenario: 'errors', mcp: server.mcpUrl, dead, token: 'browser-test-token' });
      const { blocked, unreachable } = e;
      check(`${B}: a refused origin: -32603 whose data.reason says the browser blocked the response from the URL`,
        blocked?.isMcpError && blocked.code === -32603 && blocked.data.url === server.mcpUrl && blocked.data.reachable === true
        && blocked.data.reason.startsWith(`the browser blocked the response from ${server.mcpUrl}`), JSON.stringify(blocked));
      check(`${B}: a dead port: data.reason says the browser could not reach the URL`,
        unreachable?.code === -32603 && unreachable.data.reachable === false
        && unreachable.data.reason.startsWith(`the browser could not reach ${dead}`), JSON.stringify(unreachable));

      await signIn(page, B, visit, { site, server, issuer });
    }
  } finally {
    await page.close();
  }
  if (!ONLY_REACT) await myTasks(browser, B, { site, server, token: 'browser-test-token', check });
  await reactTasks(browser, B, { site, server, token: 'browser-test-token', check });
}

async function signIn(page, B, visit, { site, server, issuer }) {
  const count = (endpoint, grant) => issuer.log.filter((l) => l.endpoint === endpoint && (!grant || l.grant_type === grant)).length;
  const base = { scenario: 'signin', mcp: server.mcpUrl };
  const before = { authorize: count('authorize'), code: count('token', 'authorization_code'), refresh: count('token', 'refresh_token') };

  // Popup, memory; tokens that expire at once: every later request refreshes first.
  issuer.signIn.expiresIn = 5;
  const popup = await visit(site.url, 'esbuild.html', { ...base, mode: 'popup', storage: 'memory', signout: '1' });
  issuer.signIn.expiresIn = 600;
  const authorization = issuer.log.filter((l) => l.endpoint === 'authorize').at(-1);
  check(`${B}: sign-in in a popup after a 401 (PKCE S256, resource), then the calls`, popup.ok && popup.signedIn === true
    && popup.greet === 'Hello, Ada!' && authorization?.code_challenge_method === 'S256' && authorization.resource === server.mcpUrl
    && authorization.scope === 'mcp:tools' && count('token', 'authorization_code') === before.code + 1, JSON.stringify(popup).slice(0, 300));
  check(`${B}: a token about to expire is refreshed before use (refresh_token grant)`, count('token', 'refresh_token') > before.refresh,
    `${count('token', 'refresh_token') - before.refresh} refreshes`);
  check(`${B}: signOut() forgets the token`, popup.afterSignOut === false);

  // A token the server refuses (wrong audience): a 401, a refresh, the same request again.
  const refreshes = count('token', 'refresh_token');
  issuer.signIn.badTokens = 1;
  const retried = await visit(site.url, 'esbuild.html', { ...base, mode: 'popup' });
  check(`${B}: a 401 with a token: refreshed once and the request sent again`, retried.ok && retried.greet === 'Hello, Ada!'
    && count('token', 'refresh_token') === refreshes + 1, JSON.stringify(retried).slice(0, 300));

  // Redirect, sessionStorage: the page leaves for the issuer and `connect` finishes on return.
  const authorizations = count('authorize');
  const redirected = await visit(site.url, 'dist-vite/vite.html', { ...base, mode: 'redirect', storage: 'session' });
  check(`${B}: sign-in by redirect: connect finishes on the page it returns to, the address cleaned`, redirected.ok
    && redirected.signedIn && redirected.cleaned && count('authorize') === authorizations + 1, JSON.stringify(redirected).slice(0, 300));
  const reloaded = await visit(site.url, 'dist-vite/vite.html', { ...base, mode: 'redirect', storage: 'session', interactive: '0' });
  check(`${B}: after a reload the token comes from sessionStorage (no new sign-in)`, reloaded.ok && reloaded.signedIn
    && count('authorize') === authorizations + 1, JSON.stringify(reloaded).slice(0, 200));

  // Without a token and not interactive: the 401 as it is. A refused authorization: a clear error.
  const quiet = await visit(site.url, 'plain.html', { ...base, interactive: '0' });
  check(`${B}: interactive: false without a token rejects with the 401 (no window)`, !quiet.ok && quiet.error.data?.httpStatus === 401
    && /authorization server/.test(quiet.error.message), JSON.stringify(quiet.error).slice(0, 300));
  issuer.signIn.deny = 'access_denied';
  const denied = await visit(site.url, 'plain.html', { ...base, mode: 'popup' });
  issuer.signIn.deny = undefined;
  check(`${B}: a refused authorization rejects with the issuer's error`, !denied.ok && denied.error.isMcpError
    && denied.error.data?.signIn === 'authorization' && /access_denied/.test(denied.error.message), JSON.stringify(denied.error).slice(0, 300));
}

let crashed;
try {
  await main();
} catch (e) {
  crashed = e;
  console.error(e);
}
const failed = results.filter((r) => !r.ok);
console.log('\n== package summary ==');
for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name}`);
if (crashed) console.log(`ERROR ${crashed.message}`);
console.log(`${results.length - failed.length} passed, ${failed.length + (crashed ? 1 : 0)} failed`);
process.exit(failed.length || crashed ? 1 : 0);
