//! Server-sent events, as much as MCP uses: `data:` lines joined into one payload per
//! event, `:` comments (keep-alives) skipped, other fields ignored.
//!
//! # Format
//!
//! ```text
//! data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged",…}\n\n
//! :\n\n                                                            keep-alive
//! data: {"jsonrpc":"2.0","method":"notifications/tasks","params":{…DetailedTask…}}\n\n
//! data: {"jsonrpc":"2.0","id":7,"result":{"resultType":"complete",…}}\n\n
//! ```
//!
//! Bytes arrive in arbitrary chunks; lines are split on bytes, so a UTF-8 character cut
//! by a chunk boundary is whole again before it is decoded.

use super::error::ClientError;
use serde_json::{Map, Value};

#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the line not yet ended.
    line: Vec<u8>,
    /// `data:` lines of the event not yet dispatched.
    data: Option<String>,
}

impl SseParser {
    /// Feeds a chunk; returns the payloads of the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<String> {
        let mut events = Vec::new();
        for &byte in chunk {
            if byte != b'\n' {
                self.line.push(byte);
                continue;
            }
            let mut line = std::mem::take(&mut self.line);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                events.extend(self.data.take());
            } else if let Some(value) = line.strip_prefix("data:") {
                let value = value.strip_prefix(' ').unwrap_or(value);
                match &mut self.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => self.data = Some(value.to_owned()),
                }
            }
            // `:` comments, `event:`, `id:` and `retry:` carry nothing MCP needs.
        }
        events
    }

    /// The end of the stream: an event without its blank line still counts.
    pub fn finish(&mut self) -> Option<String> {
        if !self.line.is_empty() {
            self.push(b"\n");
        }
        self.data.take()
    }
}

/// One message of a `subscriptions/listen` stream.
#[derive(Debug, Clone, PartialEq)]
pub enum ListenEvent {
    /// `notifications/subscriptions/acknowledged`: the task ids the server will watch.
    Acknowledged(Vec<String>),
    /// `notifications/tasks`: a `DetailedTask` (with the subscription's `_meta`).
    Task(Value),
    /// The `SubscriptionsListenResult`: every watched task is terminal.
    Closed,
    /// A JSON-RPC error ends the stream.
    Error(ClientError),
    /// Anything else (other notifications, unparsable frames) is skipped.
    Other,
}

pub fn listen_event(payload: &str) -> ListenEvent {
    let Ok(Value::Object(message)) = serde_json::from_str::<Value>(payload) else {
        return ListenEvent::Other;
    };
    let params = message.get("params").and_then(Value::as_object);
    match message.get("method").and_then(Value::as_str) {
        Some("notifications/subscriptions/acknowledged") => ListenEvent::Acknowledged(
            params
                .and_then(|p| p.get("notifications"))
                .and_then(|n| n.get("taskIds"))
                .and_then(Value::as_array)
                .map(|ids| {
                    ids.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
        ),
        Some("notifications/tasks") => match params {
            Some(task) if task.get("taskId").is_some_and(Value::is_string) => {
                ListenEvent::Task(Value::Object(task.clone()))
            }
            _ => ListenEvent::Other,
        },
        Some(_) => ListenEvent::Other,
        None => match (message.get("result"), message.get("error")) {
            (_, Some(error)) => ListenEvent::Error(ClientError::from_object(error)),
            (Some(_), None) => ListenEvent::Closed,
            (None, None) => ListenEvent::Other,
        },
    }
}

/// A `DetailedTask` without its transport fields (`resultType`, the subscription `_meta`),
/// so a notification and a `tasks/get` result of the same state compare equal.
pub fn bare_task(task: &Map<String, Value>) -> Map<String, Value> {
    let mut task = task.clone();
    task.remove("resultType");
    if let Some(Value::Object(meta)) = task.get_mut("_meta") {
        meta.remove(crate::mcp::meta::KEY_SUBSCRIPTION_ID);
        if meta.is_empty() {
            task.remove("_meta");
        }
    }
    task
}
