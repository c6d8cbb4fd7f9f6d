//! The Worker's [`Platform`]: `fetch`, variables and secrets, KV and D1 from the `Env`.

use super::http::outgoing;
use super::js_api::{self, KvNamespace};
use crate::host::{
    BoxFuture, Chunks, Host, HostError, Inbound, Limits, Outbound, Platform, Streaming,
};
use crate::server::Server;
use futures_util::future::{Either, select};
use serde_json::{Map, Value};
use std::any::Any;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;
use worker::web_sys::{self, RequestRedirect};
use worker::{AbortController, Date, Delay, Env, Fetcher};

/// The platform of a Worker or Durable Object invocation.
pub struct WorkerHost {
    env: Env,
}

impl WorkerHost {
    pub fn new(env: Env) -> Self {
        WorkerHost { env }
    }

    /// A [`Host`] over `env`, under `server`'s outbound policy.
    pub fn host(env: Env, server: &Server) -> Host {
        server.host(Rc::new(WorkerHost::new(env)))
    }
}

/// The raw `Env` behind a host, for bindings the typed helpers do not cover (R2, Queues,
/// AI, service bindings, …). `None` when the host is not a Worker's (a native test fake).
pub fn env(host: &Host) -> Option<&Env> {
    host.platform()
        .as_any()
        .downcast_ref::<WorkerHost>()
        .map(|h| &h.env)
}

fn network(e: impl std::fmt::Display) -> HostError {
    HostError::Network(e.to_string())
}

fn storage(e: impl std::fmt::Display) -> HostError {
    HostError::Storage(e.to_string())
}

/// One exchange (see [`Platform::fetch`]): sent with `redirect: manual`, the answer's
/// status, headers and body all within `limits.timeout_ms`, the body read chunk by chunk
/// and abandoned as soon as it passes `limits.max_bytes`.
pub(crate) async fn send(request: Outbound, limits: Limits) -> Result<Inbound, HostError> {
    open(None, request, limits).await?.into_inbound().await
}

/// [`Platform::open`] to the network (`service` `None`) or to the Worker behind a service
/// binding: sent with `redirect: manual` (and an abort signal, to the network), answered
/// once status and headers came within `limits.timeout_ms`; the [`Body`] then keeps what is
/// left of that deadline, and [`Streaming`] counts the bytes against `limits.max_bytes`.
/// (The runtime's promises directly, raced by [`within`]: `worker`'s `Fetch` and
/// `Fetcher::fetch_request` would each bring their own future and response conversion.)
async fn open(
    service: Option<Fetcher>,
    request: Outbound,
    limits: Limits,
) -> Result<Streaming, HostError> {
    let deadline = Date::now().as_millis().saturating_add(limits.timeout_ms);
    let controller = AbortController::default();
    let outgoing = outgoing_request(&request)?;
    let sent = match &service {
        None => {
            let init = web_sys::RequestInit::new();
            init.set_signal(Some(&controller.signal()));
            let global: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
            global.fetch_with_request_and_init(outgoing.inner(), &init)
        }
        // A binding's request cannot take the signal: its body is cancelled instead.
        Some(fetcher) => {
            let fetcher: &worker::worker_sys::Fetcher = fetcher.as_ref().unchecked_ref();
            fetcher.fetch(outgoing.inner()).map_err(js)?
        }
    };
    let Some(response) = within(sent, limits.timeout_ms).await else {
        controller.abort();
        return Err(HostError::Timeout {
            url: request.url,
            ms: limits.timeout_ms,
        });
    };
    let response: web_sys::Response = response.map_err(js)?.unchecked_into();
    let reader = match response.body() {
        Some(stream) => Some(web_sys::ReadableStreamDefaultReader::new(&stream).map_err(js)?),
        None => None,
    };
    // From here, dropping `body` (an error below, or the caller's) stops the request.
    let body = Body {
        reader,
        controller: service.is_none().then_some(controller),
        deadline,
        failed: None,
        url: request.url.clone(),
        timeout_ms: limits.timeout_ms,
    };
    let headers = worker::Headers(response.headers());
    let declared = headers
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.trim().parse::<usize>().ok());
    if declared.is_some_and(|n| n > limits.max_bytes) {
        return Err(HostError::TooLarge {
            url: request.url,
            limit: limits.max_bytes,
        });
    }
    let headers = headers.entries().collect();
    let answer = Streaming::new(response.status(), headers, request.url, Box::new(body));
    Ok(answer.max_bytes(limits.max_bytes))
}

