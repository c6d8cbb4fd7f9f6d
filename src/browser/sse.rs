//! What a `subscriptions/listen` stream carries (its events are read by
//! [`crate::http::sse::SseParser`]).
//!
//! # Format
//!
//! ```text
//! data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged",…}\n\n
//! :\n\n                                                            keep-alive
//! data: {"jsonrpc":"2.0","method":"notifications/tasks","params":{…DetailedTask…}}\n\n
//! data: {"jsonrpc":"2.0","id":7,"result":{"resultType":"complete",…}}\n\n
//! ```

pub use crate::http::sse::SseParser;

use super::error::ClientError;
use serde_json::{Map, Value};

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
