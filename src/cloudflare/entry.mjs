// The Worker's JavaScript entry, around the shim worker-build generates (./index.js).
//
// A Rust panic aborts the wasm instance (wasm32 has no unwinding on stable Rust). The
// requests the instance was handling then never settle: their futures died with it, and
// the runtime would end them with a bare HTTP 500 ("the Worker hung"). The shim marks
// the instance with `__worker_init_state.criticalError` and reinitialises it on the next
// request; this wrapper watches that mark and answers every request in flight with a
// JSON-RPC -32603 error carrying the request's id. The task Durable Object is wrapped the
// same way: a crashed alarm rejects, so the runtime retries it (the lease in the task
// record then re-runs the step, up to STEP_MAX_ATTEMPTS), and the object's watch sockets
// (pushed notifications) are closed with 1011: the listen streams holding them reconnect
// and read the durable state again, so a crash is surfaced, not hidden. The WebSocket
// handlers are wrapped too, so a crash there cannot leave them unsettled. PrincipalObject,
// the quota ledger, answers a crashed request with 500 so the Worker refuses instead of
// hanging. Copy this file next to the build output (docs/authoring.md;
// rename TaskObject, SessionObject and PrincipalObject below if your Durable Object
// classes are named otherwise); `scripts/build-worker.sh` does it for the demo.
import Shim, {
  PrincipalObject as ShimPrincipalObject,
  SessionObject as ShimSessionObject,
  TaskObject as ShimTaskObject,
} from './index.js';
export * from './index.js';

const state = globalThis.__worker_init_state;
const inFlight = new Set();
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

const CRASHED = Symbol('crashed');

/**
 * The structured log line of a crash (the `panic` event of src/ops/log.rs, same format:
 * one JSON object, `event` and `level` first). The panic's own message is the runtime's
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

/** `work`, or CRASHED if the instance aborts first (or `work` rejects because of it). */
async function watch(work) {
  let onCrash;
  const crash = new Promise((resolve) => { onCrash = () => resolve(CRASHED); });
  inFlight.add(onCrash);
  try {
    return await Promise.race([work, crash]);
  } catch (error) {
    if (error instanceof WebAssembly.RuntimeError) return CRASHED;
    throw error;
  } finally {
    inFlight.delete(onCrash);
  }
}

export default class Entrypoint extends Shim {
  async fetch(request) {
    const response = await watch(super.fetch(request));
    if (response !== CRASHED) return response;
    logPanic('Worker', 'fetch', request);
    return crashed(request);
  }
}

/** A session's object serves its requests' steps: a crash answers them -32603 too. */
export class SessionObject extends ShimSessionObject {
  async fetch(request) {
    const response = await watch(super.fetch(request));
    if (response !== CRASHED) return response;
    logPanic('SessionObject', 'fetch', request);
    return crashed(request);
  }
}

// The object's DurableObjectState, kept outside the instance: the shim replaces the
// wasm-backed instance after a crash, the JS object (and this map's key) stays.
const contexts = new WeakMap();
const traced = new WeakSet();

export class TaskObject extends ShimTaskObject {
  constructor(ctx, env) {
    super(ctx, env);
    contexts.set(this, ctx);
    // TRACE_OBJECT_REQUESTS=true logs one line per invocation of the object (what the
    // notification bench counts); off by default.
    if (env?.TRACE_OBJECT_REQUESTS === 'true') traced.add(this);
  }

  trace(kind) {
    if (traced.has(this)) console.log(`[object-request] ${kind}`);
  }

  /** Tells every watcher the object crashed: they reconnect and re-read its state. */
  dropWatchers() {
    for (const ws of contexts.get(this)?.getWebSockets() ?? []) {
      try { ws.close(1011, 'the task object crashed'); } catch { /* already closed */ }
    }
  }

  async fetch(request) {
    this.trace('fetch');
    const response = await watch(super.fetch(request));
    if (response !== CRASHED) return response;
    logPanic('TaskObject', 'fetch', request);
    this.dropWatchers();
    return new Response('the task object crashed while handling this request', { status: 500 });
  }

  async alarm(info) {
    this.trace('alarm');
    const done = await watch(super.alarm(info));
    if (done === CRASHED) {
      logPanic('TaskObject', 'alarm');
      this.dropWatchers();
      throw new Error('the task step crashed; the runtime retries the alarm');
    }
    return done;
  }

  async webSocketMessage(ws, message) {
    this.trace('webSocketMessage');
    await watch(super.webSocketMessage(ws, message));
  }

  async webSocketClose(ws, code, reason, wasClean) {
    this.trace('webSocketClose');
    await watch(super.webSocketClose(ws, code, reason, wasClean));
  }

  async webSocketError(ws, error) {
    this.trace('webSocketError');
    await watch(super.webSocketError(ws, error));
  }
}

export class PrincipalObject extends ShimPrincipalObject {
  async fetch(request) {
    const response = await watch(super.fetch(request));
    if (response !== CRASHED) return response;
    logPanic('PrincipalObject', 'fetch', request);
    return new Response('the quota ledger crashed while handling this request', { status: 500 });
  }
}

/**
 * The answer to a request whose instance crashed: JSON-RPC -32603 with the request's id,
 * read from the body the Rust side left on the request when it read it (`mcpBody`, see
 * `read_whole_body` in src/cloudflare/mod.rs); no id when it crashed before that.
 */
function crashed(request) {
  let id = null;
  try {
    const body = JSON.parse(new TextDecoder().decode(request.mcpBody));
    if (typeof body?.id === 'string' || typeof body?.id === 'number') id = body.id;
  } catch { /* no body read, or not JSON: the id stays null */ }
  const error = {
    code: -32603,
    message: 'Internal error: the server crashed while handling this request (a tool step panicked). Nothing was stored; the next request is served normally.',
  };
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error }), {
    status: 500,
    headers: { 'content-type': 'application/json' },
  });
}
