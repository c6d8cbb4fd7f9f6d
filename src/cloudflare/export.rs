//! What the exports of [`export_worker!`](crate::export_worker) call: the Worker's fetch
//! handler and the three Durable Object classes, JS values in and promises out, each under
//! the panic guard (`guard.js`, bundled by wasm-bindgen as a snippet of this crate).
//!
//! The platform needs the exports themselves (`#[wasm_bindgen]` items) in the final
//! crate, so the macro writes them there; everything they do is here, so an author's
//! crate needs no `worker` dependency and no JS file of its own.

use super::bench::{self, Invocation, Meter};
use super::{PrincipalRunner, SessionRunner, TaskRunner};
use crate::server::Server;
use std::pin::Pin;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use worker::wasm_bindgen_futures::future_to_promise;
use worker::worker_sys::{Context, DurableObjectState};
use worker::{Env, web_sys};

// The types the macro's exports take and give, by paths that resolve in any crate.
#[doc(hidden)]
pub use worker::worker_sys::DurableObjectState as JsState;
#[doc(hidden)]
pub use {js_sys::Promise, wasm_bindgen as bindgen, worker::js_sys};
#[doc(hidden)]
pub use {web_sys::Request as JsRequest, web_sys::WebSocket as JsWebSocket};
#[doc(hidden)]
pub use {worker::Env as JsEnv, worker::worker_sys::Context as JsContext};

#[wasm_bindgen(module = "/src/cloudflare/guard.js")]
extern "C" {
    /// `work`, an invocation of `method` on `object` (the Worker or a Durable Object
    /// class), under the guard: what a crash answers depends on them (see guard.js).
    /// `request` (the invocation's, if any) gives the JSON-RPC id and the log line's
    /// request id; `ctx` is a task object's state, to close its watchers.
    fn guard(
        work: Promise,
        object: &str,
        method: &str,
        request: &JsValue,
        ctx: &JsValue,
    ) -> Promise;
}

type Outcome = std::result::Result<JsValue, JsValue>;

/// The JS object of a request (not `Request.clone()`, which copies the body).
fn js(req: &web_sys::Request) -> JsValue {
    AsRef::<JsValue>::as_ref(req).clone()
}

/// Runs `work` as the invocation of `method` on `object`, under the guard.
fn guarded(
    object: &str,
    method: &str,
    request: &JsValue,
    ctx: &JsValue,
    work: impl Future<Output = Outcome> + 'static,
) -> Promise {
    guard(future_to_promise(work), object, method, request, ctx)
}

fn respond(result: worker::Result<impl Into<web_sys::Response>>) -> Outcome {
    result
        .map(Into::<web_sys::Response>::into)
        .map(JsValue::from)
        .map_err(JsValue::from)
}

fn settle(result: worker::Result<()>) -> Outcome {
    result.map(|()| JsValue::NULL).map_err(JsValue::from)
}

/// The Worker's `fetch` export: [`super::fetch`] under the guard. An error the handler
/// returns is logged and answered JSON-RPC -32603 by the guard (guard.js).
#[doc(hidden)]
pub fn fetch(req: web_sys::Request, env: Env, ctx: Context, build: fn() -> Server) -> Promise {
    // The bench build's counters (`bench-counters`); nothing in the normal build.
    if let Some(counts) = bench::worker_request(&req) {
        return Promise::resolve(&JsValue::from(counts));
    }
    let raw = js(&req);
    let work = async move {
        let invocation = Some(worker::Context::new(ctx));
        match super::entry::serve(req, env, invocation, build).await {
            Ok(response) => Ok(response.into()),
            Err(e) => Err(JsValue::from(e)),
        }
    };
    guarded("Worker", "fetch", &raw, &JsValue::NULL, work)
}

/// The `TaskObject` class: one object per task ([`TaskRunner`]).
#[doc(hidden)]
pub struct TaskExport {
    runner: Rc<TaskRunner>,
    /// The object's DurableObjectState, for the guard to close watchers after a crash.
    state: JsValue,
    /// `TRACE_OBJECT_REQUESTS=true`: one log line per invocation (what the notification
    /// bench counts, tests/bench/notifications.mjs).
    traced: bool,
    /// The bench build's invocation counts and awake time (`bench-counters`).
    meter: Meter,
}

impl TaskExport {
    pub fn new(state: DurableObjectState, env: Env, build: fn() -> Server) -> Self {
        let raw = JsValue::from(state.clone());
        let traced = env
            .var("TRACE_OBJECT_REQUESTS")
            .is_ok_and(|v| v.to_string() == "true");
        TaskExport {
            runner: Rc::new(TaskRunner::new(state.into(), env, build)),
            state: raw,
            traced,
            meter: Meter::new(bench::TASK),
        }
    }

    fn guarded(
        &self,
        method: &str,
        kind: Invocation,
        request: &JsValue,
        work: impl Future<Output = Outcome> + 'static,
    ) -> Promise {
        if self.traced {
            worker::console_log!("[object-request] {method}");
        }
        let work = self.meter.run(kind, work);
        guarded("TaskObject", method, request, &self.state, work)
    }

    pub fn fetch(&self, req: web_sys::Request) -> Promise {
        let runner = self.runner.clone();
        let raw = js(&req);
        self.guarded("fetch", Invocation::Request, &raw, async move {
            respond(runner.fetch(req).await)
        })
    }

    pub fn alarm(&self) -> Promise {
        let runner = self.runner.clone();
        self.guarded("alarm", Invocation::Alarm, &JsValue::NULL, async move {
            respond(runner.alarm().await)
        })
    }

