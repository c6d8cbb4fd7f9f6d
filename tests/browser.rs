//! The browser bindings in real browsers, against a real `wrangler dev` (issue 5 "Done
//! when"). Run by `make test-browser` (tests/browser/run.mjs), which starts the server and
//! compiles this file with `MCP_TEST_URL` set, once for Chromium and once for Firefox.
//!
//! Every test talks to the JS API the way a page does: through the exported class and
//! its camelCase methods (`invoke`), with options objects and handlers written in JS.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Promise, Reflect};
use mcp_tasks_edge::browser::McpClient;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

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
    fn invoke(target: &JsValue, name: &str, args: Array) -> JsValue;
    fn prop(target: &JsValue, name: &str) -> JsValue;
    fn sleep(ms: u32) -> Promise;
    fn json(value: &JsValue) -> String;
    #[wasm_bindgen(js_name = recordingOptions)]
    fn recording_options(answer: &JsValue, delay_ms: u32) -> JsValue;
    #[wasm_bindgen(js_name = abortOnCreate)]
    fn abort_on_create() -> JsValue;
    #[wasm_bindgen(js_name = recordingFetch)]
    fn recording_fetch() -> JsValue;
    #[wasm_bindgen(js_name = garbageFetch)]
    fn garbage_fetch(body: &str, content_type: &str, status: u16) -> JsValue;
    #[wasm_bindgen(js_name = noStreamFetch)]
    fn no_stream_fetch() -> JsValue;
    fn collector() -> JsValue;
}

fn mcp_url() -> String {
    option_env!("MCP_TEST_URL")
        .expect("MCP_TEST_URL was not set at compile time: run the browser tests with `make test-browser`")
        .to_owned()
}

/// A plain JS object from JSON text.
fn obj(text: &str) -> JsValue {
    js_sys::JSON::parse(text).expect("test JSON")
}

fn args(items: &[&JsValue]) -> Array {
    items.iter().map(|v| (*v).clone()).collect()
}

async fn settle(promise: JsValue) -> Result<JsValue, JsValue> {
    JsFuture::from(promise.dyn_into::<Promise>().expect("a promise")).await
}

async fn connect_with(url: &str, options: JsValue) -> Result<JsValue, JsValue> {
    McpClient::connect(url.to_owned(), Some(options)).await.map(JsValue::from)
}

async fn connect() -> JsValue {
    connect_with(&mcp_url(), JsValue::UNDEFINED).await.expect("connect")
}

/// `client.method(...args)` awaited.
async fn call(client: &JsValue, method: &str, items: &[&JsValue]) -> Result<JsValue, JsValue> {
    settle(invoke(client, method, args(items))).await
}

fn first_text(result: &JsValue) -> String {
    let content = prop(result, "content");
    prop(&Reflect::get_u32(&content, 0).unwrap(), "text").as_string().unwrap_or_default()
}

/// Asserts `error` is an `McpError` (a real `Error` subclass) with `code`; returns its message.
fn assert_mcp_error(error: &JsValue, code: i64) -> String {
    assert!(error.is_instance_of::<js_sys::Error>(), "not an Error: {error:?}");
    assert_eq!(prop(error, "name").as_string().as_deref(), Some("McpError"), "{error:?}");
    assert_eq!(prop(error, "code").as_f64(), Some(code as f64), "wrong code: {} ({})", json(&prop(error, "code")), prop(error, "message").as_string().unwrap_or_default());
    prop(error, "message").as_string().unwrap_or_default()
}

fn strings(value: &JsValue) -> Vec<String> {
    Array::from(value).iter().filter_map(|v| v.as_string()).collect()
}

#[wasm_bindgen_test]
async fn discover_reports_the_server() {
    let client = connect().await;
    let discovery = prop(&client, "discovery");
    assert!(strings(&prop(&discovery, "supportedVersions")).contains(&"2026-07-28".to_owned()));
    assert!(!prop(&prop(&prop(&discovery, "capabilities"), "extensions"), "io.modelcontextprotocol/tasks").is_undefined());
    assert_eq!(prop(&prop(&client, "serverInfo"), "name").as_string().as_deref(), Some("mcp-tasks-edge"));
}

#[wasm_bindgen_test]
async fn list_tools_returns_the_catalog() {
    let client = connect().await;
    let tools = Array::from(&call(&client, "listTools", &[]).await.unwrap());
    let names: Vec<String> = tools.iter().filter_map(|t| prop(&t, "name").as_string()).collect();
    for expected in ["greet", "slow_compute", "confirm_delete", "process_batch"] {
        assert!(names.iter().any(|n| n == expected), "{expected} missing from {names:?}");
    }
    assert!(prop(&tools.get(0), "inputSchema").is_object());
}

