//! A task's timeline: the bounded history of its transitions, kept in its own object and
//! written in the same storage write as the transition it records (no extra round trip:
//! [`super::layout`] stores each entry under its own key beside the hot record, in the
//! same batch). Its owner reads it with `mcp-tasks-edge/tasks/timeline`; an operator sees
//! it in `mcp-tasks-edge/admin/tasks/get` (docs/operations.md).
//!
//! # Format
//!
//! ```text
//! timeline.0      {"atMs":1767225600000,"event":"created","status":"working","message":"Queued"}
//! timeline.7      {"atMs":…,"event":"retried","status":"working","attempt":2}
//! timeline.8      {"atMs":…,"event":"failed","status":"failed","attempt":2,"error":{"code":-32603,"message":"…"}}
//! ```
//!
//! The first entry (`created`) is always kept, then the last [`KEEP`] − 1: an entry that
//! leaves the window is deleted in the write that adds the new one. On the wire (`at`
//! instead of `atMs`):
//!
//! ```text
//! {"taskId":"…","timeline":[{"at":"2026-01-01T00:00:00.000Z","event":"created","status":"working"},…],"omittedEntries":3}
//! ```
//!
//! Entries are derived from the record before and after each write ([`note`]), so every
//! path that changes a task (requests, alarms, steps) records its transition without
//! saying so: the state machine stays the only place a status changes.

use super::layout::Stored;
use super::object::{Effects, visible_record};
use super::protocol::ObjectReply;
use super::record::TaskRecord;
use super::task::{RESULT_COMPLETE, TaskStatus};
use crate::error::McpError;
use crate::jsonrpc::ErrorObject;
use crate::time::iso8601;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Entries kept per task: the first and the last `KEEP - 1`.
pub const KEEP: u32 = 50;
/// The longest message an entry keeps (characters); longer ones are cut with `…`.
pub const MAX_MESSAGE_CHARS: usize = 500;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The task was stored.
    Created,
    /// A step finished and the task continues with a new status message.
    Progressed,
    /// An attempt at a step was lost (crash, eviction, deploy) and the step runs again.
    Retried,
    /// The tool asked for input (`input_required`).
    InputRequested,
    /// Answers arrived (the task works again, or waits for the rest).
    InputAnswered,
    Completed,
    Failed,
    Cancelled,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Created => "created",
            Kind::Progressed => "progressed",
            Kind::Retried => "retried",
            Kind::InputRequested => "input_requested",
            Kind::InputAnswered => "input_answered",
            Kind::Completed => "completed",
            Kind::Failed => "failed",
            Kind::Cancelled => "cancelled",
        }
    }
}

/// One transition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub at_ms: u64,
    pub event: Kind,
    /// The status after the transition.
    pub status: String,
    /// The attempt at the step that caused it, when a step did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// The task's `statusMessage` after the transition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A failed task's error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

impl Entry {
    /// The wire form: `at` as an ISO 8601 timestamp.
    pub fn to_wire(&self) -> Value {
        let mut value =
            json!({ "at": iso8601(self.at_ms), "event": self.event, "status": self.status });
        if let Some(attempt) = self.attempt {
            value["attempt"] = attempt.into();
        }
        if let Some(message) = &self.message {
            value["message"] = message.clone().into();
        }
        if let Some(error) = &self.error {
            value["error"] = serde_json::to_value(error).unwrap_or(Value::Null);
        }
        value
    }
}

/// `text`, cut to [`MAX_MESSAGE_CHARS`] characters.
pub fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// The transition the write `after` makes to the task `before`, if it is one worth
/// recording (a lease being taken or a step that changed nothing visible is not).
pub fn entry(before: Option<&TaskRecord>, after: &TaskRecord, answered: bool) -> Option<Entry> {
    let step_attempt = before.and_then(|b| b.lease()).map(|l| l.attempt);
    let kind = match (before, after.status()) {
        (None, _) => Kind::Created,
        (Some(_), TaskStatus::Completed { .. }) => Kind::Completed,
        (Some(_), TaskStatus::Failed { .. }) => Kind::Failed,
        (Some(_), TaskStatus::Cancelled) => Kind::Cancelled,
        (Some(b), TaskStatus::InputRequired { .. }) => {
            if answered {
                Kind::InputAnswered
            } else if matches!(b.status(), TaskStatus::Working) {
                Kind::InputRequested
            } else {
                return None;
            }
        }
        (Some(b), TaskStatus::Working) => match (b.lease(), after.lease()) {
            _ if matches!(b.status(), TaskStatus::InputRequired { .. }) => Kind::InputAnswered,
            (Some(old), Some(new)) if new.attempt > old.attempt => {
                return Some(Entry {
                    at_ms: after.last_updated_at_ms().max(b.last_updated_at_ms()),
                    event: Kind::Retried,
                    status: after.status().name().into(),
                    attempt: Some(new.attempt),
                    message: Some(format!(
                        "attempt {} was lost (a crash, an eviction, a deploy or a step longer than its lease); the step runs again",
                        old.attempt
                    )),
                    error: None,
                });
            }
            (Some(_), None) if after.status_message() != b.status_message() => Kind::Progressed,
            _ => return None,
        },
    };
    let attempt = match kind {
        Kind::Progressed | Kind::Completed | Kind::Failed | Kind::InputRequested => step_attempt,
        _ => None,
    };
    let error = match after.status() {
        TaskStatus::Failed { error } => Some(ErrorObject {
            code: error.code,
            message: clip(&error.message),
            data: None,
        }),
        _ => None,
    };
    Some(Entry {
        at_ms: after.last_updated_at_ms(),
        event: kind,
        status: after.status().name().into(),
        attempt,
        message: after.status_message().map(clip),
        error,
    })
}

/// Records the transition `effects` make, if any, so the write that makes it stores it
/// too (see [`super::layout::encode`]). The adapter calls it on every write.
pub fn note(effects: &mut Effects, before: Option<&TaskRecord>) {
    if let Some(after) = &effects.store {
        let answered = !effects.dirty.answers.is_empty();
        effects.dirty.timeline = entry(before, after, answered);
    }
}

/// The wire timeline of a stored task: its entries and how many were dropped between
/// the first and the kept ones.
pub fn wire(stored: &Stored) -> Value {
    let entries: Vec<Value> = stored.timeline.iter().map(Entry::to_wire).collect();
    let omitted = stored.parts.timeline.saturating_sub(entries.len() as u32);
    json!({ "timeline": entries, "omittedEntries": omitted })
}

/// `mcp-tasks-edge/tasks/timeline`: the owner's view (anyone else: "not found", as
/// `tasks/get`). `stored` was loaded with its timeline.
pub fn owner_view(
    stored: Option<&Stored>,
    task_id: &str,
    principal: &str,
    now_ms: u64,
) -> ObjectReply {
    let Some(stored) =
        stored.filter(|s| visible_record(Some(&s.record), task_id, principal, now_ms).is_some())
    else {
        return ObjectReply::Error(McpError::TaskNotFound.to_wire());
    };
    let mut result = wire(stored);
    result["resultType"] = RESULT_COMPLETE.into();
    result["taskId"] = task_id.into();
    result["status"] = stored.record.status().name().into();
    ObjectReply::Result(result)
}
