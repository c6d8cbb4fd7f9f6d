// A job's wait survives its object's crash: the object closes the job's watch socket
// (src/cloudflare/guard.js), and the Worker reopens it as a listen stream does
// (`fanin::Reconnects`), so the result still arrives on the same call.
//
// The task objects run in a Worker of their own here (two configurations in one
// `wrangler dev`, bound by `script_name`), as objects run in their own isolates in
// production: under one configuration the Worker shares the objects' wasm instance, and a
// crash of the object would end the waiting call too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, TEST_VARS, startServer } from '../support/server.mjs';
import { ok } from './mcp.mjs';

// Beside wrangler.toml, so its relative paths (main, the build) hold.
const FRONT = join(ROOT, '.wrangler-split-front.toml');
const OBJECTS = join(ROOT, '.wrangler-split-objects.toml');
const OBJECTS_NAME = 'mcp-tasks-objects';
const VARS = {
  ...TEST_VARS,
  // The crashed attempt's lease runs out soon, so the step is re-run within the wait.
  STEP_LEASE_MS: '3000',
  // Reading instead of watching would see the result only after the wait is over.
  TASK_POLL_INTERVAL_MS: '600000',
  INLINE_BUDGET_MS: '45000',
};
let server;

/** wrangler.toml with `name`, its bindings' objects in `scripts` (binding → Worker), no
 * static assets, and `vars` as its variables. */
function configuration(name, scripts, vars) {
  const base = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
  const lines = base.slice(0, base.indexOf('\n[vars]')).split('\n');
  const out = [];
  let table = '';
  for (const line of lines) {
    if (line.startsWith('[')) table = line;
    if (table === '[assets]') continue;
    if (line.startsWith('name = ') && table === '') {
      out.push(`name = "${name}"`);
      continue;
    }
    out.push(line);
    const binding = /^name = "(\w+)"$/.exec(line);
    if (table === '[[durable_objects.bindings]]' && binding && scripts[binding[1]]) {
      out.push(`script_name = "${scripts[binding[1]]}"`);
    }
  }
  out.push('[vars]', ...Object.entries(vars).map(([k, v]) => `${k} = ${JSON.stringify(v)}`));
  return `${out.join('\n')}\n`;
}

before(async () => {
  const defaults = Object.fromEntries([...readFileSync(join(ROOT, 'wrangler.toml'), 'utf8')
    .split('\n[vars]')[1].matchAll(/^(\w+) = "(.*)"$/gm)].map((m) => [m[1], m[2]]));
  const vars = { ...defaults, ...VARS };
  writeFileSync(FRONT, configuration('mcp-tasks-edge', { TASKS: OBJECTS_NAME }, vars));
  writeFileSync(OBJECTS, configuration(OBJECTS_NAME,
    { SESSIONS: 'mcp-tasks-edge', PRINCIPALS: 'mcp-tasks-edge' }, vars));
  const wrangler = join(ROOT, 'node_modules', '.bin', 'wrangler');
  server = await startServer({ command: [wrangler, 'dev', '-c', FRONT, '-c', OBJECTS], vars: VARS });
});
after(async () => {
  await server?.stop();
  rmSync(FRONT, { force: true });
  rmSync(OBJECTS, { force: true });
});

test('a job whose watch socket is closed by its crashing object mid-wait reconnects and delivers the result', async () => {
  // No Tasks extension: the call becomes a job and waits for its end on the watch socket.
  const started = Date.now();
  const result = await ok(server.mcpUrl, 'tools/call', { name: 'panic_once', arguments: {} }, { caps: {} });
  const elapsed = Date.now() - started;
  assert.equal(result.content?.[0]?.text, 'panic_once survived: attempt 2', JSON.stringify(result));
  assert.ok(elapsed < Number(VARS.INLINE_BUDGET_MS), `answered in ${elapsed} ms, before the wait was over`);
  // The object did crash (the guard's panic line, from the objects' Worker).
  const panics = server.events().filter((e) => e.event === 'panic');
  assert.ok(panics.length >= 1, server.log());
  console.log(`# panic_once answered in ${elapsed} ms after ${panics.length} crash(es)`);
});
