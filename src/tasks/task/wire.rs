//! Reading a task's status and its payload without serde's buffering of internally
//! tagged, flattened enums: the payload members are read as plain optional members and
//! [`TaskStatus::from_payload`] checks that they fit the status. [`Task`] reads through
//! [`TaskWire`]; the stored record (`crate::tasks::record`) reads the same members.

use super::{StatusKind, Task, TaskStatus};
use crate::jsonrpc::ErrorObject;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// The members of a task (or record) that carry its status's payload, as read. `result`
/// is `Some(Null)` for a `"result": null` (a completed record whose result is stored
/// apart) and `None` when absent.
#[derive(Debug, Default)]
pub struct Payload {
    pub input_requests: Option<Value>,
    pub result: Option<Value>,
    pub error: Option<Value>,
}

impl Payload {
    /// The payload members of a task as JSON, copied.
    pub fn of(task: &Map<String, Value>) -> Payload {
        Payload {
            input_requests: task.get("inputRequests").filter(|v| !v.is_null()).cloned(),
            result: task.get("result").cloned(),
            error: task.get("error").filter(|v| !v.is_null()).cloned(),
        }
    }

    /// The status `kind` with these members, for a reader of `what` `id` (`task 3f0c…`):
    /// a payload that does not fit ([`TaskStatus::from_payload`]) is the reader's error.
    pub fn status<E: serde::de::Error>(
        self,
        kind: StatusKind,
        what: &str,
        id: &str,
    ) -> Result<TaskStatus, E> {
        TaskStatus::from_payload(kind, self).map_err(|e| E::custom(format!("{what} {id}: {e}")))
    }

    /// The payload member present, if any, that no status but `kind` carries.
    fn foreign(&self, kind: StatusKind) -> Option<&'static str> {
        [
            (
                StatusKind::InputRequired,
                "inputRequests",
                &self.input_requests,
            ),
            (StatusKind::Completed, "result", &self.result),
            (StatusKind::Failed, "error", &self.error),
        ]
        .into_iter()
        .find(|(owner, _, member)| *owner != kind && member.is_some())
        .map(|(_, name, _)| name)
    }
}

impl TaskStatus {
    /// The status `kind` with its payload. Refuses a payload that does not fit: a
    /// `completed` task without `result`, an `input_required` one without an
    /// `inputRequests` object, a `failed` one without an error object, and any status
    /// carrying another status's member (a `working` task with a `result`).
    pub fn from_payload(kind: StatusKind, payload: Payload) -> Result<TaskStatus, String> {
        let name = kind.name();
        if let Some(member) = payload.foreign(kind) {
            return Err(format!("status {name} carries no {member}"));
        }
        Ok(match kind {
            StatusKind::Working => TaskStatus::Working,
            StatusKind::Cancelled => TaskStatus::Cancelled,
            StatusKind::InputRequired => match payload.input_requests {
                Some(Value::Object(input_requests)) => TaskStatus::InputRequired { input_requests },
                Some(_) => return Err(format!("{name}: inputRequests must be an object")),
                None => return Err(missing("inputRequests", name)),
            },
            StatusKind::Completed => match payload.result {
                Some(result) => TaskStatus::Completed { result },
                None => return Err(missing("result", name)),
            },
            StatusKind::Failed => match payload.error {
                Some(error) => TaskStatus::Failed {
                    error: crate::jsonrpc::from_value::<ErrorObject>(error)
                        .map_err(|e| format!("{name}: error is not an error object: {e}"))?,
                },
                None => return Err(missing("error", name)),
            },
        })
    }
}

/// The error for a status without its payload member (worded as serde words it).
fn missing(member: &str, status: &str) -> String {
    format!("missing field `{member}` (status {status} carries it)")
}

/// A member that is present, `null` included (`Some(Null)`); with `#[serde(default)]`
/// an absent one is `None`.
pub fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// [`Task`] as read: its status payload as optional members.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskWire {
    task_id: String,
    status: StatusKind,
    #[serde(default)]
    input_requests: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    status_message: Option<String>,
    created_at: String,
    last_updated_at: String,
    ttl_ms: Option<u64>,
    #[serde(default)]
    poll_interval_ms: Option<u64>,
    #[serde(rename = "_meta", default)]
    meta: Option<Map<String, Value>>,
}

impl<'de> Deserialize<'de> for Task {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Task, D::Error> {
        let wire = TaskWire::deserialize(deserializer)?;
        let status = Payload {
            input_requests: wire.input_requests,
            result: wire.result,
            error: wire.error,
        }
        .status(wire.status, "task", &wire.task_id)?;
        Ok(Task {
            task_id: wire.task_id,
            status,
            status_message: wire.status_message,
            created_at: wire.created_at,
            last_updated_at: wire.last_updated_at,
            ttl_ms: wire.ttl_ms,
            poll_interval_ms: wire.poll_interval_ms,
            meta: wire.meta,
        })
    }
}
