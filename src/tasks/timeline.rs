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
use super::task::RESULT_COMPLETE;
use crate::error::McpError;
use serde::Serialize;
use serde_json::Value;

pub use super::transition::{Entry, KEEP, Kind, MAX_MESSAGE_CHARS, clip, entry};

/// Records the transition `effects` make, if any, so the write that makes it stores it
/// too (see [`super::layout::encode`]). The adapter calls it on every write.
pub fn note(effects: &mut Effects, before: Option<&TaskRecord>) {
    if let Some(after) = &effects.store {
        let answered = !effects.dirty.answers.is_empty();
        effects.dirty.timeline = entry(before, after, answered);
    }
}

/// A task's timeline on the wire.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Timeline {
    timeline: Vec<Value>,
    omitted_entries: u32,
}

/// The wire timeline of a stored task: its entries and how many were dropped between
/// the first and the kept ones.
pub fn wire(stored: &Stored) -> Value {
    let timeline: Vec<Value> = stored.timeline.iter().map(Entry::to_wire).collect();
    let omitted_entries = stored.parts.timeline.saturating_sub(timeline.len() as u32);
    crate::jsonrpc::payload(&Timeline {
        timeline,
        omitted_entries,
    })
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