/// `request` as the runtime's, sent with `redirect: manual`.
fn outgoing_request(request: &Outbound) -> Result<worker::Request, HostError> {
    let headers = worker::Headers::new();
    for (name, value) in &request.headers {
        headers.append(name, value).map_err(network)?;
    }
    let body = (!request.body.is_empty()).then_some(request.body.as_slice());
    outgoing(
        &request.url,
        &request.method,
        &headers,
        body,
        RequestRedirect::Manual,
    )
    .map_err(network)
}

/// What `promise` settles with, or `None` when `ms` milliseconds passed first.
async fn within(promise: js_sys::Promise, ms: u64) -> Option<Result<JsValue, JsValue>> {
    let timeout = Box::pin(Delay::from(Duration::from_millis(ms)));
    match select(JsFuture::from(promise), timeout).await {
        Either::Left((settled, _)) => Some(settled),
        Either::Right(_) => None,
    }
}

/// The body of an answer as it arrives (see [`open`]), chunk by chunk as the runtime
/// gives it (`worker`'s `ByteStream` would bring `wasm_streams` into the Worker), each
/// read raced against what is left of the request's deadline.
struct Body {
    /// `None`: no body, or the end was read, or the request was stopped.
    reader: Option<web_sys::ReadableStreamDefaultReader>,
    /// The network's request: aborted to stop it. `None`: a service binding's.
    controller: Option<AbortController>,
    /// Unix milliseconds.
    deadline: u64,
    /// Why reading stopped (the deadline, or the stream's failure): every later read says so.
    failed: Option<HostError>,
    url: String,
    timeout_ms: u64,
}

impl Body {
    /// Stops the request: the connection is closed, a binding's body cancelled.
    fn stop(&mut self) {
        let Some(reader) = self.reader.take() else {
            return;
        };
        match self.controller.take() {
            Some(controller) => controller.abort(),
            // Fire and forget: the other Worker's body is cancelled whenever it can be.
            None => {
                let _ = reader.cancel();
            }
        }
    }

    /// Stops reading for good with `error`.
    fn fail(&mut self, error: HostError) -> HostError {
        self.stop();
        self.failed = Some(error.clone());
        error
    }

    fn timeout(&mut self) -> HostError {
        self.fail(HostError::Timeout {
            url: self.url.clone(),
            ms: self.timeout_ms,
        })
    }
}

impl Chunks for Body {
    fn next(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, HostError>> {
        Box::pin(async move {
            if let Some(failed) = &self.failed {
                return Err(failed.clone());
            }
            let Some(reader) = &self.reader else {
                return Ok(None);
            };
            let left = self.deadline.saturating_sub(Date::now().as_millis());
            if left == 0 {
                return Err(self.timeout());
            }
            let read = match within(reader.read(), left).await {
                Some(Ok(read)) => read,
                // The stream failed: there is nothing left to stop (or to cancel).
                Some(Err(e)) => {
                    self.reader = None;
                    return Err(self.fail(js(e)));
                }
                None => return Err(self.timeout()),
            };
            if js_sys::Reflect::get(&read, &"done".into())
                .map_err(js)?
                .is_truthy()
            {
                self.reader = None;
                return Ok(None);
            }
            let chunk: js_sys::Uint8Array = js_sys::Reflect::get(&read, &"value".into())
                .map_err(js)?
                .unchecked_into();
            Ok(Some(chunk.to_vec()))
        })
    }
}

impl Drop for Body {
    fn drop(&mut self) {
        self.stop();
    }
}

fn js(e: JsValue) -> HostError {
    network(worker::Error::from(e))
}

impl WorkerHost {
    fn service(&self, binding: &str) -> Result<Fetcher, HostError> {
        self.env
            .service(binding)
            .map_err(|_| missing("service binding", binding))
    }

