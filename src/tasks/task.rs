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

use crate::jsonrpc::ErrorObject;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// Whether a status named on the wire is terminal (a `DetailedTask` read as JSON).
pub fn is_terminal_status(name: &str) -> bool {
    matches!(name, "completed" | "failed" | "cancelled")
}

impl TaskStatus {
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            TaskStatus::Completed { .. } | TaskStatus::Failed { .. } | TaskStatus::Cancelled
        )
    }

    /// The wire name of the status.
    pub fn name(&self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired { .. } => "input_required",
            TaskStatus::Completed { .. } => "completed",
            TaskStatus::Failed { .. } => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// `DetailedTask`: the task with its status payload, as `tasks/get` and
/// `notifications/tasks` carry it and (flattened into a result) `CreateTaskResult`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
