//! Helpers of the browser tests: small JS functions (handlers, fetch doubles, a
//! notification collector) and Rust shorthands for calling the JS API.

use js_sys::{Array, Promise, Reflect};
use mcp_tasks_edge::browser::McpClient;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(inline_js = r#"
export function invoke(target, name, args) { return target[name](...args); }
export function prop(target, name) { return target[name]; }
export function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }
export function json(value) { return JSON.stringify(value); }

// Options whose handlers record what they saw. `delayMs` makes onElicitation async.
export function recordingOptions(answer, delayMs) {
  const seen = { elicitations: [], created: [], statuses: [], samplings: [], roots: [] };
  const options = {
    onElicitation: async (params, key) => {
      seen.elicitations.push({ params, key });
      if (delayMs) await sleep(delayMs);
      return answer;
    },
    onSampling: (params, key) => {
      seen.samplings.push({ params, key });
      return { role: "assistant", content: { type: "text", text: "Hi there" }, model: "test-model" };
    },
    onRoots: (key) => { seen.roots.push(key); return { roots: [{ uri: "file:///work" }] }; },
    onTaskCreated: (task) => seen.created.push(task),
    onTaskStatus: (task) => seen.statuses.push(task.status + (task.statusMessage ? ": " + task.statusMessage : "")),
  };
  return { seen, options };
}

// Aborts its controller as soon as the task exists.
export function abortOnCreate() {
  const controller = new AbortController();
  const state = { taskId: undefined };
  const options = {
    signal: controller.signal,
    onTaskCreated: (task) => { state.taskId = task.taskId; controller.abort(); },
  };
  return { state, options };
}

// A fetch that records every request (headers and parsed body) and then really sends it.
export function recordingFetch() {
  const requests = [];
  const fetchFn = (url, init) => {
    const headers = {};
    new Headers(init.headers).forEach((v, k) => { headers[k] = v; });
    requests.push({ url, headers, body: JSON.parse(init.body) });
    return fetch(url, init);
  };
  return { requests, fetch: fetchFn };
}

// A fetch answering every request with the given body, as a broken server would.
export function garbageFetch(body, contentType, status) {
  return () => Promise.resolve(new Response(body, { status, headers: { "content-type": contentType } }));
}

// A fetch under which subscriptions/listen cannot be opened (a proxy that kills SSE).
export function noStreamFetch() {
  return (url, init) => new Headers(init.headers).get("mcp-method") === "subscriptions/listen"
    ? Promise.reject(new TypeError("event streams are blocked here"))
    : fetch(url, init);
}

// A fetch under which each subscriptions/listen stream delivers its first two chunks as
// one (the acknowledgement together with the first notification, as a network may).
export function coalescingFetch() {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (new Headers(init.headers).get("mcp-method") !== "subscriptions/listen" || !response.body) return response;
    const reader = response.body.getReader();
    let held = null;
    const body = new ReadableStream({
      async pull(controller) {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) { if (held) controller.enqueue(held); held = null; controller.close(); return; }
          if (held === null && value.length && !body.merged) { held = value; continue; }
          if (held) {
            const both = new Uint8Array(held.length + value.length);
            both.set(held); both.set(value, held.length);
            held = null; body.merged = true;
            controller.enqueue(both);
            return;
          }
          controller.enqueue(value);
          return;
        }
      },
      cancel(reason) { return reader.cancel(reason); },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

// Rejects after `ms` (to turn a hang into a failure).
export function timeout(ms) {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms));
}

