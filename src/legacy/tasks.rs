//! Legacy experimental tasks (spec/spec-2025-11-25_basic_utilities_tasks.mdx) on the
//! same task objects: only the wire shapes differ.

use crate::error::McpError;
use serde_json::{Map, Value, json};

/// A modern `DetailedTask` (as the task object answers) as a 2025-11-25 `Task`:
/// `ttlMs` → `ttl`, `pollIntervalMs` → `pollInterval`, no status payload.
pub fn legacy_task(detailed: &Value) -> Value {
    let mut task = json!({
        "taskId": detailed["taskId"],
        "status": detailed["status"],
        "createdAt": detailed["createdAt"],
        "lastUpdatedAt": detailed["lastUpdatedAt"],
        "ttl": detailed["ttlMs"],
    });
    if let Some(poll) = detailed.get("pollIntervalMs") {
        task["pollInterval"] = poll.clone();
    }
    if let Some(message) = detailed.get("statusMessage") {
        task["statusMessage"] = message.clone();
    }
    task
}

/// `params.task` of a task-augmented request: `Some(requested ttl)` if present (the
/// ttl may be absent or null), -32602 if it is not an object.
pub fn task_params(params: &Map<String, Value>) -> Result<Option<Option<u64>>, McpError> {
    match params.get("task") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(task)) => match task.get("ttl") {
            None | Some(Value::Null) => Ok(Some(None)),
            Some(ttl) => ttl.as_u64().map(|t| Some(Some(t))).ok_or_else(|| {
                McpError::InvalidParams("params.task.ttl must be a non-negative integer".into())
            }),
        },
        Some(_) => Err(McpError::InvalidParams(
            "params.task must be an object".into(),
        )),
    }
}
