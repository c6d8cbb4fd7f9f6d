//! The decisions of a tool call, in plain Rust: what a `tools/call` result means, what a
//! task snapshot means, which input requests are new, how long to wait between polls.
//! The wasm driver (`driver.rs`) only performs the I/O these decisions ask for.
//!
//! # Flow
//!
//! ```text
//! tools/call ──complete──────────────────────────────▶ CallToolResult
//!     │ input_required {inputRequests, requestState}
//!     │   → answer every key with the JS handlers, call again with inputResponses
//!     │ task {taskId, status, pollIntervalMs}
//!     ▼
//! tasks/get every pollIntervalMs ──completed──▶ result   ──failed──▶ McpError(task.error)
//!     │ input_required: answer keys not answered before → tasks/update
//!     └ cancelled ──▶ McpError(-32800)
//! ```

use super::error::{ClientError, Details};
use super::sse::bare_task;
use crate::mcp::input::{ELICIT, LIST_ROOTS, SAMPLE};
use crate::tasks::task::{RESULT_COMPLETE, RESULT_INPUT_REQUIRED, RESULT_TASK, StatusKind};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// MRTR rounds one call may take before the client gives up on a looping server.
pub const MAX_ROUNDS: u32 = 32;
/// Poll interval when the server suggests none.
pub const DEFAULT_POLL_MS: u64 = 1000;
/// Bounds on a server-suggested interval (protects both sides from silly values).
pub const MIN_POLL_MS: u64 = 50;
pub const MAX_POLL_MS: u64 = 60_000;

/// What a `tools/call` answer asks the client to do next.
#[derive(Debug, Clone, PartialEq)]
pub enum CallStep {
    /// The `CallToolResult`.
    Complete(Value),
    /// An MRTR round: answer these, then call again with `requestState` echoed.
    InputRequired {
        requests: Map<String, Value>,
        request_state: Option<String>,
    },
    /// A `CreateTaskResult`: follow the task (the value is the bare `Task`).
    Task(Value),
}

/// Classifies a `tools/call` result by `resultType` (absent means complete: schema `Result`).
pub fn call_step(result: Map<String, Value>) -> Result<CallStep, ClientError> {
    let result_type = result
        .get("resultType")
        .and_then(Value::as_str)
        .unwrap_or(RESULT_COMPLETE)
        .to_owned();
    match result_type.as_str() {
        RESULT_COMPLETE => Ok(CallStep::Complete(Value::Object(result))),
        RESULT_INPUT_REQUIRED => {
            let requests = match result.get("inputRequests") {
                Some(Value::Object(r)) if !r.is_empty() => r.clone(),
                _ => return Err(bad_result("an input_required result without inputRequests")),
            };
            let request_state = result
                .get("requestState")
                .and_then(Value::as_str)
                .map(str::to_owned);
            Ok(CallStep::InputRequired {
                requests,
                request_state,
            })
        }
        RESULT_TASK => match result.get("taskId") {
            Some(Value::String(_)) => Ok(CallStep::Task(Value::Object(bare_task(&result)))),
            _ => Err(bad_result("a task result without taskId")),
        },
        other => Err(bad_result(&format!("unknown resultType {other:?}"))),
    }
}

fn bad_result(why: &str) -> ClientError {
    ClientError::new(
        ClientError::INVALID_REQUEST,
        format!("Invalid response: {why}"),
        None,
    )
}

/// The JS handler an input request goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Elicitation,
    Sampling,
    Roots,
}

impl InputKind {
    pub fn handler_name(self) -> &'static str {
        match self {
            InputKind::Elicitation => "onElicitation",
            InputKind::Sampling => "onSampling",
            InputKind::Roots => "onRoots",
        }
    }
}

/// The kind and params of one input request (`{method, params}`).
pub fn input_kind(key: &str, request: &Value) -> Result<(InputKind, Value), ClientError> {
    let kind = match request.get("method").and_then(Value::as_str) {
        Some(ELICIT) => InputKind::Elicitation,
        Some(SAMPLE) => InputKind::Sampling,
        Some(LIST_ROOTS) => InputKind::Roots,
        other => {
            return Err(ClientError::new(
                ClientError::INVALID_REQUEST,
                format!("Input request {key:?} has an unsupported method {other:?}"),
                Details {
                    key: Some(key),
                    request: Some(request),
                    ..Details::default()
                }
                .data(),
            ));
        }
    };
    Ok((
        kind,
        request
            .get("params")
            .cloned()
            .unwrap_or_else(|| Value::Object(Map::new())),
    ))
}