// Collects listen() callbacks; `until(status)` resolves once a task reaches it.
export function collector() {
  const tasks = [];
  const waiters = [];
  const callback = (task) => {
    tasks.push(task);
    for (const w of waiters) if (task.status === w.status) w.resolve(task);
  };
  const until = (status, ms) => new Promise((resolve, reject) => {
    const done = tasks.find((t) => t.status === status);
    if (done) return resolve(done);
    waiters.push({ status, resolve });
    setTimeout(() => reject(new Error(`no ${status} notification within ${ms} ms; got ${JSON.stringify(tasks.map((t) => t.status))}`)), ms);
  });
  return { tasks, callback, until };
}
"#)]
extern "C" {
    pub fn invoke(target: &JsValue, name: &str, args: Array) -> JsValue;
    pub fn prop(target: &JsValue, name: &str) -> JsValue;
    pub fn sleep(ms: u32) -> Promise;
    pub fn json(value: &JsValue) -> String;
    #[wasm_bindgen(js_name = recordingOptions)]
    pub fn recording_options(answer: &JsValue, delay_ms: u32) -> JsValue;
    #[wasm_bindgen(js_name = abortOnCreate)]
    pub fn abort_on_create() -> JsValue;
    #[wasm_bindgen(js_name = recordingFetch)]
    pub fn recording_fetch() -> JsValue;
    #[wasm_bindgen(js_name = garbageFetch)]
    pub fn garbage_fetch(body: &str, content_type: &str, status: u16) -> JsValue;
    #[wasm_bindgen(js_name = noStreamFetch)]
    pub fn no_stream_fetch() -> JsValue;
    #[wasm_bindgen(js_name = coalescingFetch)]
    pub fn coalescing_fetch() -> JsValue;
    pub fn timeout(ms: u32) -> Promise;
    pub fn collector() -> JsValue;
}

pub fn mcp_url() -> String {
    match option_env!("MCP_TEST_URL") {
        Some(url) => url.to_owned(),
        None => panic!(
            "MCP_TEST_URL was not set at compile time: run the browser tests with `make test-browser`"
        ),
    }
}

/// A URL on a loopback port nothing listens on.
pub fn dead_url() -> String {
    match option_env!("MCP_DEAD_URL") {
        Some(url) => url.to_owned(),
        None => panic!(
            "MCP_DEAD_URL was not set at compile time: run the browser tests with `make test-browser`"
        ),
    }
}

/// A plain JS object from JSON text.
pub fn obj(text: &str) -> JsValue {
    js_sys::JSON::parse(text).expect("test JSON")
}

pub fn args(items: &[&JsValue]) -> Array {
    items.iter().map(|v| (*v).clone()).collect()
}

pub async fn settle(promise: JsValue) -> Result<JsValue, JsValue> {
    JsFuture::from(promise.dyn_into::<Promise>().expect("a promise")).await
}

pub async fn connect_with(url: &str, options: JsValue) -> Result<JsValue, JsValue> {
    McpClient::connect(url.to_owned(), Some(options)).await
}

pub async fn connect() -> JsValue {
    connect_with(&mcp_url(), JsValue::UNDEFINED)
        .await
        .expect("connect")
}

/// `client.method(...args)` awaited.
pub async fn call(client: &JsValue, method: &str, items: &[&JsValue]) -> Result<JsValue, JsValue> {
    settle(invoke(client, method, args(items))).await
}

pub fn first_text(result: &JsValue) -> String {
    let content = prop(result, "content");
    prop(&Reflect::get_u32(&content, 0).unwrap(), "text")
        .as_string()
        .unwrap_or_default()
}

/// Asserts `error` is an `McpError` (a real `Error` subclass) with `code`; returns its message.
pub fn assert_mcp_error(error: &JsValue, code: i64) -> String {
    assert!(
        error.is_instance_of::<js_sys::Error>(),
        "not an Error: {error:?}"
    );
    assert_eq!(
        prop(error, "name").as_string().as_deref(),
        Some("McpError"),
        "{error:?}"
    );
    assert_eq!(
        prop(error, "code").as_f64(),
        Some(code as f64),
        "wrong code: {} ({})",
        json(&prop(error, "code")),
        prop(error, "message").as_string().unwrap_or_default()
    );
    prop(error, "message").as_string().unwrap_or_default()
}

pub fn strings(value: &JsValue) -> Vec<String> {
    Array::from(value)
        .iter()
        .filter_map(|v| v.as_string())
        .collect()
}
