//! The JS platform, thinly: `fetch`, timers, `AbortSignal`, JSON conversions, the
//! `McpError` class, and calling user callbacks that may return promises. Works on a
//! window and in a worker (everything is looked up on `globalThis`).

use super::error::ClientError;
use super::wire::Outgoing;
use js_sys::{Array, Function, JSON, Promise, Reflect, Uint8Array};
use serde_json::Value;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/src/browser/mcp_error.js")]
extern "C" {
    /// `class McpError extends Error { code; data }`, re-exported from the package.
    #[wasm_bindgen(extends = js_sys::Error, reexport)]
    pub type McpError;
    #[wasm_bindgen(constructor)]
    fn new(code: f64, message: &str, data: &JsValue) -> McpError;
}

pub type JsResult<T> = Result<T, JsValue>;

/// A [`ClientError`] as a JS `McpError`.
pub fn to_js_error(error: ClientError) -> JsValue {
    let data = error.data.as_ref().map(to_js).unwrap_or(JsValue::UNDEFINED);
    McpError::new(error.code as f64, &error.message, &data).into()
}

/// A JSON value as a plain JS value (objects, arrays, strings, numbers…).
pub fn to_js(value: &Value) -> JsValue {
    JSON::parse(&value.to_string()).unwrap_or(JsValue::NULL)
}

/// A JS value as JSON; `undefined` (and functions) become `null`.
pub fn from_js(value: &JsValue) -> JsResult<Value> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    let text = JSON::stringify(value).map_err(|e| {
        to_js_error(ClientError::new(
            ClientError::INVALID_REQUEST,
            format!("value is not JSON-serializable: {}", describe(&e)),
            None,
        ))
    })?;
    Ok(text
        .as_string()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null))
}

/// A short text for any thrown JS value (Error message, string, or `String(value)`).
pub fn describe(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}

