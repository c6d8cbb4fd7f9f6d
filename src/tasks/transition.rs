//! A transition of a task as its timeline records it ([`super::timeline`]): the entry,
//! derived from the record before and after a write ([`entry`]), and the window of
//! entries kept ([`KEEP`]). [`super::layout`] stores the entries; the timeline reads them.

use super::record::TaskRecord;
use super::task::TaskStatus;
use crate::jsonrpc::ErrorObject;
use crate::time::iso8601;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::jsonrpc::top::nested"
    )]
    pub error: Option<ErrorObject>,
}

impl Entry {
    /// The wire form: `at` as an ISO 8601 timestamp.
    pub fn to_wire(&self) -> Value {
        crate::jsonrpc::payload(&WireEntry {
            at: iso8601(self.at_ms),
            event: &self.event,
            status: &self.status,
            attempt: self.attempt,
            message: self.message.as_deref(),
            error: self.error.as_ref(),
        })
    }
}

/// An [`Entry`] as the wire has it.
#[derive(Serialize)]
struct WireEntry<'a> {
    at: String,
    event: &'a Kind,
    status: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    attempt: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a ErrorObject>,
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
