//! The quota Durable Object, [`PrincipalRunner`]: one object per principal (named by
//! it), holding that principal's [`Ledger`] (its counters) under one key and its task
//! index as one key per task ([`crate::quota::index_key`]). A Durable Object handles its
//! requests one at a time around storage, so read-decide-write is atomic and the
//! counters hold across every isolate. The Worker asks it before creating a task or
//! opening a listen stream; TaskObjects tell it when their task ends.

use super::now_ms;
use crate::quota::{
    self, Exceeded, INDEX_PREFIX, Ledger, LedgerRequest, Quotas, RENEW_MS, index_value,
};
use js_sys::{Object, Reflect};
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use wasm_bindgen::JsValue;
use worker::{Env, ListOptions, Request, Response, Result, State, Storage};

/// The Durable Object binding name (wrangler.toml).
pub const PRINCIPALS_BINDING: &str = "PRINCIPALS";
const LEDGER_KEY: &str = "ledger";
const LEDGER_URL: &str = "https://principal-object/ledger";

/// The ledger's answer.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reply {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exceeded: Option<Exceeded>,
    /// For [`LedgerRequest::ListTasks`]: the indexed task ids, newest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tasks: Option<Vec<String>>,
}

/// What the author's `#[durable_object] PrincipalObject` delegates to.
pub struct PrincipalRunner {
    state: State,
}

impl PrincipalRunner {
    pub fn new(state: State, _env: Env) -> Self {
        PrincipalRunner { state }
    }

    /// One [`LedgerRequest`].
    pub async fn fetch(&self, mut req: Request) -> Result<Response> {
        let request: LedgerRequest = match super::request_json(&mut req).await {
            Ok(request) => request,
            Err(e) => return Response::error(format!("bad ledger request: {e}"), 400),
        };
        let storage = self.state.storage();
        let stored = storage.get::<String>(LEDGER_KEY).await?;
        let mut ledger: Ledger = stored
            .as_deref()
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default();
        let before = ledger.clone();
        let now = now_ms();
        let mut entries = ledger.take_legacy_index();
        let outcome = ledger.apply(&request, now);
        if let Ok(Some(entry)) = &outcome {
            entries.push(entry.clone());
        }
        // Listing reads the index, and its expired entries go with this request's writes.
        let (tasks, mut deletes) = match request {
            LedgerRequest::ListTasks => {
                let (live, expired) =
                    quota::read_index(index_keys(&storage, true, None).await?, now);
                ledger.indexed = ledger.indexed.saturating_sub(expired.len() as u64);
                (Some(live), expired)
            }
            _ => (None, Vec::new()),
        };
        let trim = ledger.trim_index();
        if trim > 0 {
            for (key, _) in index_keys(&storage, false, Some(trim as usize)).await? {
                if deletes.contains(&key) {
                    // Already dropped as expired (and uncounted): not twice.
                    ledger.indexed += 1;
                } else {
                    deletes.push(key);
                }
            }
        }
        let puts = Object::new();
        for entry in &entries {
            let value = JsValue::from_str(&index_value(entry.until_ms));
            Reflect::set(&puts, &JsValue::from_str(&entry.key), &value)?;
        }
        let changed = ledger != before;
        if changed {
            let value = serde_json::to_string(&ledger)
                .map_err(|e| worker::Error::RustError(e.to_string()))?;
            Reflect::set(
                &puts,
                &JsValue::from_str(LEDGER_KEY),
                &JsValue::from_str(&value),
            )?;
        }
        if !deletes.is_empty() {
            storage.delete_multiple(deletes).await?;
        }
        if changed || !entries.is_empty() {
            storage.put_multiple_raw(puts).await?;
        }
        Response::from_json(&Reply {
            exceeded: outcome.err(),
            tasks,
        })
    }
}

/// The index's entries (key, value), newest first when `newest`, at most `limit`.
async fn index_keys(
    storage: &Storage,
    newest: bool,
    limit: Option<usize>,
) -> Result<Vec<(String, String)>> {
    let mut options = ListOptions::new().prefix(INDEX_PREFIX).reverse(newest);
    if let Some(limit) = limit {
        options = options.limit(limit);
    }
    let map = storage.list_with_options(options).await?;
    let mut entries = Vec::new();
    for entry in map.entries() {
        let pair: js_sys::Array = entry?.into();
        if let (Some(key), Some(value)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
            entries.push((key, value));
        }
    }
    Ok(entries)
}

/// Sends one request to `principal`'s ledger: `Ok(Err(exceeded))` when a limit refuses
/// it, `Err` when the ledger cannot be reached.
pub(crate) async fn ledger(
    env: &Env,
    principal: &str,
    request: &LedgerRequest,
) -> std::result::Result<std::result::Result<(), Exceeded>, String> {
    let reply = send(env, principal, request).await?;
    Ok(match reply.exceeded {
        Some(exceeded) => Err(exceeded),
        None => Ok(()),
    })
}

/// `principal`'s tasks, newest first, from its ledger's index.
pub(crate) async fn task_index(
    env: &Env,
    principal: &str,
) -> std::result::Result<Vec<String>, String> {
    Ok(send(env, principal, &LedgerRequest::ListTasks)
        .await?
        .tasks
        .unwrap_or_default())
}

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
        .get_by_name(principal)
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
    serde_json::from_slice(&body).map_err(|e| e.to_string())
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
    /// Takes a slot: `Ok(Err(exceeded))` when the principal has too many streams open.
    pub(crate) async fn acquire(
        env: Env,
        principal: &str,
        stream_id: String,
        quotas: Quotas,
    ) -> std::result::Result<std::result::Result<StreamSlot, Exceeded>, String> {
        let request = LedgerRequest::AcquireStream {
            stream_id: stream_id.clone(),
            quotas,
        };
        Ok(ledger(&env, principal, &request)
            .await?
            .map(|()| StreamSlot {
                env,
                principal: principal.to_owned(),
                stream_id,
                quotas,
                renewed_at_ms: Cell::new(now_ms()),
            }))
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