    pub fn websocket_message(&self, ws: web_sys::WebSocket, message: JsValue) -> Promise {
        let runner = self.runner.clone();
        let message = match message.as_string() {
            Some(text) => worker::WebSocketIncomingMessage::String(text),
            None => {
                worker::WebSocketIncomingMessage::Binary(js_sys::Uint8Array::new(&message).to_vec())
            }
        };
        self.guarded(
            "webSocketMessage",
            Invocation::WebSocketMessage,
            &JsValue::NULL,
            async move { settle(runner.websocket_message(ws.into(), message).await) },
        )
    }

    pub fn websocket_close(
        &self,
        ws: web_sys::WebSocket,
        code: usize,
        reason: String,
        was_clean: bool,
    ) -> Promise {
        let runner = self.runner.clone();
        self.guarded(
            "webSocketClose",
            Invocation::WebSocketEvent,
            &JsValue::NULL,
            async move {
                settle(
                    runner
                        .websocket_close(ws.into(), code, reason, was_clean)
                        .await,
                )
            },
        )
    }

    pub fn websocket_error(&self, ws: web_sys::WebSocket, error: JsValue) -> Promise {
        let runner = self.runner.clone();
        self.guarded(
            "webSocketError",
            Invocation::WebSocketEvent,
            &JsValue::NULL,
            async move { settle(runner.websocket_error(ws.into(), error.into()).await) },
        )
    }
}

/// An object class without WebSockets (the session, principal and upstream objects): its
/// name, as the guard and the counts say it, and its meter. One copy of the meter's and the
/// promise's glue serves all three (the work is boxed, not generic).
#[doc(hidden)]
pub struct Plain(&'static str, Meter);

impl Plain {
    fn new(name: &'static str) -> Plain {
        Plain(name, Meter::new(name))
    }

    /// A `fetch` of `request` (its JS object: the guard's JSON-RPC id and request id).
    fn fetch(&self, request: &JsValue, work: impl Future<Output = Outcome> + 'static) -> Promise {
        self.invoke("fetch", Invocation::Request, request, Box::pin(work))
    }

    fn alarm(&self, work: impl Future<Output = Outcome> + 'static) -> Promise {
        self.invoke("alarm", Invocation::Alarm, &JsValue::NULL, Box::pin(work))
    }

    fn invoke(
        &self,
        method: &str,
        kind: Invocation,
        request: &JsValue,
        work: Pin<Box<dyn Future<Output = Outcome>>>,
    ) -> Promise {
        let work = self.1.run(kind, work);
        guarded(self.0, method, request, &JsValue::NULL, work)
    }
}

/// The `SessionObject` class: one object per 2025-11-25 session ([`SessionRunner`]).
#[doc(hidden)]
pub struct SessionExport(Rc<SessionRunner>, Plain);

impl SessionExport {
    pub fn new(state: DurableObjectState, env: Env, build: fn() -> Server) -> Self {
        let runner = SessionRunner::new(state.into(), env, build);
        SessionExport(Rc::new(runner), Plain::new(bench::SESSION))
    }

    pub fn fetch(&self, req: web_sys::Request) -> Promise {
        let (runner, raw) = (self.0.clone(), js(&req));
        self.1
            .fetch(&raw, async move { respond(runner.fetch(req).await) })
    }

    /// An idle session's expiry.
    pub fn alarm(&self) -> Promise {
        let runner = self.0.clone();
        self.1.alarm(async move { respond(runner.alarm().await) })
    }
}

/// The `PrincipalObject` class: one object per principal, its quota ledger
/// ([`PrincipalRunner`]).
#[doc(hidden)]
pub struct PrincipalExport(Rc<PrincipalRunner>, Plain);

impl PrincipalExport {
    pub fn new(state: DurableObjectState, env: Env, _build: fn() -> Server) -> Self {
        let runner = PrincipalRunner::new(state.into(), env);
        PrincipalExport(Rc::new(runner), Plain::new(bench::PRINCIPAL))
    }

    pub fn fetch(&self, req: web_sys::Request) -> Promise {
        let (runner, raw) = (self.0.clone(), js(&req));
        self.1
            .fetch(&raw, async move { respond(runner.fetch(req).await) })
    }

    /// An abandoned principal's cleanup.
    pub fn alarm(&self) -> Promise {
        let runner = self.0.clone();
        self.1.alarm(async move { respond(runner.alarm().await) })
    }
}

/// The `UpstreamObject` class (gateway builds): one object per upstream, the watcher that
/// hears its tool list change ([`UpstreamRunner`](super::UpstreamRunner)).
#[cfg(feature = "gateway")]
#[doc(hidden)]
pub struct UpstreamExport(Rc<super::UpstreamRunner>, Plain);

#[cfg(feature = "gateway")]
impl UpstreamExport {
    pub fn new(state: DurableObjectState, env: Env, build: fn() -> Server) -> Self {
        let runner = super::UpstreamRunner::new(state.into(), env, build);
        UpstreamExport(Rc::new(runner), Plain::new(bench::UPSTREAM))
    }

    pub fn fetch(&self, req: web_sys::Request) -> Promise {
        let (runner, raw) = (self.0.clone(), js(&req));
        self.1
            .fetch(&raw, async move { respond(runner.fetch(req).await) })
    }

    /// One hold of the upstream's stream.
    pub fn alarm(&self) -> Promise {
        let runner = self.0.clone();
        self.1.alarm(async move { respond(runner.alarm().await) })
    }
}
