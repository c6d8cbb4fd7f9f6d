//! The quota Durable Object, [`PrincipalRunner`]: one object per ledger (named by
//! `auth::anonymous::ledger_name`), holding that principal's counters under one key and its
//! task index as one key per task ([`crate::quota::index_key`]). A Durable Object handles
//! its requests one at a time around storage, so read-decide-write is atomic and the
//! counters hold across every isolate. It only loads, asks [`quota::plan`] and stores.

use super::bench::{self, PRINCIPAL};
use super::mirror::Mirror;
use super::now_ms;
use crate::auth::anonymous::ledger_name;
use crate::error::McpError;
use crate::quota::{self, INDEX_PREFIX, LedgerRequest, Quotas, RENEW_MS, Reply};
use js_sys::{Object, Reflect};
use std::cell::Cell;
use wasm_bindgen::JsValue;
use worker::{Env, Request, Response, Result, State};

/// The Durable Object binding name (wrangler.toml).
pub const PRINCIPALS_BINDING: &str = "PRINCIPALS";
const LEDGER_KEY: &str = "ledger";
const LEDGER_URL: &str = "https://principal-object/ledger";

/// What the `PrincipalObject` class of `export_worker!` runs.
pub struct PrincipalRunner {
    state: State,
    /// The value under [`LEDGER_KEY`] as this instance last read or wrote it
    /// (`super::mirror`): a warm ledger answers without reading it again.
    ledger: Mirror,
}

fn rust_error(e: impl std::fmt::Display) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

impl PrincipalRunner {
    pub fn new(state: State, _env: Env) -> Self {
        PrincipalRunner {
            state,
            ledger: Mirror::new(LEDGER_KEY, PRINCIPAL),
        }
    }

    /// One [`LedgerRequest`] (a failure forgets the mirrored ledger).
    pub async fn fetch(&self, mut req: Request) -> Result<Response> {
        let request: LedgerRequest = match super::request_json(&mut req).await {
            Ok(request) => request,
            Err(e) => return Response::error(format!("bad ledger request: {e}"), 400),
        };
        let answered = self.answer(request).await;
        if answered.is_err() {
            self.ledger.forget();
        }
        answered
    }

    async fn answer(&self, request: LedgerRequest) -> Result<Response> {
        let storage = self.state.storage();
        let stored = self.ledger.get(&storage).await?;
        let listed = match quota::listing(&request) {
            Some((before, limit)) => {
                Some(index_keys(&self.state, true, Some(limit), before).await?)
            }
            None => None,
        };
        // A ledger that does not decode is an error to surface, never a reset of quotas.
        let mut plan =
            quota::plan(stored.as_deref(), &request, now_ms(), listed).map_err(rust_error)?;
        if plan.trim > 0 {
            let oldest = index_keys(&self.state, false, Some(plan.trim), None).await?;
            plan.trimmed(oldest).map_err(rust_error)?;
        }
        let puts = Object::new();
        for (key, value) in &plan.put {
            Reflect::set(&puts, &JsValue::from_str(key), &JsValue::from_str(value))?;
        }
        if let Some(ledger) = &plan.ledger {
            self.ledger.wrote(Some(ledger.clone()));
            Reflect::set(
                &puts,
                &JsValue::from_str(LEDGER_KEY),
                &JsValue::from_str(ledger),
            )?;
        }
        let put = plan.put.len() + usize::from(plan.ledger.is_some());
        bench::rows_written(PRINCIPAL, plan.delete.len() + put);
        if !plan.delete.is_empty() {
            storage.delete_multiple(plan.delete.clone()).await?;
        }
        if plan.ledger.is_some() || !plan.put.is_empty() {
            storage.put_multiple_raw(puts).await?;
        }
        if let Some(at) = plan.alarm {
            bench::rows_written(PRINCIPAL, 1);
            storage.set_alarm(scheduled(at)).await?;
        }
        Response::from_json(&plan.reply)
    }

    /// The alarm: once everything the ledger holds has expired, the object deletes its
    /// storage (an abandoned principal leaves nothing behind); otherwise it looks again
    /// at the latest deadline.
    pub async fn alarm(&self) -> Result<Response> {
        let expired = self.expire().await;
        if expired.is_err() {
            self.ledger.forget();
        }
        expired
    }

    async fn expire(&self) -> Result<Response> {
        let storage = self.state.storage();
        let stored = self.ledger.get(&storage).await?;
        match quota::expired(stored.as_deref(), now_ms()).map_err(rust_error)? {
            None => {
                self.ledger.wrote(None);
                bench::before_delete_all(PRINCIPAL, &storage).await;
                storage.delete_all().await?
            }
            Some(at) => {
                bench::rows_written(PRINCIPAL, 1);
                storage.set_alarm(scheduled(at)).await?
            }
        }
        Response::empty()
    }
}

fn scheduled(at_ms: u64) -> worker::ScheduledTime {
    worker::ScheduledTime::new(js_sys::Date::new(&JsValue::from_f64(at_ms as f64)))
}

