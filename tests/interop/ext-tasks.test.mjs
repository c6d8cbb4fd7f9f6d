// The official Tasks client (@modelcontextprotocol/ext-tasks, pinned in package-lock.json)
// against the server under wrangler dev, unmodified, in both of its generations:
// V2 = 2026-07-28 with the Tasks extension, V1 = 2025-11-25 with legacy tasks, on the same
// endpoint. Each scenario is what an application does: a sync call, a task to completion,
// a task that asks for input, a cancel, a task resumed from a new client, and pushed
// status (subscriptions/listen in V2; status notifications on the session's stream in V1).
// Every caller uses the same API key, so a new client (a new session in V1) is the same
// principal and may resume the task; one scenario resumes without a key, where the task id
// is the key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resultFromTaskOutcome, TaskCancelledError } from '@modelcontextprotocol/ext-tasks/client';
import { startServer, TEST_KEYS } from '../support/server.mjs';
import { answering, connect, TASKS, within } from './host.mjs';

let server;
const open = [];
before(async () => { server = await startServer(); });
after(async () => {
  for (const c of open) await c.close();
  await server?.stop();
});

const token = TEST_KEYS.alice;
const LONG = 30_000;

async function client(generation, options = {}) {
  const c = await connect(server.mcpUrl, { generation, token, onInputRequest: answering(), ...options });
  open.push(c);
  return c;
}

const text = (result) => result.content.map((c) => c.text).join('');
/** What the V1 generation must be told to run a tool as a task (optional tools otherwise run inline). */
const asTask = (generation) => (generation === 'v1' ? { task: { preference: 'require' } } : {});

