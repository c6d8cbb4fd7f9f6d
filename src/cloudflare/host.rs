//! The Worker's [`Platform`]: `fetch`, variables and secrets, KV and D1 from the `Env`.

use crate::host::{BoxFuture, Host, HostError, Inbound, Outbound, Platform};
use futures_util::future::{Either, select};
use serde_json::{Map, Value};
use std::any::Any;
use std::time::Duration;
use worker::{AbortController, Date, Delay, Env, Fetch, Method, Request, RequestInit};

/// The platform of a Worker or Durable Object invocation.
pub struct WorkerHost {
    env: Env,
}

impl WorkerHost {
    pub fn new(env: Env) -> Self {
        WorkerHost { env }
    }

    /// A [`Host`] over `env`.
    pub fn host(env: Env) -> Host {
        Host::new(WorkerHost::new(env))
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

async fn send(request: Outbound) -> Result<Inbound, HostError> {
    let method = Method::from(request.method.clone());
    let headers = worker::Headers::new();
    for (name, value) in &request.headers {
        headers.append(name, value).map_err(network)?;
    }
    let mut init = RequestInit::new();
    init.with_method(method).with_headers(headers);
    if !request.body.is_empty() {
        let body = js_sys::Uint8Array::from(request.body.as_slice());
        init.with_body(Some(body.into()));
    }
    let outgoing = Request::new_with_init(&request.url, &init).map_err(network)?;
    let controller = AbortController::default();
    let signal = controller.signal();
    let fetch = Fetch::Request(outgoing);
    let sending = Box::pin(fetch.send_with_signal(&signal));
    let timeout = Box::pin(Delay::from(Duration::from_millis(request.timeout_ms)));
    let mut response = match select(sending, timeout).await {
        Either::Left((result, _)) => result.map_err(network)?,
        Either::Right(_) => {
            controller.abort();
            return Err(HostError::Timeout {
                url: request.url,
                ms: request.timeout_ms,
            });
        }
    };
    let declared = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.trim().parse::<usize>().ok());
    if declared.is_some_and(|n| n > request.max_bytes) {
        return Err(HostError::Network(format!(
            "{} answered with {} bytes, more than the {} allowed",
            request.url,
            declared.unwrap_or_default(),
            request.max_bytes
        )));
    }
    let body = super::response_bytes(&mut response)
        .await
        .map_err(network)?;
    if body.len() > request.max_bytes {
        return Err(HostError::Network(format!(
            "{} answered with more than the {} bytes allowed",
            request.url, request.max_bytes
        )));
    }
    Ok(Inbound {
        status: response.status_code(),
        headers: response.headers().entries().collect(),
        body,
        url: request.url,
    })
}

fn js_params(params: Vec<Value>) -> Result<Vec<wasm_bindgen::JsValue>, HostError> {
    params
        .iter()
        .map(|p| {
            serde_wasm_bindgen::to_value(p)
                .map_err(|e| HostError::Storage(format!("bad D1 parameter: {e}")))
        })
        .collect()
}

impl WorkerHost {
    fn kv(&self, binding: &str) -> Result<worker::kv::KvStore, HostError> {
        self.env
            .kv(binding)
            .map_err(|_| missing("KV binding", binding))
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
        db.prepare(sql).bind(&js_params(params)?).map_err(storage)
    }
}

impl Platform for WorkerHost {
    fn fetch(&self, request: Outbound) -> BoxFuture<'_, Result<Inbound, HostError>> {
        Box::pin(send(request))
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
                .map_err(HostError::Network)
        })
    }

    fn kv_get<'a>(
        &'a self,
        binding: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, HostError>> {
        Box::pin(async move {
            let kv = self.kv(binding)?;
            kv.get(key).text().await.map_err(storage)
        })
    }

    fn kv_put<'a>(
        &'a self,
        binding: &'a str,
        key: &'a str,
        value: String,
        ttl_seconds: Option<u64>,
    ) -> BoxFuture<'a, Result<(), HostError>> {
        Box::pin(async move {
            let kv = self.kv(binding)?;
            let mut put = kv.put(key, value).map_err(storage)?;
            if let Some(ttl) = ttl_seconds {
                put = put.expiration_ttl(ttl);
            }
            put.execute().await.map_err(storage)
        })
    }

    fn kv_delete<'a>(
        &'a self,
        binding: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<(), HostError>> {
        Box::pin(async move {
            let kv = self.kv(binding)?;
            kv.delete(key).await.map_err(storage)
        })
    }

    fn d1_query<'a>(
        &'a self,
        binding: &'a str,
        sql: &'a str,
        params: Vec<Value>,
    ) -> BoxFuture<'a, Result<Vec<Map<String, Value>>, HostError>> {
        Box::pin(async move {
            let statement = self.statement(binding, sql, params)?;
            statement
                .all()
                .await
                .map_err(storage)?
                .results::<Map<String, Value>>()
                .map_err(storage)
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
            let result = statement.run().await.map_err(storage)?;
            Ok(result
                .meta()
                .map_err(storage)?
                .and_then(|m| m.changes)
                .unwrap_or(0) as u64)
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
