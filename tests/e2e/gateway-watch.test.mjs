// The gateway hears an upstream's tool list change (docs/gateway.md, "When the tool list
// changes") under wrangler dev: in front of the TypeScript SDK 1.x server
// (tests/support/upstream.mjs), which declares tools.listChanged and sends
// notifications/tools/list_changed on its session's GET stream, the upstream's watcher
// (an UpstreamObject) holds that stream, and a tool added while the gateway runs is listed
// within seconds, the TTL set far beyond the test; a host connected with the SDK 1.x client
// (a 2025-11-25 session with its GET stream, as Claude Code connects) is told, and lists
// the new tool; so is a 2026-07-28 client listening for toolsListChanged.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sdkClient } from '../support/sdk-client.mjs';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startServer } from '../support/server.mjs';
import { gatewayVars, startUpstream } from '../support/upstream.mjs';
import { openListen } from '../support/listen.mjs';
import { ok } from './mcp.mjs';

let upstream;
let gateway;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  upstream = await startUpstream();
  const vars = { ...gatewayVars(upstream, 'upstream-only-secret', 3000), UPSTREAM_LIST_TTL_MS: '600000' };
  gateway = await startServer({ vars });
});
const clients = [];
after(async () => {
  for (const c of clients) { try { await c.close(); } catch { /* closed */ } }
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

test('a 2025-11-25 host is told with notifications/tools/list_changed and lists the new tool', { timeout: 60_000 }, async () => {
  let told = 0;
  const client = await sdkClient(gateway.mcpUrl, { name: 'gateway-watch', clients,
    setup: (c) => c.setNotificationHandler(ToolListChangedNotificationSchema, () => { told += 1; }) });
  assert.equal(client.getServerCapabilities().tools.listChanged, true);
  // The sessions' reserved name is no resource: a client cannot subscribe to it.
  await assert.rejects(client.subscribeResource({ uri: ':tools/list_changed' }), (e) => e.code === -32602 && /is not a resource's URI/.test(e.message));
  const before = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(!before.includes('ts_second'));
  const start = Date.now();
  upstream.addTool('second');
  await until(() => told > 0, 15_000, 'notifications/tools/list_changed at the host');
  const took = Date.now() - start;
  const after = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(after.includes('ts_second'), `the list the host asks for on hearing it: ${after}`);
  console.log(`# the host was told ${took} ms after the upstream added ts_second`);
});

test('a 2026-07-28 client listening for toolsListChanged is told, and lists the new tool', { timeout: 60_000 }, async () => {
  const stream = await openListen(gateway.mcpUrl, [], { id: 'tools', notifications: { toolsListChanged: true } });
  try {
    const ack = await stream.until((m) => m.method === 'notifications/subscriptions/acknowledged');
    assert.equal(ack.params.notifications.toolsListChanged, true);
    assert.ok(!(await names()).includes('ts_third'));
    const start = Date.now();
    upstream.addTool('third');
    const told = await stream.until((m) => m.method === 'notifications/tools/list_changed', 15_000);
    assert.equal(told.params._meta['io.modelcontextprotocol/subscriptionId'], 'tools');
    console.log(`# the listening client was told ${Date.now() - start} ms after the upstream added ts_third`);
    assert.ok((await names()).includes('ts_third'));
  } finally {
    stream.close();
  }
});