for (const generation of ['v2', 'v1']) {
  describe(`ext-tasks ${generation === 'v2' ? 'V2 (2026-07-28)' : 'V1 (2025-11-25)'}`, () => {
    test('sync call: an immediate result', async () => {
      const { session } = await client(generation);
      const execution = await session.callTool('greet', { name: 'Ada' });
      assert.equal(execution.kind, 'immediate');
      const { outcome } = await within(LONG, execution.settle(), 'greet');
      assert.equal(text(resultFromTaskOutcome(outcome)), 'Hello, Ada!');
    });

    test('task to completion: the result passes the package\'s schema', async () => {
      const { session, wire } = await client(generation);
      const execution = await session.callTool('slow_compute', { seconds: 1 }, asTask(generation));
      assert.equal(execution.kind, 'task');
      const { outcome } = await within(LONG, execution.settle(), 'slow_compute');
      assert.equal(outcome.status, 'completed', String(outcome.error?.cause?.cause ?? outcome.error));
      assert.equal(text(resultFromTaskOutcome(outcome)), 'slow_compute: computed after 1 s');
      if (generation === 'v2') {
        const done = wire.filter((w) => w.method === 'tasks/get').at(-1).response.result;
        assert.equal(done.result.resultType, 'complete');
      }
    });

    test('task with input: the question reaches the application, the answer the task', async () => {
      const asked = [];
      const { session } = await client(generation, { onInputRequest: answering(asked) });
      const execution = await session.callTool('confirm_delete', { filename: 'a.txt' });
      assert.equal(execution.kind, 'task');
      const { outcome } = await within(LONG, execution.settle(), 'confirm_delete');
      assert.equal(outcome.status, 'completed', String(outcome.error));
      assert.equal(text(resultFromTaskOutcome(outcome)), 'Deleted a.txt.');
      assert.equal(asked.length, 1, 'asked exactly once');
      assert.equal(asked[0].request.kind, 'elicitation');
      assert.equal(asked[0].request.params.message, 'Delete a.txt?');
      assert.equal(asked[0].context.taskId, execution.handle.taskId);
    });

    test('task with two questions at once', async () => {
      const asked = [];
      const { session } = await client(generation, { onInputRequest: answering(asked) });
      const execution = await session.callTool('multi_input', {});
      const { outcome } = await within(LONG, execution.settle(), 'multi_input');
      assert.equal(text(resultFromTaskOutcome(outcome)), 'Both questions answered.');
      assert.deepEqual(asked.map((a) => a.request.params.message).sort(),
        ['Answer the first question', 'Answer the second question']);
    });

    test('cancel: the task ends cancelled on the server', async () => {
      const { session } = await client(generation);
      const execution = await session.callTool('slow_compute', { seconds: 60 }, asTask(generation));
      await within(LONG, execution.cancel(), 'cancel');
      const { outcome } = await within(LONG, execution.settle(), 'settle after cancel');
      assert.equal(outcome.status, 'cancelled');
      assert.throws(() => resultFromTaskOutcome(outcome), TaskCancelledError);
      const other = await client(generation);
      const view = await within(LONG, other.session.task(execution.handle.taskId).snapshot(), 'snapshot');
      assert.equal(view.status, 'cancelled');
    });

    test('resume from a new client: the reference survives the first client', async () => {
      const first = await client(generation);
      const execution = await first.session.callTool('slow_compute', { seconds: 2 }, asTask(generation));
      const reference = execution.serializeReference();
      // Hand the task off: detach, and let the local execution settle before closing the
      // client (closing a session cancels the executions it still tracks).
      await execution.detach();
      await execution.result();
      await first.close();
      const second = await client(generation);
      const resumed = await within(LONG, second.session.resumeTask(JSON.parse(JSON.stringify(reference))), 'resume');
      const { outcome } = await within(LONG, resumed.settle(), 'resumed settle');
      assert.equal(text(resultFromTaskOutcome(outcome)), 'slow_compute: computed after 2 s');
    });

    test('resume from a new client, anonymously: the task id is the key', async () => {
      // No credential: in V1 each session is its own anonymous principal, and reaches
      // another anonymous session's task by its id (docs/security.md "Anonymous callers").
      const first = await client(generation, { token: undefined });
      const execution = await first.session.callTool('slow_compute', { seconds: 2 }, asTask(generation));
      const reference = execution.serializeReference();
      await execution.detach();
      await execution.result();
      await first.close();
      const second = await client(generation, { token: undefined });
      const resumed = await within(LONG, second.session.resumeTask(JSON.parse(JSON.stringify(reference))), 'resume');
      const { outcome } = await within(LONG, resumed.settle(), 'resumed settle');
      assert.equal(text(resultFromTaskOutcome(outcome)), 'slow_compute: computed after 2 s');
    });

    test('resume a task waiting for input: the new client answers it', async () => {
      // The first client's user never answers; its handler gives up when the package
      // ends the input lifetime (detach).
      const never = (_request, context) => new Promise((_, reject) => {
        context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true });
      });
      const first = await client(generation, { onInputRequest: never });
      const execution = await first.session.callTool('confirm_delete', { filename: 'b.txt' });
      const reference = execution.serializeReference();
      await within(LONG, (async () => {
        for await (const event of execution.updates()) {
          if (event.type === 'task' && event.task.status === 'input_required') return;
        }
      })(), 'input_required');
      await execution.detach();
      await within(LONG, execution.result(), 'detached');
      await first.close();
      const asked = [];
      const second = await client(generation, { onInputRequest: answering(asked) });
      const resumed = await within(LONG, second.session.resumeTask(reference), 'resume');
      const { outcome } = await within(LONG, resumed.settle(), 'resumed settle');
      assert.equal(text(resultFromTaskOutcome(outcome)), 'Deleted b.txt.');
      assert.equal(asked.length, 1);
    });

    test('pushed status: the package takes the server\'s notifications', async () => {
      const c = await client(generation);
      const execution = await c.session.callTool('process_batch', { items: 3, delayMs: 400 }, asTask(generation));
      const taskId = execution.handle.taskId;
      let subscription;
      if (generation === 'v2') subscription = await within(LONG, c.client.listen({ taskIds: [taskId] }), 'listen');
      const { outcome } = await within(LONG, execution.settle(), 'process_batch');
      subscription?.close();
      assert.equal(outcome.status, 'completed', String(outcome.error));
      const method = generation === 'v2' ? 'notifications/tasks' : 'notifications/tasks/status';
      const pushed = c.notifications.filter((n) => n.method === method && n.params.taskId === taskId);
      assert.ok(pushed.length >= 1, `no ${method} reached the session`);
      console.log(`# ${generation}: ${method} for the task: ${pushed.map((n) => n.params.status).join(', ')}`);
      const last = pushed.at(-1).params;
      assert.equal(last.status, 'completed');
      if (generation === 'v2') assert.equal(last.result.resultType, 'complete');
    });
  });
}

test('V2: the server declares the extension the package looks for', async () => {
  const { client: c } = await client('v2');
  assert.deepEqual(c.getServerCapabilities().extensions?.[TASKS], {});
});
