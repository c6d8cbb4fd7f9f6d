//! Per-principal quotas, the pure part. One ledger per principal lives in that
//! principal's Durable Object (strongly consistent across isolates); the Worker asks it
//! before creating a task or opening a listen stream, and a TaskObject tells it when its
//! task ends. Every operation is idempotent (keyed by task or stream id), and every
//! entry carries a deadline, so a lost release only holds a slot until the task's TTL or
//! the stream's lease runs out.

use crate::error::McpError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The sliding window of `QUOTA_TASKS_PER_MINUTE`.
pub const WINDOW_MS: u64 = 60_000;
/// A listen stream holds its slot this long unless renewed ([`RENEW_MS`]).
pub const STREAM_LEASE_MS: u64 = 120_000;
/// How often an open stream renews its lease.
pub const RENEW_MS: u64 = 30_000;
/// `Retry-After` when a slot frees only as tasks end or streams close.
pub const RETRY_SLOT_S: u64 = 5;

/// The limits (`None`: unlimited).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Quotas {
    pub tasks_per_minute: Option<u64>,
    pub live_tasks: Option<u64>,
    pub listen_streams: Option<u64>,
}

impl Default for Quotas {
    fn default() -> Self {
        Quotas {
            tasks_per_minute: Some(60),
            live_tasks: Some(100),
            listen_streams: Some(10),
        }
    }
}

impl Quotas {
    /// Whether creating a task needs to ask the ledger at all.
    pub fn counts_tasks(&self) -> bool {
        self.tasks_per_minute.is_some() || self.live_tasks.is_some()
    }
}

/// What the Worker and TaskObjects ask a principal's ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum LedgerRequest {
    /// Before creating task `task_id` (live until `until_ms`, its expiry).
    #[serde(rename_all = "camelCase")]
    AcquireTask {
        task_id: String,
        until_ms: Option<u64>,
        quotas: Quotas,
    },
    /// The task ended (terminal, expired or never created). Idempotent.
    #[serde(rename_all = "camelCase")]
    ReleaseTask { task_id: String },
    /// Opening a listen stream, or renewing its lease.
    #[serde(rename_all = "camelCase")]
    AcquireStream { stream_id: String, quotas: Quotas },
    /// The stream closed. Idempotent.
    #[serde(rename_all = "camelCase")]
    ReleaseStream { stream_id: String },
    /// The principal's tasks, newest first (legacy `tasks/list`): answered with the index.
    ListTasks,
}

/// A refusal: which limit, its value, and when to retry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Exceeded {
    pub limit: String,
    pub max: u64,
    pub retry_after_s: u64,
}

impl Exceeded {
    /// The wire error (HTTP 429).
    pub fn to_error(&self) -> McpError {
        let limit = match self.limit.as_str() {
            "QUOTA_TASKS_PER_MINUTE" => "QUOTA_TASKS_PER_MINUTE",
            "QUOTA_LIVE_TASKS" => "QUOTA_LIVE_TASKS",
            _ => "QUOTA_LISTEN_STREAMS",
        };
        McpError::TooManyRequests {
            limit,
            max: self.max,
            retry_after_s: self.retry_after_s,
        }
    }
}

/// One principal's counters, stored as one small value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ledger {
    /// Creation times within the last [`WINDOW_MS`].
    pub created: Vec<u64>,
    /// Unfinished tasks and when each stops counting at the latest (its expiry).
    pub live: BTreeMap<String, u64>,
    /// Open listen streams and their lease deadlines.
    pub streams: BTreeMap<String, u64>,
    /// Every task the principal created that may still exist: id → (created, expiry). The
    /// index `tasks/list` reads (whatever era created the task), at most [`MAX_INDEXED`].
    #[serde(default)]
    pub tasks: BTreeMap<String, (u64, u64)>,
}

/// The most tasks the index keeps (the newest; older ones still exist until their TTL
/// but are no longer listed).
pub const MAX_INDEXED: usize = 5_000;

impl Ledger {
    fn purge(&mut self, now_ms: u64) {
        self.created
            .retain(|t| now_ms < t.saturating_add(WINDOW_MS));
        self.live.retain(|_, until| now_ms < *until);
        self.streams.retain(|_, until| now_ms < *until);
        self.tasks.retain(|_, (_, until)| now_ms < *until);
    }

    /// The indexed task ids, newest first.
    pub fn task_ids(&self) -> Vec<String> {
        let mut tasks: Vec<(&String, &(u64, u64))> = self.tasks.iter().collect();
        tasks.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| b.0.cmp(a.0)));
        tasks.into_iter().map(|(id, _)| id.clone()).collect()
    }

    /// Applies one request at `now_ms` (expired entries are dropped first): `Ok` when
    /// granted, `Err` when a limit refuses it (nothing is recorded).
    pub fn apply(&mut self, request: &LedgerRequest, now_ms: u64) -> Result<(), Exceeded> {
        self.purge(now_ms);
        match request {
            LedgerRequest::AcquireTask {
                task_id,
                until_ms,
                quotas,
            } => {
                if self.live.contains_key(task_id) {
                    return Ok(());
                }
                if let Some(max) = quotas.tasks_per_minute
                    && self.created.len() as u64 >= max
                {
                    let oldest = self.created.iter().min().copied().unwrap_or(now_ms);
                    let wait_ms = oldest.saturating_add(WINDOW_MS).saturating_sub(now_ms);
                    return Err(Exceeded {
                        limit: "QUOTA_TASKS_PER_MINUTE".into(),
                        max,
                        retry_after_s: wait_ms.div_ceil(1000).max(1),
                    });
                }
                if let Some(max) = quotas.live_tasks
                    && self.live.len() as u64 >= max
                {
                    return Err(Exceeded {
                        limit: "QUOTA_LIVE_TASKS".into(),
                        max,
                        retry_after_s: RETRY_SLOT_S,
                    });
                }
                if quotas.tasks_per_minute.is_some() {
                    self.created.push(now_ms);
                }
                if quotas.live_tasks.is_some() {
                    self.live
                        .insert(task_id.clone(), until_ms.unwrap_or(u64::MAX));
                }
                self.tasks
                    .insert(task_id.clone(), (now_ms, until_ms.unwrap_or(u64::MAX)));
                if self.tasks.len() > MAX_INDEXED
                    && let Some(oldest) = self.task_ids().pop()
                {
                    self.tasks.remove(&oldest);
                }
                Ok(())
            }
            LedgerRequest::ReleaseTask { task_id } => {
                self.live.remove(task_id);
                Ok(())
            }
            LedgerRequest::AcquireStream { stream_id, quotas } => {
                if let Some(max) = quotas.listen_streams
                    && !self.streams.contains_key(stream_id)
                    && self.streams.len() as u64 >= max
                {
                    return Err(Exceeded {
                        limit: "QUOTA_LISTEN_STREAMS".into(),
                        max,
                        retry_after_s: RETRY_SLOT_S,
                    });
                }
                if quotas.listen_streams.is_some() {
                    self.streams
                        .insert(stream_id.clone(), now_ms.saturating_add(STREAM_LEASE_MS));
                }
                Ok(())
            }
            LedgerRequest::ReleaseStream { stream_id } => {
                self.streams.remove(stream_id);
                Ok(())
            }
            LedgerRequest::ListTasks => Ok(()),
        }
    }
}
