//! The task as it appears on the wire (ext-tasks "Tasks", schema `Task`, `DetailedTask`).
//!
//! # Format
//!
//! ```text
//! { "taskId": "3f0c…", "status": "input_required",          status + its payload:
//!   "inputRequests": { "confirm#1": {"method":"elicitation/create", ...} },
//!   "statusMessage": "Waiting for confirmation",
//!   "createdAt": "2025-11-25T10:30:00.000Z", "lastUpdatedAt": "…",
//!   "ttlMs": 60000,                                         null = unlimited, never absent
//!   "pollIntervalMs": 1000 }
//! ```
//!
//! The status and its payload are one internally tagged enum flattened into the task,
//! so a `completed` task without `result` (or a `working` task with one) cannot be built.
//! Reading goes through `wire` (plain optional members, checked against the status), not
//! serde's derive for a flattened tagged enum, which buffers every member into a second,
//! generic representation first (a second deserializer in the wasm for every such type).

use crate::error::McpError;
use crate::jsonrpc::ErrorObject;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod wire;

pub use wire::Payload;
pub(crate) use wire::present;

/// Serialized (not read) as serde's internally tagged enum: `{"status":"completed","result":…}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TaskStatus {
    Working,
    InputRequired {
        /// Every outstanding request, keyed by task-unique keys.
        #[serde(rename = "inputRequests")]
        input_requests: Map<String, Value>,
    },
    Completed {
        /// The `CallToolResult` (an `isError: true` result is still `completed`).
        result: Value,
    },
    Failed {
        /// The JSON-RPC error the request ended with.
        error: ErrorObject,
    },
    Cancelled,
}

/// A status without its payload: what a reader of a task as JSON tests (`tasks/get`
/// results, pushed notifications, the browser client) without decoding the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusKind {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl StatusKind {
    /// The one definition of a terminal status (ext-tasks "Task Status State Diagram").
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            StatusKind::Completed | StatusKind::Failed | StatusKind::Cancelled
        )
    }

    /// The wire name of the status.
    pub fn name(self) -> &'static str {
        match self {
            StatusKind::Working => "working",
            StatusKind::InputRequired => "input_required",
            StatusKind::Completed => "completed",
            StatusKind::Failed => "failed",
            StatusKind::Cancelled => "cancelled",
        }
    }

    /// The status named `name` on the wire, if it is one.
    pub fn from_name(name: &str) -> Option<StatusKind> {
        [
            StatusKind::Working,
            StatusKind::InputRequired,
            StatusKind::Completed,
            StatusKind::Failed,
            StatusKind::Cancelled,
        ]
        .into_iter()
        .find(|kind| kind.name() == name)
    }

    /// The status of a task as JSON (its `status` member), if it names one.
    pub fn of_task(task: &Value) -> Option<StatusKind> {
        task.get("status")
            .and_then(Value::as_str)
            .and_then(StatusKind::from_name)
    }
}

impl TaskStatus {
    pub fn is_terminal(&self) -> bool {
        self.kind().is_terminal()
    }

    /// The status without its payload.
    pub fn kind(&self) -> StatusKind {
        match self {
            TaskStatus::Working => StatusKind::Working,
            TaskStatus::InputRequired { .. } => StatusKind::InputRequired,
            TaskStatus::Completed { .. } => StatusKind::Completed,
            TaskStatus::Failed { .. } => StatusKind::Failed,
            TaskStatus::Cancelled => StatusKind::Cancelled,
        }
    }

    /// The wire name of the status.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The status and its payload of a task as JSON (a `DetailedTask`, as a task object
    /// answers). A task that does not decode is an error naming why, never a default
    /// (invariant 5).
    pub fn of_task(task: &Value) -> Result<TaskStatus, McpError> {
        let decode = || {
            let task = task.as_object().ok_or("not a JSON object")?;
            let kind = match task.get("status") {
                Some(Value::String(name)) => StatusKind::from_name(name)
                    .ok_or_else(|| format!("unknown variant `{name}` of status"))?,
                Some(_) => return Err("status must be a string".to_owned()),
                None => return Err("missing field `status`".to_owned()),
            };
            TaskStatus::from_payload(kind, Payload::of(task))
        };
        decode().map_err(|e: String| {
            McpError::Internal(format!(
                "the task object answered a task that does not decode: {e}"
            ))
        })
    }
}

/// `DetailedTask`: the task with its status payload, as `tasks/get` and
/// `notifications/tasks` carry it and (flattened into a result) `CreateTaskResult`.
/// Read by `wire`'s `Deserialize`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub task_id: String,
    #[serde(flatten)]
    pub status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    pub created_at: String,
    pub last_updated_at: String,
    /// Always present: `null` means unlimited (schema: `ttlMs: number | null`).
    pub ttl_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// `_meta`: a `GetTaskResult`'s and a notification's (schema `Result`,
    /// `NotificationParams`); this server puts what it says of the task beyond the spec's
    /// fields there, under `mcp-tasks-edge/task` (`TaskRecord::to_task`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// The `resultType` discriminator values (an open set in the schema).
pub const RESULT_COMPLETE: &str = "complete";
pub const RESULT_TASK: &str = "task";
pub const RESULT_INPUT_REQUIRED: &str = "input_required";

impl Task {
    /// The task as a JSON object with `resultType` added: `"task"` for a
    /// `CreateTaskResult`, `"complete"` for a `GetTaskResult`.
    pub fn to_result(&self, result_type: &str) -> Value {
        let mut value = serde_json::to_value(self).expect("a Task always serializes");
        value
            .as_object_mut()
            .expect("a Task serializes to an object")
            .insert("resultType".into(), result_type.into());
        value
    }
}

/// `InputRequiredResult` (mrtr): the requests to answer, and the state the client sends
/// back with the answers.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InputRequiredResult<'a> {
    result_type: &'static str,
    input_requests: &'a Map<String, Value>,
    request_state: &'a str,
}

/// An `InputRequiredResult` asking `requests`, with the sealed `request_state`.
pub fn input_required(requests: &Map<String, Value>, request_state: &str) -> Value {
    crate::jsonrpc::payload(&InputRequiredResult {
        result_type: RESULT_INPUT_REQUIRED,
        input_requests: requests,
        request_state,
    })
}

/// `ListTasksResult`: a page of tasks and the next page's cursor, if any (`resultType`
/// only for 2026-07-28 readers).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListTasksResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<&'static str>,
    tasks: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

/// A `tasks/list` result of `tasks`: with `resultType` `"complete"` when `typed`.
pub fn list_result(typed: bool, tasks: Vec<Value>, next_cursor: Option<String>) -> Value {
    crate::jsonrpc::payload(&ListTasksResult {
        result_type: typed.then_some(RESULT_COMPLETE),
        tasks,
        next_cursor,
    })
}
