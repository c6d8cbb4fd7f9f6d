//! The Worker's [`Platform`]: `fetch`, variables and secrets, KV and D1 from the `Env`.

use super::exchange::{open, send};
use super::js_api::{self, KvNamespace};
use crate::host::{BoxFuture, Host, HostError, Inbound, Limits, Outbound, Platform, Streaming};
use crate::server::Server;
use serde_json::{Map, Value};
use std::any::Any;
use std::rc::Rc;
use std::time::Duration;
use worker::{Date, Delay, Env, Fetcher};

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

fn storage(e: impl std::fmt::Display) -> HostError {
    HostError::Storage(e.to_string())
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
            crate::legacy::subscribers::announce(&self.env, uri)
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