/// Reads `object[key]`; `undefined` when `object` is not an object.
pub fn get(object: &JsValue, key: &str) -> JsValue {
    if !object.is_object() {
        return JsValue::UNDEFINED;
    }
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// `object[key]` if it is a function.
pub fn get_function(object: &JsValue, key: &str) -> Option<Function> {
    get(object, key).dyn_into::<Function>().ok()
}

pub fn global() -> JsValue {
    js_sys::global().into()
}

/// `object.name(...args)`; a throw is the `Err`.
pub fn call_method(object: &JsValue, name: &str, args: &[JsValue]) -> JsResult<JsValue> {
    let method = get_function(object, name)
        .ok_or_else(|| JsValue::from_str(&format!("{name} is not a function here")))?;
    method.apply(object, &args.iter().collect::<Array>())
}

/// The page's (or worker's) address, if it has one.
pub fn page_href() -> Option<String> {
    get(&get(&global(), "location"), "href").as_string()
}

/// `url` made absolute against the page's address (`"/mcp"` → `"https://host/mcp"`).
pub fn absolute_url(url: &str) -> String {
    let parsed = match page_href() {
        Some(base) => web_sys::Url::new_with_base(url, &base),
        None => web_sys::Url::new(url),
    };
    parsed.map(|u| u.href()).unwrap_or_else(|_| url.to_owned())
}

/// `n` bytes from `crypto.getRandomValues` (the only randomness the client uses).
pub fn random_bytes(n: u32) -> JsResult<Vec<u8>> {
    let bytes = Uint8Array::new_with_length(n);
    call_method(
        &get(&global(), "crypto"),
        "getRandomValues",
        &[bytes.clone().into()],
    )?;
    Ok(bytes.to_vec())
}

/// `sessionStorage`, when the page may use it (absent in workers, may throw when
/// storage is blocked).
fn session_storage() -> Option<JsValue> {
    Reflect::get(&global(), &"sessionStorage".into())
        .ok()
        .filter(JsValue::is_object)
}

pub fn session_get(key: &str) -> Option<String> {
    call_method(&session_storage()?, "getItem", &[key.into()])
        .ok()?
        .as_string()
}

/// Stores `value` under `key`; false when storage is unavailable or full.
pub fn session_set(key: &str, value: &str) -> bool {
    session_storage()
        .is_some_and(|s| call_method(&s, "setItem", &[key.into(), value.into()]).is_ok())
}

pub fn session_remove(key: &str) {
    if let Some(storage) = session_storage() {
        let _ = call_method(&storage, "removeItem", &[key.into()]);
    }
}

/// A promise resolved after `ms` milliseconds (`setTimeout` of a window or a worker).
pub fn sleep(ms: u64) -> Promise {
    Promise::new(&mut |resolve, _reject| {
        let global = global();
        if let Some(set_timeout) = get_function(&global, "setTimeout") {
            let _ = set_timeout.call2(&global, &resolve, &JsValue::from_f64(ms as f64));
        }
    })
}

thread_local! {
    static IGNORE: Closure<dyn FnMut(JsValue)> = Closure::new(|_: JsValue| {});
}

/// Attaches a no-op rejection handler, so a promise nobody awaits does not report an
/// "unhandled rejection"; whoever awaits it later still sees the rejection.
pub fn mark_handled(promise: &Promise) {
    IGNORE.with(|ignore| {
        let _ = promise.catch(ignore);
    });
}

/// An `AbortSignal` given to a call, with a promise that rejects with its reason.
#[derive(Clone)]
pub struct Abort {
    signal: web_sys::AbortSignal,
    rejected: Promise,
}

impl Abort {
    pub fn new(signal: web_sys::AbortSignal) -> Self {
        let target = signal.clone();
        let rejected = Promise::new(&mut |_resolve, reject| {
            if target.aborted() {
                let _ = reject.call1(&JsValue::UNDEFINED, &target.reason());
                return;
            }
            let target2 = target.clone();
            let on_abort = Closure::once_into_js(move || {
                let _ = reject.call1(&JsValue::UNDEFINED, &target2.reason());
            });
            if let Some(add) = get_function(&target, "addEventListener") {
                let once = js_sys::Object::new();
                let _ = Reflect::set(&once, &"once".into(), &JsValue::TRUE);
                let _ = add.call3(&target, &"abort".into(), &on_abort, &once);
            }
        });
        // Nobody may be waiting when the signal fires: keep that from being "unhandled".
        mark_handled(&rejected);
        Abort { signal, rejected }
    }

    pub fn aborted(&self) -> bool {
        self.signal.aborted()
    }

    pub fn reason(&self) -> JsValue {
        self.signal.reason()
    }
}

/// Awaits `promise`, or rejects with the abort reason as soon as `abort` fires.
pub async fn wait(promise: Promise, abort: Option<&Abort>) -> JsResult<JsValue> {
    match abort {
        None => JsFuture::from(promise).await,
        Some(abort) => {
            if abort.aborted() {
                return Err(abort.reason());
            }
            JsFuture::from(Promise::race(&Array::of2(&promise, &abort.rejected))).await
        }
    }
}

/// Calls a user callback with `args`; a returned promise (or thenable) is awaited.
pub async fn call_user(
    callback: &Function,
    args: &[JsValue],
    abort: Option<&Abort>,
) -> JsResult<JsValue> {
    let array: Array = args.iter().collect();
    let returned = callback.apply(&JsValue::UNDEFINED, &array)?;
    wait(Promise::resolve(&returned), abort).await
}

/// Calls the `fetch` override, else the global `fetch`, with `(url, init)`.
fn call_fetch(fetch: Option<&Function>, url: &str, init: &JsValue) -> Result<JsValue, String> {
    let global = global();
    let returned = match fetch {
        Some(fetch) => fetch.call2(&JsValue::UNDEFINED, &url.into(), init),
        None => match get_function(&global, "fetch") {
            Some(fetch) => fetch.call2(&global, &url.into(), init),
            None => return Err("no fetch function in this environment".to_owned()),
        },
    };
    returned.map_err(|thrown| describe(&thrown))
}

/// Whether anything answers at `url`: a `no-cors` HEAD resolves with an opaque response
/// from any server that answers, whatever its CORS rules; it fails like the request did
/// when nothing answers (or the page's CSP forbids the URL). Gives up after 3 s.
async fn answers(fetch: Option<&Function>, url: &str) -> bool {
    let init = js_sys::Object::new();
    for (key, value) in [
        ("method", "HEAD"),
        ("mode", "no-cors"),
        ("cache", "no-store"),
        ("credentials", "omit"),
    ] {
        let _ = Reflect::set(&init, &key.into(), &value.into());
    }
    let Ok(returned) = call_fetch(fetch, url, &init) else {
        return false;
    };
    let probe = Promise::resolve(&returned);
    mark_handled(&probe);
    // The timer resolves with `undefined`, which is not a Response.
    match JsFuture::from(Promise::race(&Array::of2(&probe, &sleep(3000)))).await {
        Ok(value) => value.dyn_ref::<web_sys::Response>().is_some(),
        Err(_) => false,
    }
}

/// One `fetch`: the `Response` whatever its status. A failure without an answer is an
/// `McpError` (-32603) whose `data.reason` says whether the browser blocked the answer or
/// could not reach `url`; an abort rejects with the signal's reason.
pub async fn fetch(
    fetch: Option<&Function>,
    url: &str,
    init: &JsValue,
    abort: Option<&Abort>,
) -> JsResult<web_sys::Response> {
    let returned =
        call_fetch(fetch, url, init).map_err(|why| to_js_error(ClientError::network(&why)))?;
    match wait(Promise::resolve(&returned), abort).await {
        Ok(response) => response.dyn_into::<web_sys::Response>().map_err(|other| {
            to_js_error(ClientError::network(&format!(
                "fetch resolved to something that is not a Response: {}",
                describe(&other)
            )))
        }),
        Err(e) if abort.is_some_and(Abort::aborted) => Err(e),
        Err(e) => {
            let reachable = answers(fetch, url).await;
            Err(to_js_error(ClientError::unreachable(
                url,
                &describe(&e),
                reachable,
            )))
        }
    }
}

/// POSTs one request with the global `fetch` or the override (see [`fetch`]).
pub async fn post(
    fetch_fn: Option<&Function>,
    url: &str,
    outgoing: &Outgoing,
    abort: Option<&Abort>,
) -> JsResult<web_sys::Response> {
    let headers = web_sys::Headers::new()?;
    for (name, value) in &outgoing.headers {
        headers.append(name, value)?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&outgoing.body));
    if let Some(abort) = abort {
        // Aborting ends the request itself (and its body), not only the wait for it.
        init.set_signal(Some(&abort.signal));
    }
    fetch(fetch_fn, url, &init, abort).await
}

