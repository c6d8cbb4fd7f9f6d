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
    /// How many entries the task index holds (its entries are keys of their own, see
    /// [`index_key`]: one small write per task, never a rewrite of the whole index).
    #[serde(default)]
    pub indexed: u64,
    /// The index as format 1 kept it, inside this value: read once, moved to keys.
    #[serde(default, rename = "tasks", skip_serializing)]
    pub legacy_index: BTreeMap<String, (u64, u64)>,
}

/// The most tasks the index keeps (the newest; older ones still exist until their TTL
/// but are no longer listed).
pub const MAX_INDEXED: u64 = 5_000;

/// The prefix of the index's storage keys.
pub const INDEX_PREFIX: &str = "task:";

/// A task's entry in the index: a storage key of its own, which sorts by creation time
/// (then id), so the newest are listed first by reading the keys backwards. Its value is
/// the task's expiry ([`index_value`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    pub key: String,
    pub until_ms: u64,
}

/// The storage key of `task_id`'s index entry, created at `created_ms`.
pub fn index_key(created_ms: u64, task_id: &str) -> String {
    format!("{INDEX_PREFIX}{created_ms:016}:{task_id}")
}

/// The stored value of an entry: its expiry, in decimal.
pub fn index_value(until_ms: u64) -> String {
    until_ms.to_string()
}

/// Sorts stored index entries (key, value), newest first, into the ids of tasks still
/// live at `now_ms` and the keys of the expired ones (to delete).
pub fn read_index(entries: Vec<(String, String)>, now_ms: u64) -> (Vec<String>, Vec<String>) {
    let mut entries = entries;
    entries.sort_by(|a, b| b.0.cmp(&a.0));
    let mut live = Vec::new();
    let mut expired = Vec::new();
    for (key, value) in entries {
        let id = key
            .strip_prefix(INDEX_PREFIX)
            .and_then(|rest| rest.split_once(':'))
            .map(|(_, id)| id.to_owned());
        match (id, value.parse::<u64>()) {
            (Some(id), Ok(until)) if now_ms < until => live.push(id),
            _ => expired.push(key),
        }
    }
    (live, expired)
}

impl Ledger {
    fn purge(&mut self, now_ms: u64) {
        self.created
            .retain(|t| now_ms < t.saturating_add(WINDOW_MS));
        self.live.retain(|_, until| now_ms < *until);
        self.streams.retain(|_, until| now_ms < *until);
    }

    /// Moves a format-1 index out of the value: the entries to write as keys.
    pub fn take_legacy_index(&mut self) -> Vec<IndexEntry> {
        let entries: Vec<IndexEntry> = std::mem::take(&mut self.legacy_index)
            .into_iter()
            .map(|(id, (created, until))| IndexEntry {
                key: index_key(created, &id),
                until_ms: until,
            })
            .collect();
        self.indexed += entries.len() as u64;
        entries
    }

    /// How many of the oldest index entries to drop to stay within [`MAX_INDEXED`]
    /// (counted as dropped already).
    pub fn trim_index(&mut self) -> u64 {
        let excess = self.indexed.saturating_sub(MAX_INDEXED);
        self.indexed -= excess;
        excess
    }

    /// Applies one request at `now_ms` (expired entries are dropped first): `Ok` when
    /// granted, with the index entry to write for a new task; `Err` when a limit refuses
    /// it (nothing is recorded).
    pub fn apply(
        &mut self,
        request: &LedgerRequest,
        now_ms: u64,
    ) -> Result<Option<IndexEntry>, Exceeded> {
        self.purge(now_ms);
        match request {
            LedgerRequest::AcquireTask {
                task_id,
                until_ms,
                quotas,
            } => {
                if self.live.contains_key(task_id) {
                    return Ok(None);
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
                self.indexed += 1;
                Ok(Some(IndexEntry {
                    key: index_key(now_ms, task_id),
                    until_ms: until_ms.unwrap_or(u64::MAX),
                }))
            }
            LedgerRequest::ReleaseTask { task_id } => {
                self.live.remove(task_id);
                Ok(None)
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
                Ok(None)
            }
            LedgerRequest::ReleaseStream { stream_id } => {
                self.streams.remove(stream_id);
                Ok(None)
            }
            LedgerRequest::ListTasks => Ok(None),
        }
    }
}
