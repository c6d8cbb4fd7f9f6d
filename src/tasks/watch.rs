//! Watching a task: the TaskObject side of pushed `notifications/tasks` (docs/architecture.md,
//! "`subscriptions/listen` is pushed, not polled"). The Worker holding a `subscriptions/listen` stream opens one
//! WebSocket per watched task to the task's object; the object accepts it with the
//! hibernation API, sends the task's current state first, then one message after every
//! write of the record. A hibernated object with idle sockets costs no requests and no
//! duration.
//!
//! # Format
//!
//! ```text
//! GET https://task-object/watch/<taskId>     Upgrade: websocket, x-mcp-tasks-principal: <principal>
//!   → 101 and the socket, or 422 {code:-32602,…} (unknown, expired, someone else's)
//! object → Worker, one text message each:
//! {"kind":"task","version":7,"task":{…DetailedTask…}}   the state after write number 7
//! {"kind":"changed","version":8}                       too large to push: read it with "get"
//! {"kind":"gone"}                                      the task expired; the socket closes
//! ```
//!
//! Every write of the record increments its `version` ([`stamp`]), so the Worker drops
//! a message whose version is not newer than the last it forwarded: a client never sees
//! an older state after a newer one, even if two writes' messages were to cross.

use super::layout::Stored;
use super::object::{Effects, visible_record};
use super::protocol::ObjectReply;
use super::record::TaskRecord;
use super::task::{RESULT_COMPLETE, TaskStatus};
use crate::error::McpError;
use crate::jsonrpc::tagged::{self, Tagged};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// The path prefix of a watch request (the task id follows).
pub const WATCH_PATH: &str = "/watch/";
/// The URL the Worker opens for `task_id`.
pub fn watch_url(task_id: &str) -> String {
    format!("https://task-object{WATCH_PATH}{task_id}")
}

/// The largest task (serialized) pushed whole; a larger one (a big result) is announced
/// as [`WatchMessage::Changed`] and read with an ordinary `get`. Keeps every message far
/// below the platform's WebSocket message limit.
pub const MAX_PUSH_BYTES: usize = 256 * 1024;

/// Close code the object uses when the task expired.
pub const CLOSE_GONE: u16 = 1000;

/// One message from a TaskObject to a watcher. Written by serde's derive, read by hand
/// ([`tagged`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WatchMessage {
    /// The task's state after write number `version` (a `tasks/get` result without
    /// `resultType`).
    Task { version: u64, task: Value },
    /// Write number `version` happened but the task is too large to push.
    Changed { version: u64 },
    /// The task no longer exists (expired and deleted).
    Gone,
}

impl<'de> Deserialize<'de> for WatchMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<WatchMessage, D::Error> {
        tagged::deserialize(deserializer, "kind", WatchMessage::read)
    }
}

impl WatchMessage {
    /// The message `Serialize` wrote, tagged by `kind`.
    fn read(mut m: Tagged) -> Result<WatchMessage, String> {
        Ok(match m.name() {
            "task" => WatchMessage::Task {
                version: m.u64("version")?,
                task: m.value("task")?,
            },
            "changed" => WatchMessage::Changed {
                version: m.u64("version")?,
            },
            "gone" => WatchMessage::Gone,
            _ => return Err(m.unknown()),
        })
    }

    pub fn encode(&self) -> String {
        serde_json::to_string(self).expect("watch messages serialize")
    }

    pub fn decode(text: &str) -> Result<WatchMessage, String> {
        crate::jsonrpc::read(text.as_bytes()).map_err(|e| format!("unreadable watch message: {e}"))
    }
}

/// What a watcher is told about `record` (loaded with its result if it completed).
pub fn message(record: &TaskRecord) -> WatchMessage {
    let placeholder =
        matches!(record.status(), TaskStatus::Completed { result } if result.is_null());
    let mut task = record.to_task().to_result(RESULT_COMPLETE);
    if let Some(object) = task.as_object_mut() {
        object.remove("resultType");
    }
    let small = super::record::serialized_len(&task) <= MAX_PUSH_BYTES;
    if placeholder || !small {
        WatchMessage::Changed {
            version: record.version(),
        }
    } else {
        WatchMessage::Task {
            version: record.version(),
            task,
        }
    }
}

/// The most watch sockets one task's object holds at once (every listen stream, job
/// wait and `tasks/result` following it): a bound on what one caller can pile on one
/// object. A watcher refused past it follows the task by reading it instead
/// (`server::follower`, `server::fanin`).
pub const MAX_WATCHERS: usize = 256;

/// A watch request, the object holding `watchers` sockets already: the first message for
/// the socket, or the reply that refuses it (the same "not found" as `tasks/get`, so ids
/// leak nothing; past [`MAX_WATCHERS`], only to whom may see the task, a -32603 saying so).
pub fn open(
    stored: Option<&TaskRecord>,
    task_id: &str,
    principal: &str,
    now_ms: u64,
    watchers: usize,
) -> Result<WatchMessage, ObjectReply> {
    match visible_record(stored, task_id, principal, now_ms) {
        None => Err(ObjectReply::Error(McpError::TaskNotFound.to_wire())),
        Some(_) if watchers >= MAX_WATCHERS => Err(ObjectReply::Error(
            McpError::Internal(format!(
                "task {task_id} has {watchers} watchers, the most its object holds \
                 ({MAX_WATCHERS}): read it instead"
            ))
            .to_wire(),
        )),
        Some(record) => Ok(message(record)),
    }
}

/// Numbers the write `effects` is about to make: one more than the stored record's.
pub fn stamp(effects: &mut Effects, before: Option<&Stored>) {
    if let Some(record) = &mut effects.store {
        record.number_write(before.map_or(0, |s| s.record.version()) + 1);
    }
}

/// What the object pushes to its watchers once `effects` are written, if anything.
pub fn after_write(effects: &Effects) -> Option<WatchMessage> {
    if effects.delete_all {
        return Some(WatchMessage::Gone);
    }
    effects.store.as_ref().map(message)
}
