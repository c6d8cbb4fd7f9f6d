//! Legacy experimental tasks (spec-2025-11-25 basic/utilities/tasks) on the same task
//! objects as the Tasks extension: a task created by either era is read by the other.
//! This is the pure part: the wire shapes, the record a task-augmented `tools/call`
//! creates, and what `tasks/result` does at each state of the task.

use crate::error::McpError;
use crate::jsonrpc::{self, ErrorObject, payload};
use crate::mcp::meta::RequestMeta;
use crate::server::call::checked_call;
use crate::server::{Context, Server};
use crate::tasks::record::{NewTask, TaskRecord};
use crate::tasks::task::{StatusKind, TaskStatus};
use crate::tools::TaskSupport;
use serde::Serialize;
use serde_json::{Map, Value};

/// The `_meta` key tying a message to a task.
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// What `_meta`'s [`RELATED_TASK`] holds (legacy tasks "Associating Task-Related Messages").
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RelatedTask<'a> {
    task_id: &'a str,
}

/// Tags a message's params or a result with the task it belongs to.
pub fn tag_related(params: &mut Value, task_id: &str) {
    params["_meta"][RELATED_TASK] = jsonrpc::payload(&RelatedTask { task_id });
}

/// A modern `DetailedTask` (as the task object answers) as a 2025-11-25 `Task`:
/// `ttlMs` → `ttl`, `pollIntervalMs` → `pollInterval`, no status payload.
///
/// A tool result with `isError: true` completes a task of the Tasks extension, but a
/// 2025-11-25 client reads such a task as `failed` (legacy tasks "Task Execution Errors":
/// a tool call whose result has `isError` set moves the task to `failed`); `tasks/result`
/// still returns the result itself.
pub fn legacy_task(detailed: &Value) -> Value {
    let tool_error = StatusKind::of_task(detailed) == Some(StatusKind::Completed)
        && detailed.pointer("/result/isError") == Some(&Value::Bool(true));
    let failed = Value::from("failed");
    let reported = match detailed.get("statusMessage") {
        None if tool_error => {
            let text = detailed
                .pointer("/result/content/0/text")
                .and_then(Value::as_str);
            Some(Value::from(format!(
                "The tool reported an error: {}",
                text.unwrap_or("see tasks/result")
            )))
        }
        _ => None,
    };
    payload(&LegacyTask {
        task_id: &detailed["taskId"],
        status: if tool_error {
            &failed
        } else {
            &detailed["status"]
        },
        created_at: &detailed["createdAt"],
        last_updated_at: &detailed["lastUpdatedAt"],
        ttl: &detailed["ttlMs"],
        poll_interval: detailed.get("pollIntervalMs"),
        status_message: detailed.get("statusMessage").or(reported.as_ref()),
    })
}

/// A 2025-11-25 `Task`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LegacyTask<'a> {
    task_id: &'a Value,
    status: &'a Value,
    created_at: &'a Value,
    last_updated_at: &'a Value,
    ttl: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    poll_interval: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status_message: Option<&'a Value>,
}

/// A `tasks/list` result (legacy tasks "Task Listing") from a page of "my tasks" (modern
/// `DetailedTask`s, newest first) and the cursor of the next page, if any.
pub fn list_result(tasks: &[Value], next: Option<String>) -> Value {
    let tasks: Vec<Value> = tasks.iter().map(legacy_task).collect();
    crate::tasks::task::list_result(false, tasks, next)
}

/// What `tasks/result` returns for a completed task, from the modern `DetailedTask`: its
/// `CallToolResult` as 2025-11-25 has it (without `resultType`, which only 2026-07-28
/// readers get, see `TaskRecord::to_task`), tagged with the task (legacy tasks
/// "Associating Task-Related Messages", and the `tasks/result` example).
pub fn task_result(detailed: &Value) -> Value {
    let task_id = detailed["taskId"].as_str().unwrap_or_default();
    tagged_result(detailed["result"].clone(), task_id)
}

fn tagged_result(result: Value, task_id: &str) -> Value {
    let mut result = super::legacy_result(result);
    tag_related(&mut result, task_id);
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

/// A -32601 error with its own message (legacy tasks answer task-support mismatches so).
pub fn method_not_found(message: String) -> McpError {
    McpError::Wire(crate::jsonrpc::ErrorObject {
        code: crate::jsonrpc::ErrorCode::METHOD_NOT_FOUND,
        message,
        data: None,
    })
}

/// A task-augmented `tools/call` (`params.task`): the client asked for a task, so one is
/// created at once and its first step runs in the task object (legacy tasks
/// "Task-augmented requests"). The arguments are checked exactly as the modern
/// `tools/call` checks them.
pub fn task_record(
    server: &Server,
    params: &Map<String, Value>,
    meta: &RequestMeta,
    ctx: &Context,
    requested_ttl_ms: Option<u64>,
) -> Result<TaskRecord, McpError> {
    let (tool, arguments) = checked_call(server, params, None)?;
    // A legacy task asks through elicitation (tasks/result's stream) or not at all.
    crate::server::call::askable(tool, &meta.capabilities)?;
    if tool.task_support() == TaskSupport::Forbidden {
        // Legacy tasks "Tool-Level Negotiation": SHOULD be -32601.
        return Err(method_not_found(format!(
            "The tool {} does not run as a task (execution.taskSupport is \"forbidden\"); call it without params.task",
            tool.name()
        )));
    }
    Ok(TaskRecord::new(NewTask {
        tool: tool.name().to_owned(),
        title: tool.given_title().map(str::to_owned),
        owner: ctx.principal.clone(),
        arguments,
        capabilities: meta.capabilities.0.clone(),
        checkpoint: Value::Null,
        answers: Map::new(),
        status_message: None,
        amount: None,
        now_ms: ctx.now_ms,
        ttl_ms: server.config.task_ttl(requested_ttl_ms.or(tool.ttl_ms())),
        poll_interval_ms: server.config.poll_interval_ms,
        next_step_at_ms: ctx.now_ms,
    }))
}

/// What `tasks/result` does next, given the task as `tasks/get` reads it (a
/// `DetailedTask`): it blocks until the task ends, asking the client for input on the way.
#[derive(Debug, Clone, PartialEq)]
pub enum ResultStep {
    /// The task completed: answer with its result, tagged with the task.
    Complete(Value),
    /// The task failed: answer with its error.
    Fail(ErrorObject),
    /// The task was cancelled.
    Cancelled,
    /// Ask the client these input requests (keyed as `tasks/update` answers them).
    Ask(Map<String, Value>),
    /// Still working: wait, then read it again.
    Wait,
}

/// Whether `task` still waits for exactly the answers `keys`: a `tasks/result` that asked
/// them waits on; any other state means the task moved on without them.
pub fn still_asking(task: &Value, task_id: &str, keys: &[String]) -> bool {
    matches!(result_step(task, task_id), Ok(ResultStep::Ask(requests)) if requests.keys().eq(keys))
}

/// See [`ResultStep`]; `task_id` tags the result. A task that does not decode is an
/// internal error naming why (invariant 5), never a reason to wait.
pub fn result_step(task: &Value, task_id: &str) -> Result<ResultStep, McpError> {
    Ok(match TaskStatus::of_task(task)? {
        TaskStatus::Completed { result } => ResultStep::Complete(tagged_result(result, task_id)),
        TaskStatus::Failed { error } => ResultStep::Fail(error),
        TaskStatus::Cancelled => ResultStep::Cancelled,
        TaskStatus::InputRequired { input_requests } => ResultStep::Ask(input_requests),
        TaskStatus::Working => ResultStep::Wait,
    })
}
