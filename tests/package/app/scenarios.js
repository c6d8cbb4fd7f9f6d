// The page a web developer would write, in plain JS, importing the package BY NAME
// ("mcp-tasks-edge"): bundled by esbuild (esbuild.js) and Vite (vite.js), or loaded as
// is through an import map (plain.html). `?scenario=` picks what it does; the outcome goes
// to `window.__result` (tests/package/run.mjs reads it through WebDriver).
import { McpClient, McpError } from 'mcp-tasks-edge';

const q = new URLSearchParams(location.search);

/** An error as plain JSON: the McpError fields the tests check. */
function plain(error) {
  return { isMcpError: error instanceof McpError, name: error?.name, code: error?.code, message: String(error?.message ?? error), data: error?.data ?? null };
}

const text = (result) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** Lists the tools, calls greet and a short task whose statuses it records. */
async function exercise(client) {
  const tools = await client.listTools();
  const greet = text(await client.callTool('greet', { name: 'Ada' }));
  const statuses = [];
  const batch = text(await client.callTool('process_batch', { items: 2, delayMs: 100 }, {
    onTaskStatus: (task) => statuses.push(task.status),
  }));
  return { tools: tools.length, greet, batch, statuses };
}

const scenarios = {
  /** Connects with an API key and exercises the client. */
  async basic() {
    const client = await McpClient.connect(q.get('mcp'), { bearerToken: q.get('token'), clientInfo: { name: 'package-test', version: '1.0.0' } });
    return exercise(client);
  },
  /** A refused origin and a dead port: both reject; their data tells them apart. */
  async errors() {
    const outcome = {};
    for (const [name, url] of [['blocked', q.get('mcp')], ['unreachable', q.get('dead')]]) {
      try {
        await McpClient.connect(url, { bearerToken: q.get('token') });
        outcome[name] = { connected: true };
      } catch (error) {
        outcome[name] = plain(error);
      }
    }
    return outcome;
  },
  /** Cleanups that run twice: free() twice, close() and Symbol.dispose after free() throw
   *  nothing on any class; an AbortSignal closes listen, watchMyTasks and myTasks (one
   *  aborted before watchMyTasks resolves makes it reject with the signal's reason). */
  async handles() {
    const client = await McpClient.connect(q.get('mcp'), { bearerToken: q.get('token') });
    const handle = await client.startToolCall('process_batch', { items: 1, delayMs: 10 });
    await handle.result();
    const controller = new AbortController();
    const subscription = await client.listen([handle.taskId], () => {}, { signal: controller.signal });
    const watch = await client.watchMyTasks(() => {}, { signal: controller.signal });
    const store = client.myTasks({ signal: controller.signal });
    const connections = [subscription.connection, watch.connection, store.connection];
    const frozen = Object.isFrozen(store.getSnapshot()) && Object.isFrozen(store.getSnapshot().tasks);
    controller.abort();
    const early = new AbortController();
    early.abort(new Error('gone'));
    const rejected = await client.watchMyTasks(() => {}, { signal: early.signal }).then(() => 'resolved', (e) => e.message);
    const thrown = [];
    for (const [name, object] of Object.entries({ handle, subscription, watch, store, client })) {
      try {
        object.free();
        object.free();
        object.close?.();
        object[Symbol.dispose]?.();
      } catch (error) {
        thrown.push(`${name}: ${error.message}`);
      }
    }
    return { thrown, connections, rejected, frozen };
  },
  /** Signs in (popup or redirect) when the server answers 401, then exercises the client. */
  async signin() {
    const redirectUri = new URL(location.href);
    for (const p of ['code', 'state', 'iss']) redirectUri.searchParams.delete(p);
    const signIn = { clientId: 'package-test', mode: q.get('mode') ?? 'popup', storage: q.get('storage') ?? 'memory',
      interactive: q.get('interactive') !== '0', redirectUri: redirectUri.href };
    const client = await McpClient.connect(q.get('mcp'), { signIn });
    const cleaned = !/[?&](code|state)=/.test(location.href);
    const outcome = { signedIn: client.signedIn, cleaned, ...(await exercise(client)) };
    if (q.get('signout') === '1') {
      client.signOut();
      outcome.afterSignOut = client.signedIn;
    }
    return outcome;
  },
};

/** Loads the wasm with `init`, runs the scenario, publishes the outcome. */
export async function run(init) {
  let result;
  try {
    await init();
    result = { ok: true, ...(await scenarios[q.get('scenario')]()) };
  } catch (error) {
    result = { ok: false, error: plain(error) };
  }
  window.__result = result;
}
