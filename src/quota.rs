//! Per-principal quotas and the task index, the pure part. One ledger per principal
//! lives in that principal's Durable Object (strongly consistent across isolates; see
//! `auth::anonymous` for which ledger counts an anonymous caller). The Worker asks it
//! before running a tool, creating a task, opening a listen stream or a 2025-11-25
//! session; task objects tell it when their task ends, sessions when they end. Every
//! operation is idempotent (keyed by task, stream or session id) and every entry carries
//! a deadline, so a lost release only holds a slot until the task's TTL, the stream's
//! lease or the session's idle expiry runs out.
//!
//! The object only loads, asks [`plan`] and stores what the plan says.

pub mod calls;
mod index;
mod ledger;
mod plan;

pub use index::{
    INDEX_PREFIX, IndexEntry, LIST_PAGE, MAX_INDEXED, cursor_ok, index_key, index_value,
    read_index, read_page,
};
pub use ledger::Ledger;
pub use plan::{Plan, Reply, expired, listing, plan};

use crate::auth::anonymous;
use crate::error::McpError;
use crate::jsonrpc::tagged::{self, Tagged};
use serde::{Deserialize, Deserializer, Serialize};

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
    /// Tool runs a principal may start per minute, inline or as tasks
    /// (`QUOTA_TASKS_PER_MINUTE`).
    pub tasks_per_minute: Option<u64>,
    pub live_tasks: Option<u64>,
    pub listen_streams: Option<u64>,
    /// Open 2025-11-25 sessions (`QUOTA_SESSIONS`).
    #[serde(default)]
    pub sessions: Option<u64>,
}

impl Default for Quotas {
    fn default() -> Self {
        Quotas {
            tasks_per_minute: Some(60),
            live_tasks: Some(100),
            listen_streams: Some(10),
            sessions: Some(20),
        }
    }
}

impl Quotas {
    /// Whether creating a task needs to ask the ledger for a decision at all.
    pub fn counts_tasks(&self) -> bool {
        self.tasks_per_minute.is_some() || self.live_tasks.is_some()
    }
}

/// What the Worker and the objects ask a principal's ledger. Written by serde's derive,
/// read by hand ([`tagged`]; absent `counted` is false, absent `index` true).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum LedgerRequest {
    /// Before a tool runs inline (counted in `QUOTA_TASKS_PER_MINUTE`).
    #[serde(rename_all = "camelCase")]
    AcquireRun { quotas: Quotas },
    /// Before creating task `task_id` (live until `until_ms`, its expiry). `counted`: its
    /// run was already counted by [`LedgerRequest::AcquireRun`]; `index`: list it.
    #[serde(rename_all = "camelCase")]
    AcquireTask {
        task_id: String,
        until_ms: Option<u64>,
        quotas: Quotas,
        counted: bool,
        index: bool,
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
    /// Opening a 2025-11-25 session, or renewing it (idle until `until_ms`).
    #[serde(rename_all = "camelCase")]
    AcquireSession {
        session_id: String,
        until_ms: u64,
        quotas: Quotas,
    },
    /// The session ended (DELETE or idle expiry). Idempotent.
    #[serde(rename_all = "camelCase")]
    ReleaseSession { session_id: String },
    /// One page of the principal's tasks, newest first ([`LIST_PAGE`] ids): those indexed
    /// before the index key `before` (a cursor from the previous page), or the newest.
    ListTasks {
        #[serde(skip_serializing_if = "Option::is_none")]
        before: Option<String>,
    },
}

impl<'de> Deserialize<'de> for LedgerRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<LedgerRequest, D::Error> {
        tagged::deserialize(deserializer, "op", LedgerRequest::read)
    }
}

impl LedgerRequest {
    /// The request `Serialize` wrote, tagged by `op`.
    fn read(mut m: Tagged) -> Result<LedgerRequest, String> {
        Ok(match m.name() {
            "acquireRun" => LedgerRequest::AcquireRun {
                quotas: m.decode("quotas")?,
            },
            "acquireTask" => LedgerRequest::AcquireTask {
                task_id: m.string("taskId")?,
                until_ms: m.optional_u64("untilMs")?,
                quotas: m.decode("quotas")?,
                counted: m.bool_or("counted", false)?,
                index: m.bool_or("index", true)?,
            },
            "releaseTask" => LedgerRequest::ReleaseTask {
                task_id: m.string("taskId")?,
            },
            "acquireStream" => LedgerRequest::AcquireStream {
                stream_id: m.string("streamId")?,
                quotas: m.decode("quotas")?,
            },
            "releaseStream" => LedgerRequest::ReleaseStream {
                stream_id: m.string("streamId")?,
            },
            "acquireSession" => LedgerRequest::AcquireSession {
                session_id: m.string("sessionId")?,
                until_ms: m.u64("untilMs")?,
                quotas: m.decode("quotas")?,
            },
            "releaseSession" => LedgerRequest::ReleaseSession {
                session_id: m.string("sessionId")?,
            },
            "listTasks" => LedgerRequest::ListTasks {
                before: m.optional_string("before")?,
            },
            _ => return Err(m.unknown()),
        })
    }
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
            "QUOTA_SESSIONS" => "QUOTA_SESSIONS",
            _ => "QUOTA_LISTEN_STREAMS",
        };
        McpError::TooManyRequests {
            limit,
            max: self.max,
            retry_after_s: self.retry_after_s,
        }
    }
}

/// What `principal`'s `request` also asks of the shared `anonymous` ledger: a run
/// (`QUOTA_TASKS_PER_MINUTE`) when an anonymous 2025-11-25 session runs a tool, inline or
/// as a task, so opening sessions does not multiply an anonymous caller's runs; the
/// session's own ledger counts it too (its index, its live tasks). `None` for everyone
/// else, whose ledger is one.
pub fn shared_run(principal: &str, request: &LedgerRequest) -> Option<LedgerRequest> {
    if !anonymous::is_session(principal) {
        return None;
    }
    match request {
        LedgerRequest::AcquireRun { quotas }
        | LedgerRequest::AcquireTask {
            quotas,
            counted: false,
            ..
        } if quotas.tasks_per_minute.is_some() => {
            Some(LedgerRequest::AcquireRun { quotas: *quotas })
        }
        _ => None,
    }
}
