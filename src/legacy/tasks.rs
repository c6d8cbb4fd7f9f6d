//! Legacy experimental tasks (spec/spec-2025-11-25_basic_utilities_tasks.mdx) on the
//! same task objects: only the wire shapes differ.

use crate::error::McpError;
use serde_json::{Map, Value, json};

/// A modern `DetailedTask` (as the task object answers) as a 2025-11-25 `Task`:
/// `ttlMs` → `ttl`, `pollIntervalMs` → `pollInterval`, no status payload.
///
/// A tool result with `isError: true` completes a task of the Tasks extension, but a
/// 2025-11-25 client reads such a task as `failed` (legacy tasks "Task Execution Errors":
/// a tool call whose result has `isError` set moves the task to `failed`); `tasks/result`
/// still returns the result itself.
pub fn legacy_task(detailed: &Value) -> Value {
    let tool_error = detailed["status"] == "completed"
        && detailed.pointer("/result/isError") == Some(&Value::Bool(true));
    let status = if tool_error {
        json!("failed")
    } else {
        detailed["status"].clone()
    };
    let mut task = json!({
        "taskId": detailed["taskId"],
        "status": status,
        "createdAt": detailed["createdAt"],
        "lastUpdatedAt": detailed["lastUpdatedAt"],
        "ttl": detailed["ttlMs"],
    });
    if let Some(poll) = detailed.get("pollIntervalMs") {
        task["pollInterval"] = poll.clone();
    }
    if let Some(message) = detailed.get("statusMessage") {
        task["statusMessage"] = message.clone();
    } else if tool_error {
        let text = detailed
            .pointer("/result/content/0/text")
            .and_then(Value::as_str);
        task["statusMessage"] = format!(
            "The tool reported an error: {}",
            text.unwrap_or("see tasks/result")
        )
        .into();
    }
    task
}

/// The related-task `_meta` key (legacy tasks "Associating Task-Related Messages").
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// What `tasks/result` returns for a completed task, from the modern `DetailedTask`: its
/// `CallToolResult` as 2025-11-25 has it (without `resultType`, which only 2026-07-28
/// readers get, see `TaskRecord::to_task`), tagged with the task (legacy tasks
/// "Associating Task-Related Messages", and the `tasks/result` example).
pub fn task_result(detailed: &Value) -> Value {
    let mut result = super::legacy_result(detailed["result"].clone());
    result["_meta"][RELATED_TASK] = json!({ "taskId": detailed["taskId"] });
    result
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