/// POSTs an `application/x-www-form-urlencoded` body (an OAuth token request); the
/// status and the body text.
pub async fn post_form(
    fetch_fn: Option<&Function>,
    url: &str,
    body: &str,
) -> JsResult<(u16, String)> {
    let headers = web_sys::Headers::new()?;
    headers.append("Content-Type", "application/x-www-form-urlencoded")?;
    headers.append("Accept", "application/json")?;
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(body));
    let response = fetch(fetch_fn, url, &init, None).await?;
    Ok((response.status(), text(&response, None).await?))
}

/// GETs a JSON document (metadata); `None` on any failure.
pub async fn get_json(fetch_fn: Option<&Function>, url: &str) -> Option<serde_json::Value> {
    let init = js_sys::Object::new();
    let response = fetch(fetch_fn, url, &init, None).await.ok()?;
    if !response.ok() {
        return None;
    }
    serde_json::from_str(&text(&response, None).await.ok()?).ok()
}

/// The response's content type ("" when absent).
pub fn content_type(response: &web_sys::Response) -> String {
    response
        .headers()
        .get("content-type")
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// The whole body as text.
pub async fn text(response: &web_sys::Response, abort: Option<&Abort>) -> JsResult<String> {
    let promise = response.text()?;
    match wait(promise, abort).await {
        Ok(text) => Ok(text.as_string().unwrap_or_default()),
        Err(e) if abort.is_some_and(Abort::aborted) => Err(e),
        Err(e) => Err(to_js_error(ClientError::network(&describe(&e)))),
    }
}

/// Reads the next chunk of a body stream; `None` at the end.
pub async fn read_chunk(
    reader: &web_sys::ReadableStreamDefaultReader,
) -> JsResult<Option<Vec<u8>>> {
    let result = JsFuture::from(reader.read()).await?;
    if get(&result, "done").is_truthy() {
        return Ok(None);
    }
    Ok(Some(Uint8Array::new(&get(&result, "value")).to_vec()))
}

/// Runs `then` once `signal` aborts (at once if it already has). Boxed: one copy of the
/// closure glue for every caller, not one per closure type.
pub fn on_abort(signal: &web_sys::AbortSignal, then: Box<dyn FnOnce()>) {
    if signal.aborted() {
        return then();
    }
    let listener = Closure::once_into_js(then);
    if let Some(add) = get_function(signal, "addEventListener") {
        let once = js_sys::Object::new();
        let _ = Reflect::set(&once, &"once".into(), &JsValue::TRUE);
        let _ = add.call3(signal, &"abort".into(), &listener, &once);
    }
}

/// `options.signal`, when it is an `AbortSignal`.
pub fn signal(options: &JsValue) -> Option<web_sys::AbortSignal> {
    get(options, "signal").dyn_into().ok()
}

#[wasm_bindgen(module = "/src/browser/handles.js")]
extern "C" {
    /// Makes `free()` idempotent and `close()` harmless after it on the object's class
    /// (see handles.js); returns the object.
    pub fn harden(object: JsValue) -> JsValue;
}
