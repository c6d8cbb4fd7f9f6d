// The panic guard, bundled into the Worker by wasm-bindgen as a snippet of this crate
// (src/cloudflare/export.rs calls it): nothing for a server author to copy.
//
// A Rust panic aborts the wasm instance (wasm32 has no unwinding on stable Rust). The
// requests the instance was handling then never settle: their futures died with it, and
// the runtime would end them with a bare HTTP 500 ("the Worker hung"). The `worker`
// crate's panic hook marks the instance with `__worker_init_state.criticalError` (the shim
// worker-build generates reinitialises it on the next request; in a build whose panics
// abort at once, the starter's smallest, no hook runs and the shim sets the mark itself
// when the trap's `WebAssembly.RuntimeError` reaches it); every export of
// `export_worker!` hands its work to `guard` below, which watches that mark and
// settles the work itself when the instance dies:
// - the Worker's fetch and a session's requests answer JSON-RPC -32603 with the
//   request's id;
// - a task object's alarm rejects, so the runtime retries it (the lease in the task
//   record then re-runs the step, up to STEP_MAX_ATTEMPTS), and the object's watch
//   sockets (pushed notifications) are closed with 1011: the listen streams holding them
//   reconnect and read the durable state again, so a crash is surfaced, not hidden; its
//   requests answer the object protocol's -32603 and its WebSocket handlers settle;
// - the principal's quota ledger answers the object protocol's -32603, so the Worker
//   refuses instead of hanging;
// - the session and principal objects' alarms (expiry, cleanup) reject and are retried.

const CRASH = Symbol('crash');
const inFlight = new Set();
let hooked = false;

/**
 * Watches the instance's crash mark. Done on first use: the `worker` crate's own snippet
 * creates `__worker_init_state`, and the order snippets are evaluated in is not ours.
 */
function hookCrashMark() {
  const state = globalThis.__worker_init_state;
  if (hooked || !state) return;
  hooked = true;
  let critical = state.criticalError;
  Object.defineProperty(state, 'criticalError', {
    configurable: true,
    enumerable: true,
    get: () => critical,
    set(value) {
      critical = value;
      if (value) for (const crashed of inFlight) crashed();
    },
  });
}

/**
 * `work` (the promise of one invocation of `method` on `object`: the Worker, or a Durable
 * Object class), settled even if the instance crashes first. A crash is logged (the
 * `panic` event of src/ops/log), then answered as the invocation needs:
 * - the Worker's fetch, a session's fetch: JSON-RPC -32603 with the request's id;
 * - a task object (`ctx`, its DurableObjectState, outlives the crashed wasm instance): its
 *   watchers are closed, then a fetch answers the object protocol's error (-32603, which
 *   the Worker passes to its client with the request's id), an alarm rejects (the runtime
 *   retries it), a WebSocket handler settles;
 * - the quota ledger's fetch: the object protocol's -32603 too, so the Worker refuses
 *   instead of hanging;
 * - any other alarm rejects, and is retried.
 * An error the Worker's or a session's fetch returns (no crash) is logged and answered
 * JSON-RPC -32603 with the request's id too, never the runtime's plain-text 500.
 *
 * The answer is made in this invocation's own context: the instance is shared by every
 * invocation of the isolate (a Worker and its objects, under `wrangler dev` at least), so
 * the crash may be noticed by another one, which only resolves `settled`; the continuation
 * attached here runs in the context that created it (workerd's cross-context promise
 * resolution), where a Response may be made. Every request pays for it, so it costs two
 * promises and one entry in a set: no async frame, no `Promise.race` (whose losing
 * promise would keep a reaction per call). A crash settles it from the mark's setter, or
 * from `work` rejecting with the trap.
 *
 * One function for all (not one each): wasm-bindgen imports a function that needs no
 * glue once per use, which repeats the module's key in its import object.
 */
export function guard(work, object, method, request, ctx) {
  hookCrashMark();
  const settled = new Promise((resolve, reject) => {
    let done = false;
    const settle = (how, value) => {
      if (done) return;
      done = true;
      inFlight.delete(onCrash);
      how(value);
    };
    const onCrash = () => settle(resolve, CRASH);
    inFlight.add(onCrash);
    work.then(
      (value) => settle(resolve, value),
      (error) => (error instanceof WebAssembly.RuntimeError ? settle(resolve, CRASH) : settle(reject, error)),
    );
  });
  return settled.then(
    (value) => (value === CRASH ? afterCrash(object, method, request, ctx) : value),
    (error) => {
      if (method !== 'fetch' || (object !== 'Worker' && object !== 'SessionObject')) throw error;
      console.error(`${object} fetch failed: ${error}`);
      return rpcError(request, FAILED);
    },
  );
}

/** What an invocation answers once the instance crashed under it (see `guard`). */
function afterCrash(object, method, request, ctx) {
  logPanic(object, method, request);
  if (object === 'TaskObject') {
    // Tell every watcher the object crashed: they reconnect and re-read its state.
    for (const ws of ctx?.getWebSockets?.() ?? []) {
      try { ws.close(1011, 'the task object crashed'); } catch { /* already closed */ }
    }
  }
  if (method === 'alarm') throw new Error(`the ${object} crashed in its alarm; the runtime retries it`);
  if (method !== 'fetch') return undefined;
  switch (object) {
    case 'Worker':
    case 'SessionObject':
      return rpcError(request, CRASHED);
    default: {
      // The object protocol's error (`tasks::protocol`: 422 and an ErrorObject).
      const message = object === 'PrincipalObject' ? LEDGER_CRASHED : OBJECT_CRASHED;
      return new Response(JSON.stringify({ code: -32603, message }), {
        status: 422,
        headers: { 'content-type': 'application/json' },
      });
    }
  }
}

const CRASHED = 'Internal error: the server crashed while handling this request (a tool step panicked). Nothing was stored; the next request is served normally.';
const FAILED = 'Internal error: the server could not complete this request (the reason is in its log); the next request is served normally.';
const LEDGER_CRASHED = 'Internal error: the quota ledger crashed while handling this request; the next request is served normally.';
const OBJECT_CRASHED = 'Internal error: the task object crashed while handling this request (a tool hook panicked); read the task again for its state.';

/**
 * The structured log line of a crash (the `panic` event of src/ops/log, same format: one
 * JSON object, `event` and `level` first). The panic's own message is the runtime's
 * previous line; nothing of the request is logged but its id.
 */
function logPanic(object, method, request) {
  const line = { event: 'panic', level: 'error' };
  const requestId = request?.headers?.get('cf-ray') ?? request?.headers?.get('x-mcp-tasks-request-id');
  if (requestId) line.requestId = requestId;
  line.error = 'a Rust panic aborted the wasm instance; the runtime reinitialises it';
  line.object = object;
  line.method = method;
  console.log(JSON.stringify(line));
}

/**
 * The answer to a request whose instance crashed or whose handler failed: JSON-RPC -32603
 * saying `message`, with the request's id, read from the body the Rust side left on the request when it read it (`mcpBody`, see
 * `read_whole_body` in src/cloudflare/http.rs); no id when it crashed before that.
 */
function rpcError(request, message) {
  let id = null;
  try {
    const body = JSON.parse(new TextDecoder().decode(request.mcpBody));
    if (typeof body?.id === 'string' || typeof body?.id === 'number') id = body.id;
  } catch { /* no body read, or not JSON: the id stays null */ }
  const error = { code: -32603, message };
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error }), {
    status: 500,
    headers: { 'content-type': 'application/json' },
  });
}
