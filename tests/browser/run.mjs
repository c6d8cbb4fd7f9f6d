// `make test-browser`: the browser bindings end to end.
//
//  1. the plain-Rust core of src/browser natively (`cargo test --features browser,fixtures --lib browser::`);
//  2. the TypeScript declarations: www/pkg/mcp_tasks_edge.d.ts against the committed snapshot
//     (UPDATE_SNAPSHOT=1 rewrites it) and without `any` in the API part;
//  3. the gzipped wasm size against the 150 KB budget;
//  4. tests/browser.rs in headless Chromium and Firefox (wasm-pack test) against a
//     `wrangler dev` started here, whose URL reaches the tests as MCP_TEST_URL at compile time
//     (and a loopback URL nothing listens on as MCP_DEAD_URL).
//
// Run `make client` first (the Makefile does). Prints a summary; exits non-zero on failure.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, freePort, startServer } from '../support/server.mjs';
import { tool } from '../support/scripts.mjs';

const PKG = join(ROOT, 'www', 'pkg');
const SNAPSHOT = join(ROOT, 'tests', 'browser', 'mcp_tasks_edge.d.ts.snapshot');
const BUDGET = 150 * 1024;
const results = [];

function record(name, ok, detail) {
  results.push({ name, ok, detail });
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
}

function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    console.log(`\n$ ${cmd} ${args.join(' ')}`);
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const tee = (stream) => (d) => { out += d.toString(); stream.write(d); };
    child.stdout.on('data', tee(process.stdout));
    child.stderr.on('data', tee(process.stderr));
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** Sums the `test result:` lines of cargo / wasm-bindgen-test-runner output. */
function counts(out) {
  let passed = 0, failed = 0;
  for (const m of out.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
    passed += Number(m[1]);
    failed += Number(m[2]);
  }
  return { passed, failed };
}

/** The API part of the declarations: everything before wasm-bindgen's loader types,
 *  whose export names carry build hashes. */
function apiDeclarations() {
  const dts = readFileSync(join(PKG, 'mcp_tasks_edge.d.ts'), 'utf8');
  const cut = dts.indexOf('export type InitInput');
  return cut < 0 ? dts : dts.slice(0, cut).trimEnd() + '\n';
}

async function main() {
  if (!existsSync(join(PKG, 'mcp_tasks_edge_bg.wasm'))) {
    throw new Error('www/pkg is missing: run `make client` first');
  }

  // 1. The plain-Rust core, natively.
  {
    const { code, out } = await run('cargo', ['test', '--features', 'browser,fixtures', '--lib', 'browser::']);
    const { passed, failed } = counts(out);
    record('native core (cargo test --features browser,fixtures --lib browser::)', code === 0 && passed > 0, `${passed} passed, ${failed} failed`);
  }

  // 2. TypeScript declarations.
  {
    const api = apiDeclarations();
    if (process.env.UPDATE_SNAPSHOT) writeFileSync(SNAPSHOT, api);
    const expected = existsSync(SNAPSHOT) ? readFileSync(SNAPSHOT, 'utf8') : '';
    record('.d.ts matches tests/browser/mcp_tasks_edge.d.ts.snapshot', api === expected,
      api === expected ? '' : 'the API declarations changed: review, then rerun with UPDATE_SNAPSHOT=1');
    const anys = api.split('\n').map((l, i) => [i + 1, l]).filter(([, l]) => /\bany\b/.test(l.replace(/\/\/.*|\/?\*.*$/, '')));
    record('.d.ts declares no `any`', anys.length === 0, anys.map(([n, l]) => `line ${n}: ${l.trim()}`).join('; '));
    const pkgJs = readFileSync(join(PKG, 'mcp_tasks_edge.js'), 'utf8');
    record('McpError is exported by the module', /export \{ McpError \}/.test(pkgJs) && /export class McpError extends Error/.test(api));
  }

  // 3. Size budget.
  {
    const wasm = readFileSync(join(PKG, 'mcp_tasks_edge_bg.wasm'));
    const gz = gzipSync(wasm, { level: 9 }).length;
    record('wasm size ≤ 150 KB gzipped', gz <= BUDGET, `${(wasm.length / 1024).toFixed(1)} KB raw, ${(gz / 1024).toFixed(1)} KB gzipped`);
  }

  // 4. Real browsers against a real server.
  const server = await startServer();
  try {
    console.log(`\nserver: ${server.mcpUrl}`);
    const env = {
      MCP_TEST_URL: server.mcpUrl,
      MCP_DEAD_URL: `http://127.0.0.1:${await freePort()}/mcp`,
      CHROMEDRIVER: '/usr/bin/chromedriver',
      GECKODRIVER: tool('geckodriver'),
      WASM_BINDGEN_TEST_TIMEOUT: '300',
    };
    for (const browser of ['chrome', 'firefox']) {
      const driver = browser === 'chrome' ? ['--chromedriver', env.CHROMEDRIVER] : ['--geckodriver', env.GECKODRIVER];
      const { code, out } = await run('wasm-pack',
        ['test', '--headless', `--${browser}`, ...driver, '.', '--features', 'browser', '--test', 'browser'], env);
      const { passed, failed } = counts(out);
      record(`tests/browser.rs in ${browser === 'chrome' ? 'Chromium' : 'Firefox'}`, code === 0 && passed > 0 && failed === 0,
        `${passed} passed, ${failed} failed`);
    }
  } finally {
    await server.stop();
  }
}

let crashed;
try {
  await main();
} catch (e) {
  crashed = e;
  console.error(e);
}
const failed = results.filter((r) => !r.ok);
console.log('\n== browser bindings summary ==');
for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name}${r.detail ? `  (${r.detail})` : ''}`);
if (crashed) console.log(`ERROR ${crashed.message}`);
console.log(failed.length || crashed ? `${failed.length} check(s) failed` : `all ${results.length} checks passed`);
process.exit(failed.length || crashed ? 1 : 0);