/// The error when a call needs input and the caller gave no handler for it.
pub fn no_handler(key: &str, kind: InputKind) -> ClientError {
    ClientError::new(
        ClientError::INTERNAL_ERROR,
        format!(
            "The server asked for input {key:?} but no {} handler was given",
            kind.handler_name()
        ),
        Details {
            key: Some(key),
            handler: Some(kind.handler_name()),
            ..Details::default()
        }
        .data(),
    )
}

/// A task snapshot, by status.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskState {
    Working,
    InputRequired(Map<String, Value>),
    Completed(Value),
    Failed(ClientError),
    Cancelled,
}

impl TaskState {
    /// The status without its payload (the core's [`StatusKind`]).
    pub fn kind(&self) -> StatusKind {
        match self {
            TaskState::Working => StatusKind::Working,
            TaskState::InputRequired(_) => StatusKind::InputRequired,
            TaskState::Completed(_) => StatusKind::Completed,
            TaskState::Failed(_) => StatusKind::Failed,
            TaskState::Cancelled => StatusKind::Cancelled,
        }
    }

    pub fn is_terminal(&self) -> bool {
        self.kind().is_terminal()
    }
}

/// Reads a `Task` / `DetailedTask`. An unknown status is a bad response.
pub fn task_state(task: &Value) -> Result<TaskState, ClientError> {
    let id = task
        .get("taskId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match StatusKind::of_task(task) {
        Some(StatusKind::Working) => Ok(TaskState::Working),
        // A Task without details (e.g. CreateTaskResult) may omit the requests.
        Some(StatusKind::InputRequired) => Ok(TaskState::InputRequired(
            task.get("inputRequests")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        )),
        Some(StatusKind::Completed) => Ok(TaskState::Completed(
            task.get("result")
                .cloned()
                .ok_or_else(|| bad_result("a completed task without result"))?,
        )),
        Some(StatusKind::Failed) => Ok(TaskState::Failed(match task.get("error") {
            Some(error) => ClientError::from_object(error),
            None => ClientError::new(
                ClientError::INTERNAL_ERROR,
                task.get("statusMessage")
                    .and_then(Value::as_str)
                    .unwrap_or("The task failed")
                    .to_owned(),
                Details {
                    task_id: Some(id),
                    ..Details::default()
                }
                .data(),
            ),
        })),
        Some(StatusKind::Cancelled) => Ok(TaskState::Cancelled),
        None => Err(bad_result(&format!(
            "task {id} has an unknown status {:?}",
            task.get("status").and_then(Value::as_str)
        ))),
    }
}

/// The rejection of a call whose task ended `cancelled`.
pub fn cancelled(task_id: &str) -> ClientError {
    ClientError::new(
        ClientError::CANCELLED,
        format!("Task {task_id} was cancelled"),
        Details {
            task_id: Some(task_id),
            ..Details::default()
        }
        .data(),
    )
}

/// How long to wait before the next `tasks/get`: the task's `pollIntervalMs`, bounded.
pub fn poll_delay(task: &Value) -> u64 {
    task.get("pollIntervalMs")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_POLL_MS)
        .clamp(MIN_POLL_MS, MAX_POLL_MS)
}

/// Input request keys already answered for one task (ext-tasks: clients SHOULD
/// deduplicate `inputRequests` keys across polls; keys are unique per task lifetime).
#[derive(Debug, Default, Clone)]
pub struct AnsweredKeys(BTreeSet<String>);

impl AnsweredKeys {
    /// The requests not answered yet, in key order.
    pub fn fresh(&self, requests: &Map<String, Value>) -> Vec<(String, Value)> {
        requests
            .iter()
            .filter(|(k, _)| !self.0.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    pub fn mark(&mut self, key: &str) {
        self.0.insert(key.to_owned());
    }
}

/// Remembers the last status seen, so `onTaskStatus` fires once per change of
/// `status` or `statusMessage`.
#[derive(Debug, Default, Clone)]
pub struct StatusWatch(Option<(String, Option<String>)>);

impl StatusWatch {
    pub fn changed(&mut self, task: &Value) -> bool {
        let now = (
            task.get("status")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            task.get("statusMessage")
                .and_then(Value::as_str)
                .map(str::to_owned),
        );
        if self.0.as_ref() == Some(&now) {
            false
        } else {
            self.0 = Some(now);
            true
        }
    }
}

/// The `tools/call` params for one round.
pub fn call_params(
    name: &str,
    arguments: &Value,
    responses: Option<Map<String, Value>>,
    request_state: Option<String>,
) -> Map<String, Value> {
    let mut params = Map::new();
    params.insert("name".into(), name.into());
    params.insert("arguments".into(), arguments.clone());
    if let Some(responses) = responses {
        params.insert("inputResponses".into(), Value::Object(responses));
    }
    if let Some(state) = request_state {
        params.insert("requestState".into(), state.into());
    }
    params
}
