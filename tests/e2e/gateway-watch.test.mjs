// The gateway hears an upstream's tool list change (docs/gateway.md, "When the tool list
// changes") under wrangler dev: in front of the TypeScript SDK 1.x server
// (tests/support/upstream.mjs), which declares tools.listChanged and sends
// notifications/tools/list_changed on its session's GET stream, the upstream's watcher
// (an UpstreamObject) holds that stream, and a tool added while the gateway runs is listed
// within seconds, the TTL set far beyond the test.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.mjs';
import { gatewayVars, startUpstream } from '../support/upstream.mjs';
import { ok } from './mcp.mjs';

let upstream;
let gateway;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  upstream = await startUpstream();
  const vars = { ...gatewayVars(upstream, 'upstream-only-secret', 3000), UPSTREAM_LIST_TTL_MS: '600000' };
  gateway = await startServer({ vars });
});
after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

const names = async () => (await ok(gateway.mcpUrl, 'tools/list', {})).tools.map((t) => t.name);

/** Polls `check` every 200 ms until it is true, for `ms` at most; the time it took. */
async function until(check, ms, what) {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(200);
  }
  return Date.now() - start;
}

test('a tool the upstream adds is listed within seconds, long before the TTL', { timeout: 60_000 }, async () => {
  assert.ok((await names()).includes('ts_lookup'));
  assert.ok(!(await names()).includes('ts_added'));
  // The first listing asked the upstream's watcher, which opens the session's GET stream.
  await until(() => upstream.record.streams > 0, 15_000, 'the watcher holding the upstream stream');
  const listings = gateway.events().filter((e) => e.event === 'upstream.listed').length;
  upstream.addTool('added');
  const took = await until(async () => (await names()).includes('ts_added'), 10_000, 'ts_added listed');
  const relisted = gateway.events().filter((e) => e.event === 'upstream.listed').length;
  assert.ok(relisted > listings, 'listed again because of the change');
  const called = await ok(gateway.mcpUrl, 'tools/call', { name: 'ts_added', arguments: {} }, { caps: { elicitation: {} } });
  assert.equal(called.content[0].text, 'added');
  console.log(`# ts_added listed ${took} ms after the upstream added it`);
});

test('with nothing changed, the isolate asks the watcher and lists nothing again', { timeout: 30_000 }, async () => {
  const listings = gateway.events().filter((e) => e.event === 'upstream.listed').length;
  for (let i = 0; i < 6; i += 1) {
    await names();
    await sleep(500);
  }
  assert.equal(gateway.events().filter((e) => e.event === 'upstream.listed').length, listings);
  assert.equal(gateway.events().filter((e) => e.event === 'upstream.unwatched').length, 0);
});
