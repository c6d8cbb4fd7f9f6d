//! The Worker's [`Platform`]: `fetch`, variables and secrets, KV and D1 from the `Env`.

use super::http::outgoing;
use super::js_api::{self, KvNamespace};
use crate::host::{BoxFuture, Host, HostError, Inbound, Limits, Outbound, Platform};
use crate::server::Server;
use futures_util::future::{Either, select};
use serde_json::{Map, Value};
use std::any::Any;
use std::rc::Rc;
use std::time::Duration;
use worker::web_sys::RequestRedirect;
use worker::{AbortController, Date, Delay, Env, Fetch, Fetcher};

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
    send_to(None, request, limits).await
}

/// [`send`] to the network (`service` `None`) or to the Worker behind a service binding.
async fn send_to(
    service: Option<Fetcher>,
    request: Outbound,
    limits: Limits,
) -> Result<Inbound, HostError> {
    let controller = AbortController::default();
    let signal = controller.signal();
    let exchange = Box::pin(exchange(service, &request, limits.max_bytes, &signal));
    let timeout = Box::pin(Delay::from(Duration::from_millis(limits.timeout_ms)));
    match select(exchange, timeout).await {
        Either::Left((answer, _)) => {
            if answer.is_err() {
                // Stop a body still arriving (one too large, say).
                controller.abort();
            }
            answer
        }
        Either::Right(_) => {
            controller.abort();
            Err(HostError::Timeout {
                url: request.url.clone(),
                ms: limits.timeout_ms,
            })
        }
    }
}

async fn exchange(
    service: Option<Fetcher>,
    request: &Outbound,
    max_bytes: usize,
    signal: &worker::AbortSignal,
) -> Result<Inbound, HostError> {
    let headers = worker::Headers::new();
    for (name, value) in &request.headers {
        headers.append(name, value).map_err(network)?;
    }
    let body = (!request.body.is_empty()).then_some(request.body.as_slice());
    let outgoing = outgoing(
        &request.url,
        &request.method,
        &headers,
        body,
        RequestRedirect::Manual,
    )
    .map_err(network)?;
    let response = match service {
        None => Fetch::Request(outgoing).send_with_signal(signal).await,
        // A binding's request cannot take the signal: at the deadline the answer is
        // abandoned (the select above), the other Worker's work is its own.
        Some(fetcher) => fetcher.fetch_request(outgoing).await,
    }
    .map_err(network)?;
    let too_large = || HostError::TooLarge {
        url: request.url.clone(),
        limit: max_bytes,
    };
    let declared = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.trim().parse::<usize>().ok());
    if declared.is_some_and(|n| n > max_bytes) {
        return Err(too_large());
    }
    let body = match response.body() {
        worker::ResponseBody::Stream(stream) => super::http::read_up_to(stream, max_bytes)
            .await
            .map_err(network)?,
        _ => Vec::new(),
    };
    if body.len() > max_bytes {
        return Err(too_large());
    }
    Ok(Inbound {
        status: response.status_code(),
        headers: response.headers().entries().collect(),
        body,
        url: request.url.clone(),
    })
}

impl WorkerHost {
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
            let fetcher = self
                .env
                .service(binding)
                .map_err(|_| missing("service binding", binding))?;
            send_to(Some(fetcher), request, limits).await
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