#[wasm_bindgen_test]
async fn sync_call_carries_headers_and_meta() {
    let recorder = recording_fetch();
    let options = obj(r#"{"bearerToken":"browser-test-token","clientInfo":{"name":"browser-tests","version":"1.2.3"}}"#);
    Reflect::set(&options, &"fetch".into(), &prop(&recorder, "fetch")).unwrap();
    let client = connect_with(&mcp_url(), options).await.expect("connect");
    let result = call(&client, "callTool", &[&"greet".into(), &obj(r#"{"name":"Ada"}"#)]).await.unwrap();
    assert_eq!(first_text(&result), "Hello, Ada!");
    // x-mcp-header argument with non-ASCII text: Mcp-Param-Value goes Base64.
    let result = call(&client, "callTool", &[&"test_header_param".into(), &obj(r#"{"value":"Grüße, 世界"}"#)]).await.unwrap();
    assert_eq!(first_text(&result), "value=Grüße, 世界");

    let requests = Array::from(&prop(&recorder, "requests"));
    let methods: Vec<String> = requests.iter().map(|r| prop(&prop(&r, "body"), "method").as_string().unwrap()).collect();
    // The first call lists the tools once, for their x-mcp-header annotations.
    assert_eq!(methods, ["server/discover", "tools/list", "tools/call", "tools/call"]);
    for request in requests.iter() {
        let headers = prop(&request, "headers");
        let body = prop(&request, "body");
        assert_eq!(prop(&headers, "mcp-protocol-version").as_string().as_deref(), Some("2026-07-28"));
        assert_eq!(prop(&headers, "mcp-method"), prop(&body, "method"));
        assert_eq!(prop(&headers, "authorization").as_string().as_deref(), Some("Bearer browser-test-token"));
        let meta = prop(&prop(&body, "params"), "_meta");
        assert_eq!(prop(&meta, "io.modelcontextprotocol/protocolVersion").as_string().as_deref(), Some("2026-07-28"));
        assert_eq!(prop(&prop(&meta, "io.modelcontextprotocol/clientInfo"), "name").as_string().as_deref(), Some("browser-tests"));
        assert!(prop(&meta, "io.modelcontextprotocol/clientCapabilities").is_object());
    }
    let calls: Vec<JsValue> = requests.iter().filter(|r| prop(&prop(&r, "body"), "method").as_string().as_deref() == Some("tools/call")).collect();
    assert_eq!(prop(&prop(&calls[0], "headers"), "mcp-name").as_string().as_deref(), Some("greet"));
    assert_eq!(
        prop(&prop(&calls[1], "headers"), "mcp-param-value").as_string().as_deref(),
        Some("=?base64?R3LDvMOfZSwg5LiW55WM?=")
    );
}

#[wasm_bindgen_test]
async fn mrtr_round_is_answered_by_the_handler() {
    let client = connect().await;
    let recorder = recording_options(&obj(r#"{"action":"accept","content":{"name":"Grace"}}"#), 0);
    let options = prop(&recorder, "options");
    let result = call(&client, "callTool", &[&"test_input_required_result_elicitation".into(), &obj("{}"), &options]).await.unwrap();
    assert_eq!(first_text(&result), "Hello, Grace!");
    let seen = Array::from(&prop(&prop(&recorder, "seen"), "elicitations"));
    assert_eq!(seen.length(), 1);
    assert_eq!(prop(&seen.get(0), "key").as_string().as_deref(), Some("user_name"));
    // Elicitation, sampling and roots in one round go to their three handlers.
    let result = call(&client, "callTool", &[&"test_input_required_result_multiple_inputs".into(), &obj("{}"), &options]).await.unwrap();
    assert_eq!(first_text(&result), "Hi there Grace (roots: file:///work)");
    // Two rounds in a row.
    let result = call(&client, "callTool", &[&"test_input_required_result_multi_round".into(), &obj("{}"), &options]).await.unwrap();
    assert!(first_text(&result).starts_with("Grace likes"), "{}", first_text(&result));
}

#[wasm_bindgen_test]
async fn task_runs_to_completion() {
    let client = connect().await;
    let recorder = recording_options(&JsValue::UNDEFINED, 0);
    let result = call(&client, "callTool", &[&"slow_compute".into(), &obj(r#"{"seconds":1,"label":"browser"}"#), &prop(&recorder, "options")]).await.unwrap();
    assert_eq!(first_text(&result), "browser: computed after 1 s");
    let seen = prop(&recorder, "seen");
    let created = Array::from(&prop(&seen, "created"));
    assert_eq!(created.length(), 1);
    let task_id = prop(&created.get(0), "taskId").as_string().unwrap();
    assert_eq!(task_id.len(), 32);
    let statuses = strings(&prop(&seen, "statuses"));
    assert_eq!(statuses.first().map(String::as_str), Some("working: Computing for 1 s"), "{statuses:?}");
    assert_eq!(statuses.last().map(String::as_str), Some("completed"), "{statuses:?}");
    // A finished task stays readable by id.
    let task = call(&client, "getTask", &[&task_id.into()]).await.unwrap();
    assert_eq!(prop(&task, "status").as_string().as_deref(), Some("completed"));
    assert!(prop(&task, "resultType").is_undefined());
}

#[wasm_bindgen_test]
async fn task_input_is_answered_once_by_an_async_handler() {
    let client = connect().await;
    // The handler takes longer than a poll interval: the same key must not be asked twice.
    let recorder = recording_options(&obj(r#"{"action":"accept","content":{"confirm":true}}"#), 1500);
    let result = call(&client, "callTool", &[&"confirm_delete".into(), &obj(r#"{"filename":"notes.txt"}"#), &prop(&recorder, "options")]).await.unwrap();
    assert_eq!(first_text(&result), "Deleted notes.txt.");
    let seen = prop(&recorder, "seen");
    let asked = Array::from(&prop(&seen, "elicitations"));
    assert_eq!(asked.length(), 1, "asked {} times", asked.length());
    assert_eq!(prop(&prop(&asked.get(0), "params"), "message").as_string().as_deref(), Some("Delete notes.txt?"));
    assert!(strings(&prop(&seen, "statuses")).iter().any(|s| s.starts_with("input_required")));
}

#[wasm_bindgen_test]
async fn abort_signal_cancels_the_task() {
    let client = connect().await;
    let aborter = abort_on_create();
    let error = call(&client, "callTool", &[&"process_batch".into(), &obj(r#"{"items":50,"delayMs":500}"#), &prop(&aborter, "options")])
        .await
        .expect_err("an aborted call rejects");
    assert_eq!(prop(&error, "name").as_string().as_deref(), Some("AbortError"), "rejects with the signal's reason");
    let task_id = prop(&prop(&aborter, "state"), "taskId");
    assert!(task_id.is_string());
    // tasks/cancel went out before the rejection: the task ends cancelled.
    let mut status = String::new();
    for _ in 0..20 {
        status = prop(&call(&client, "getTask", &[&task_id]).await.unwrap(), "status").as_string().unwrap();
        if status == "cancelled" {
            break;
        }
        JsFuture::from(sleep(250)).await.unwrap();
    }
    assert_eq!(status, "cancelled");
}

#[wasm_bindgen_test]
async fn handle_cancel_rejects_the_result_with_cancelled() {
    let client = connect().await;
    let handle = call(&client, "startToolCall", &[&"process_batch".into(), &obj(r#"{"items":50,"delayMs":500}"#)]).await.unwrap();
    assert!(prop(&handle, "taskId").is_string());
    assert_eq!(prop(&handle, "status").as_string().as_deref(), Some("working"));
    call(&handle, "cancel", &[]).await.unwrap();
    let error = call(&handle, "result", &[]).await.expect_err("a cancelled task rejects");
    assert_mcp_error(&error, -32800);
    assert_eq!(prop(&handle, "status").as_string().as_deref(), Some("cancelled"));
}

#[wasm_bindgen_test]
async fn failed_task_rejects_with_its_error() {
    let client = connect().await;
    let error = call(&client, "callTool", &[&"protocol_error_job".into()]).await.expect_err("a failed task rejects");
    let message = assert_mcp_error(&error, -32603);
    assert!(message.contains("on purpose"), "{message}");
    // A tool error is still a completed task: it resolves with isError.
    let result = call(&client, "callTool", &[&"failing_job".into()]).await.unwrap();
    assert_eq!(prop(&result, "isError"), JsValue::TRUE);
    // A JSON-RPC error of tools/call itself.
    let error = call(&client, "callTool", &[&"no_such_tool".into()]).await.expect_err("unknown tool");
    assert_mcp_error(&error, -32602);
}

#[wasm_bindgen_test]
async fn unknown_or_expired_task_is_an_mcp_error() {
    let client = connect().await;
    for id in ["0123456789abcdef0123456789abcdef", "not-a-task-id"] {
        let error = call(&client, "getTask", &[&id.into()]).await.expect_err("unknown task");
        assert_mcp_error(&error, -32602);
        let error = call(&client, "resumeTask", &[&id.into()]).await.expect_err("unknown task");
        assert_mcp_error(&error, -32602);
    }
}

#[wasm_bindgen_test]
async fn garbage_answers_are_mcp_errors() {
    let base = mcp_url().trim_end_matches("/mcp").to_owned();
    // The Worker's static HTML page, not an MCP endpoint.
    let error = connect_with(&format!("{base}/index.html"), JsValue::UNDEFINED).await.expect_err("HTML is not MCP");
    assert!(error.is_instance_of::<js_sys::Error>());
    assert_eq!(prop(&error, "name").as_string().as_deref(), Some("McpError"));
    // A path the Worker answers with an error body.
    let error = connect_with(&format!("{base}/not-mcp"), JsValue::UNDEFINED).await.expect_err("wrong path");
    assert_eq!(prop(&error, "name").as_string().as_deref(), Some("McpError"));
    let cases = [
        ("<!doctype html><title>Oops</title>", "text/html", 200, -32700),
        (r#"{"hello":"world"}"#, "application/json", 200, -32600),
        ("Bad Gateway", "text/plain", 502, -32700),
        (r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2025-11-25"]}}"#, "application/json", 200, -32022),
    ];
    for (body, content_type, status, code) in cases {
        let options = js_sys::Object::new();
        Reflect::set(&options, &"fetch".into(), &garbage_fetch(body, content_type, status)).unwrap();
        let error = connect_with(&mcp_url(), options.into()).await.expect_err(body);
        assert_mcp_error(&error, code);
    }
}

#[wasm_bindgen_test]
async fn resume_task_after_a_reload() {
    // "Page 1" starts a task that asks a question, then goes away before answering.
    let first = connect().await;
    let handle = call(&first, "startToolCall", &[&"confirm_delete".into(), &obj(r#"{"filename":"draft.md"}"#), &obj("{}")]).await.unwrap();
    let task_id = prop(&handle, "taskId");
    let error = call(&handle, "result", &[]).await.expect_err("no onElicitation handler");
    assert!(assert_mcp_error(&error, -32603).contains("onElicitation"));
    // "Page 2" knows only the id, from storage.
    let second = connect().await;
    let recorder = recording_options(&obj(r#"{"action":"accept","content":{"confirm":true}}"#), 0);
    let resumed = call(&second, "resumeTask", &[&task_id, &prop(&recorder, "options")]).await.unwrap();
    assert_eq!(prop(&resumed, "taskId"), task_id);
    let result = call(&resumed, "result", &[]).await.unwrap();
    assert_eq!(first_text(&result), "Deleted draft.md.");
    assert_eq!(Array::from(&prop(&prop(&recorder, "seen"), "elicitations")).length(), 1);
    assert_eq!(prop(&resumed, "status").as_string().as_deref(), Some("completed"));
}

#[wasm_bindgen_test]
async fn listen_streams_task_notifications() {
    let client = connect().await;
    let handle = call(&client, "startToolCall", &[&"slow_compute".into(), &obj(r#"{"seconds":1}"#)]).await.unwrap();
    let task_id = prop(&handle, "taskId");
    let collected = collector();
    let ids: Array = [task_id.clone(), "0123456789abcdef0123456789abcdef".into()].iter().collect();
    let subscription = call(&client, "listen", &[&ids, &prop(&collected, "callback")]).await.unwrap();
    assert_eq!(prop(&subscription, "mode").as_string().as_deref(), Some("stream"));
    let done = settle(invoke(&collected, "until", args(&[&"completed".into(), &8000.into()]))).await.unwrap();
    assert_eq!(prop(&done, "taskId"), task_id);
    assert_eq!(prop(&prop(&done, "result"), "content").is_object(), true);
    invoke(&subscription, "close", Array::new());
    let tasks = Array::from(&prop(&collected, "tasks"));
    assert!(tasks.iter().all(|t| prop(&t, "taskId") == task_id), "only the known task is reported");
}

#[wasm_bindgen_test]
async fn listen_falls_back_to_polling() {
    let options = js_sys::Object::new();
    Reflect::set(&options, &"fetch".into(), &no_stream_fetch()).unwrap();
    let client = connect_with(&mcp_url(), options.into()).await.unwrap();
    let handle = call(&client, "startToolCall", &[&"slow_compute".into(), &obj(r#"{"seconds":1}"#)]).await.unwrap();
    let collected = collector();
    let ids: Array = [prop(&handle, "taskId")].iter().collect();
    let subscription = call(&client, "listen", &[&ids, &prop(&collected, "callback")]).await.unwrap();
    assert_eq!(prop(&subscription, "mode").as_string().as_deref(), Some("polling"));
    settle(invoke(&collected, "until", args(&[&"completed".into(), &8000.into()]))).await.unwrap();
    let statuses: Vec<String> = Array::from(&prop(&collected, "tasks")).iter().filter_map(|t| prop(&t, "status").as_string()).collect();
    assert_eq!(statuses.iter().filter(|s| *s == "completed").count(), 1, "{statuses:?}");
    invoke(&subscription, "close", Array::new());
}
