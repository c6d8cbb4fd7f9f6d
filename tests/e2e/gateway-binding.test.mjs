// The gateway (docs/gateway.md) in front of an `agents` Worker (agents 0.32
// `createMcpHandler`, tests/bench/peer-agents/gateway-upstream.js) reached through a
// Cloudflare service binding: one `wrangler dev` with both configurations, the gateway's
// (this project's wrangler.toml with a `[[services]]` binding) and the upstream's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startServer } from '../support/server.mjs';
import { sdkClient } from '../support/sdk-client.mjs';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { answering, connect, within } from '../interop/host.mjs';
import { ok, pollUntil, rpc, terminal } from './mcp.mjs';

const PEER = join(ROOT, 'tests', 'bench', 'peer-agents');
// Beside wrangler.toml, so its relative paths (main, assets, the build) hold.
const CONFIG = join(ROOT, '.wrangler-gateway-binding.toml');
let gateway;

before(async () => {
  const install = spawnSync('sh', [join(PEER, 'install.sh')], { stdio: 'inherit', timeout: 600_000 });
  assert.equal(install.status, 0, 'the agents peer installs');
  writeFileSync(CONFIG, `${readFileSync(join(ROOT, 'wrangler.toml'), 'utf8')}
[[services]]
binding = "AGENTS"
service = "gateway-agents-upstream"
`);
  const wrangler = join(ROOT, 'node_modules', '.bin', 'wrangler');
  gateway = await startServer({
    command: [wrangler, 'dev', '-c', CONFIG, '-c', join(PEER, 'gateway-upstream.toml')],
    vars: {
      UPSTREAMS: JSON.stringify([{ name: 'agents', binding: 'AGENTS', prefix: 'agents_' }]),
      FETCH_ALLOWED_HOSTS: 'nothing.invalid',
      INLINE_BUDGET_MS: '2000',
    },
  });
});
after(async () => {
  await gateway?.stop();
  rmSync(CONFIG, { force: true });
});

test('the agents Worker\'s tools are listed under the prefix, reached through the binding', async () => {
  const { tools } = await ok(gateway.mcpUrl, 'tools/list', {});
  const names = tools.map((t) => t.name).filter((n) => n.startsWith('agents_'));
  assert.deepEqual(names.sort(), ['agents_deploy', 'agents_deploy_again', 'agents_greet', 'agents_slow_sum']);
  const greeted = await ok(gateway.mcpUrl, 'tools/call', { name: 'agents_greet', arguments: { name: 'Ada' } }, { caps: {} });
  assert.equal(greeted.content[0].text, 'Hello from agents, Ada!');
});

test('a slow tool of the agents Worker becomes a task and its result validates', async () => {
  const created = await ok(gateway.mcpUrl, 'tools/call', { name: 'agents_slow_sum', arguments: { a: 2, b: 40, seconds: 3 } });
  assert.equal(created.resultType, 'task');
  const done = await pollUntil(gateway.mcpUrl, created.taskId, terminal, { timeoutMs: 30_000 });
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.deepEqual(done.result.structuredContent, { sum: 42 });
  const lines = gateway.events().filter((e) => e.event === 'step.finished' && e.upstream === 'agents');
  assert.ok(lines.some((l) => l.tool === 'agents_slow_sum' && l.outcome === 'completed'), JSON.stringify(lines));
});

test('a question asked by MRTR becomes the task\'s: answered with tasks/update, the call retried', async () => {
  const created = await ok(gateway.mcpUrl, 'tools/call', { name: 'agents_deploy', arguments: { env: 'prod' } });
  assert.equal(created.resultType, 'task');
  const asking = await pollUntil(gateway.mcpUrl, created.taskId, (t) => t.status === 'input_required' || terminal(t), { timeoutMs: 30_000 });
  assert.equal(asking.status, 'input_required', JSON.stringify(asking));
  const [[key, question]] = Object.entries(asking.inputRequests);
  assert.equal(question.method, 'elicitation/create');
  assert.equal(question.params.message, 'Deploy to prod?');
  await ok(gateway.mcpUrl, 'tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } });
  const done = await pollUntil(gateway.mcpUrl, created.taskId, terminal, { timeoutMs: 30_000 });
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.result.content[0].text, 'deployed to prod');
});

test('for a client without tasks, the question is an MRTR round of its own call', async () => {
  const caps = { elicitation: { form: {} } };
  const first = await ok(gateway.mcpUrl, 'tools/call', { name: 'agents_deploy_again', arguments: { env: 'staging' } }, { caps });
  assert.equal(first.resultType, 'input_required', JSON.stringify(first));
  const [[key, question]] = Object.entries(first.inputRequests);
  assert.equal(question.params.message, 'Deploy to staging?');
  const { status, body } = await rpc(gateway.mcpUrl, 'tools/call', { name: 'agents_deploy_again', arguments: { env: 'staging' },
    inputResponses: { [key]: { action: 'accept', content: { confirm: true } } }, requestState: first.requestState }, { caps });
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.result.resultType, 'complete', JSON.stringify(body));
  assert.equal(body.result.content[0].text, 'deployed to staging');
});

test('the question reaches the SDK 1.x client\'s elicitation handler, and the official Tasks client\'s', async () => {
  const asked = [];
  const client = await sdkClient(gateway.mcpUrl, { name: 'gateway-sdk-v1', capabilities: { elicitation: { form: {} } },
    setup: (c) => c.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    }) });
  try {
    const result = await client.callTool({ name: 'agents_deploy', arguments: { env: 'eu' } }, undefined, { timeout: 60_000 });
    assert.deepEqual(asked, ['Deploy to eu?']);
    assert.equal(result.content[0].text, 'deployed to eu');
  } finally {
    await client.close();
  }
  const tasks = await connect(gateway.mcpUrl, { generation: 'v2', onInputRequest: answering() });
  try {
    const execution = await tasks.session.callTool('agents_deploy', { env: 'us' });
    const { outcome } = await within(30_000, execution.settle(), 'agents_deploy');
    assert.equal(outcome.status, 'completed', String(outcome.error));
    assert.equal(resultFromTaskOutcome(outcome).content[0].text, 'deployed to us');
  } finally {
    await tasks.close();
  }
});