    fn kv(&self, binding: &str) -> Result<KvNamespace, HostError> {
        js_api::kv_namespace(&self.env, binding).ok_or_else(|| missing("KV binding", binding))
    }

    /// A D1 statement with its parameters bound.
    fn statement(
        &self,
        binding: &str,
        sql: &str,
        params: Vec<Value>,
    ) -> Result<worker::D1PreparedStatement, HostError> {
        let db = self
            .env
            .d1(binding)
            .map_err(|_| missing("D1 binding", binding))?;
        let params = params
            .iter()
            .map(js_api::d1_param)
            .collect::<Result<Vec<_>, _>>()?;
        db.prepare(sql).bind(&params).map_err(storage)
    }
}

impl Platform for WorkerHost {
    fn fetch(
        &self,
        request: Outbound,
        limits: Limits,
    ) -> BoxFuture<'_, Result<Inbound, HostError>> {
        Box::pin(send(request, limits))
    }

    fn fetch_service<'a>(
        &'a self,
        binding: &'a str,
        request: Outbound,
        limits: Limits,
    ) -> BoxFuture<'a, Result<Inbound, HostError>> {
        Box::pin(async move {
            let fetcher = self.service(binding)?;
            open(Some(fetcher), request, limits)
                .await?
                .into_inbound()
                .await
        })
    }

    fn open<'a>(
        &'a self,
        binding: Option<&'a str>,
        request: Outbound,
        limits: Limits,
    ) -> BoxFuture<'a, Result<Streaming, HostError>> {
        Box::pin(async move {
            let fetcher = binding.map(|binding| self.service(binding)).transpose()?;
            open(fetcher, request, limits).await
        })
    }

    fn var(&self, name: &str) -> Option<String> {
        self.env.var(name).ok().map(|v| v.to_string())
    }

    fn secret(&self, name: &str) -> Option<String> {
        self.env
            .secret(name)
            .ok()
            .map(|v| v.to_string())
            .or_else(|| self.var(name))
    }

    fn sleep(&self, ms: u64) -> BoxFuture<'_, ()> {
        Box::pin(Delay::from(Duration::from_millis(ms)))
    }

    fn now_ms(&self) -> u64 {
        Date::now().as_millis()
    }

    fn resource_updated<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Result<(), HostError>> {
        Box::pin(async move {
            super::session_object::registry::announce(&self.env, uri)
                .await
                .map_err(|e| HostError::Network(e.to_string()))
        })
    }

    fn kv_get<'a>(
        &'a self,
        binding: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, HostError>> {
        Box::pin(async move { js_api::kv_get(&self.kv(binding)?, key).await })
    }

    fn kv_put<'a>(
        &'a self,
        binding: &'a str,
        key: &'a str,
        value: String,
        ttl_seconds: Option<u64>,
    ) -> BoxFuture<'a, Result<(), HostError>> {
        Box::pin(async move { js_api::kv_put(&self.kv(binding)?, key, &value, ttl_seconds).await })
    }

    fn kv_delete<'a>(
        &'a self,
        binding: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<(), HostError>> {
        Box::pin(async move { js_api::kv_delete(&self.kv(binding)?, key).await })
    }

    fn d1_query<'a>(
        &'a self,
        binding: &'a str,
        sql: &'a str,
        params: Vec<Value>,
    ) -> BoxFuture<'a, Result<Vec<Map<String, Value>>, HostError>> {
        Box::pin(async move {
            let statement = self.statement(binding, sql, params)?;
            js_api::d1_all(statement.inner()).await
        })
    }

    fn d1_execute<'a>(
        &'a self,
        binding: &'a str,
        sql: &'a str,
        params: Vec<Value>,
    ) -> BoxFuture<'a, Result<u64, HostError>> {
        Box::pin(async move {
            let statement = self.statement(binding, sql, params)?;
            js_api::d1_run(statement.inner()).await
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn missing(what: &'static str, name: &str) -> HostError {
    HostError::Missing {
        what,
        name: name.to_owned(),
    }
}