/// The index's entries (key, value), newest first when `newest`, at most `limit`, only
/// those before the key `before` when given.
async fn index_keys(
    state: &State,
    newest: bool,
    limit: Option<usize>,
    before: Option<&str>,
) -> Result<Vec<(String, String)>> {
    let map = super::js_api::storage_list(
        &state.as_raw().storage()?,
        INDEX_PREFIX,
        newest,
        limit,
        before,
    )
    .await?;
    bench::rows_read(PRINCIPAL, map.size() as usize);
    let mut entries = Vec::new();
    for entry in map.entries() {
        let pair: js_sys::Array = entry?.into();
        if let (Some(key), Some(value)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
            entries.push((key, value));
        }
    }
    Ok(entries)
}

/// Sends one request to the ledger counting `principal`'s work: `Err` is the 429 naming
/// the limit that refuses it, or a -32603 when the ledger cannot be reached.
pub(crate) async fn ledger(
    env: &Env,
    principal: &str,
    request: &LedgerRequest,
) -> std::result::Result<(), McpError> {
    // An anonymous session's run takes a place among all anonymous runs first.
    if let Some(shared) = crate::quota::shared_run(principal, request) {
        ask(env, crate::auth::ANONYMOUS, &shared).await?;
    }
    ask(env, principal, request).await
}

/// One request to one ledger: `Err` is its refusal, or a -32603 when it is unreachable.
async fn ask(
    env: &Env,
    principal: &str,
    request: &LedgerRequest,
) -> std::result::Result<(), McpError> {
    let reply = send(env, principal, request)
        .await
        .map_err(|why| McpError::Internal(format!("quota ledger unavailable: {why}")))?;
    match reply.exceeded {
        Some(exceeded) => Err(exceeded.to_error()),
        None => Ok(()),
    }
}

/// One page of `principal`'s tasks, newest first, from its ledger's index: those before
/// the cursor `before` (or the newest), and the cursor of the next page.
pub(crate) async fn task_index(
    env: &Env,
    principal: &str,
    before: Option<&str>,
) -> std::result::Result<(Vec<String>, Option<String>), String> {
    let before = before.map(str::to_owned);
    let reply = send(env, principal, &LedgerRequest::ListTasks { before }).await?;
    Ok((reply.tasks.unwrap_or_default(), reply.next))
}

/// Sends `request` to the ledger that counts `principal`'s work.
async fn send(
    env: &Env,
    principal: &str,
    request: &LedgerRequest,
) -> std::result::Result<Reply, String> {
    let namespace = env.durable_object(PRINCIPALS_BINDING).map_err(|_| {
        format!(
            "quotas need the {PRINCIPALS_BINDING} Durable Object binding (class PrincipalObject, \
             docs/authoring.md), or set QUOTA_TASKS_PER_MINUTE, QUOTA_LIVE_TASKS \
             and QUOTA_LISTEN_STREAMS to unlimited"
        )
    })?;
    let stub = namespace
        .get_by_name(ledger_name(principal))
        .map_err(|e| e.to_string())?;
    let body = serde_json::to_string(request).map_err(|e| e.to_string())?;
    let mut response = super::post_to_object(&stub, LEDGER_URL, &[], body).await?;
    let body = super::response_bytes(&mut response)
        .await
        .map_err(|e| e.to_string())?;
    if response.status_code() != 200 {
        return Err(format!(
            "ledger answered {}: {}",
            response.status_code(),
            String::from_utf8_lossy(&body)
        ));
    }
    crate::jsonrpc::read(&body).map_err(|e| e.to_string())
}

/// A listen stream's slot in its principal's ledger: renewed while the stream is open,
/// released when it ends (a stream dropped by a disconnect frees its slot when the
/// lease runs out).
pub struct StreamSlot {
    env: Env,
    principal: String,
    stream_id: String,
    quotas: Quotas,
    renewed_at_ms: Cell<u64>,
}

impl StreamSlot {
    /// Takes a slot: `Err` when the principal has too many streams open (or the ledger
    /// cannot be reached).
    pub(crate) async fn acquire(
        env: Env,
        principal: &str,
        stream_id: String,
        quotas: Quotas,
    ) -> std::result::Result<StreamSlot, McpError> {
        let request = LedgerRequest::AcquireStream {
            stream_id: stream_id.clone(),
            quotas,
        };
        ledger(&env, principal, &request).await?;
        Ok(StreamSlot {
            env,
            principal: principal.to_owned(),
            stream_id,
            quotas,
            renewed_at_ms: Cell::new(now_ms()),
        })
    }

    /// Renews the lease when due (best effort).
    pub async fn keep(&self) {
        let now = now_ms();
        if now < self.renewed_at_ms.get() + RENEW_MS {
            return;
        }
        self.renewed_at_ms.set(now);
        let request = LedgerRequest::AcquireStream {
            stream_id: self.stream_id.clone(),
            quotas: self.quotas,
        };
        let _ = ledger(&self.env, &self.principal, &request).await;
    }

    /// Frees the slot (best effort; the lease is the fallback).
    pub async fn release(&self) {
        let request = LedgerRequest::ReleaseStream {
            stream_id: self.stream_id.clone(),
        };
        let _ = ledger(&self.env, &self.principal, &request).await;
    }
}
