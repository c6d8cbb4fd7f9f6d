// The official suite's tasks-* scenarios against the gateway (docs/gateway.md) in front of
// the demo: two `wrangler dev`, the demo with its conformance fixtures (the upstream), the
// gateway with none of its own and the demo as its one upstream, unprefixed, so the suite
// finds the fixture tools it calls; every call of them crosses the gateway (a task of the
// gateway following the demo's task, its questions relayed both ways). DETACH_JOBS=false:
// tasks-required-task-error asks for -32021 to a client without the extension, which the
// upstream answers when the gateway may not make a job of the call (with jobs on, the
// gateway serves that client a job instead, by design: docs/gateway.md).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';

const TASKS = ['tasks-lifecycle', 'tasks-capability-negotiation', 'tasks-dispatch-and-envelope',
  'tasks-request-headers', 'tasks-mrtr-input', 'tasks-status-notifications', 'tasks-request-state-removal',
  'tasks-required-task-error', 'tasks-wire-fields', 'tasks-mrtr-composition'];

const upstream = await startServer();
let status = 1;
try {
  const gateway = await startServer({ vars: {
    CONFORMANCE_FIXTURES: 'false',
    DETACH_JOBS: 'false',
    UPSTREAMS: JSON.stringify([{ name: 'demo', url: upstream.mcpUrl }]),
    FETCH_ALLOWED_HOSTS: 'nothing.invalid',
  } });
  try {
    console.log(`conformance through the gateway (${gateway.mcpUrl}) in front of the demo (${upstream.mcpUrl})`);
    const run = spawnSync(process.execPath, [join(ROOT, 'tests', 'conformance', 'run.mjs'), '--url', gateway.mcpUrl, ...TASKS],
      { stdio: 'inherit', timeout: 900_000 });
    status = run.status ?? 1;
  } finally {
    await gateway.stop();
  }
} finally {
  await upstream.stop();
}
process.exit(status);
