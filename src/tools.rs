//! The tool API: one resumable step function per tool (docs/authoring.md, "Writing a tool").
//!
//! A tool is written once; the server decides per request whether a call completes
//! inline, asks for input with an MRTR `InputRequiredResult`, runs inline to the end
//! (`optional` tools for clients without the Tasks extension), or becomes a task that its
//! Durable Object drives from alarms. The step never knows which:
//!
//! ```text
//! step(call, host) → Step::Complete(result)  done; `isError: true` results are still Complete
//!                  → Step::NeedInput(reqs)   ask the client; the step re-runs with the answers
//!                  → Step::Continue{..}      persist the checkpoint, run the next step later
//!                  → Step::Fail(error)       a JSON-RPC error (task status "failed")
//!                  → Err(ToolError)          an `isError` result, a JSON-RPC error, or
//!                                            the question `Call::ask` returns through `?`
//! ```
//!
//! Steps are `async` and reach the platform through a [`Host`](crate::host::Host). A
//! step sees its input (arguments, answers so far, last checkpoint, the time) and
//! nothing else, so a task can resume on any instance after eviction or a restart.
//!
//! **A step may run more than once** (an instance can be evicted or crash after the step
//! did its work but before its outcome was stored): make external effects idempotent,
//! for example by using [`Call::task_id`] as an idempotency key.

mod annotations;
mod call;
mod handler;
mod output;
mod question;
mod registry;
mod tool;

pub use annotations::Annotations;
pub use call::{CHECKPOINT_MISMATCH, Call, Progress, Report};
pub(crate) use handler::Handler;
pub use output::{IntoStep, Output, StepResult};
pub use question::{Answer, form_schema};
pub use registry::Registry;
pub use tool::{TaskSupport, Tool};

use crate::host::HostError;
use crate::jsonrpc::{self, ErrorCode, ErrorObject};
use crate::mcp::TextContent;
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;
use std::time::Duration;

/// How far a task has come, in numbers: a progress report's `progress` of `total`
/// (basic/patterns/progress), kept on the task and shown to its owner beside the status
/// message (`_meta["mcp-tasks-edge/task"]`, [`crate::tasks::record::TaskRecord::to_task`]).
///
/// No serde of its own: the record stores its two numbers as members of its own
/// (`progress`, `total`), which costs the Worker less than a nested struct's reader.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Amount {
    pub progress: f64,
    pub total: Option<f64>,
}

/// What one step of a tool produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The `CallToolResult` (an object with `content`).
    Complete(Value),
    /// Input requests keyed by the tool's own keys; the step re-runs with the answers.
    NeedInput(Map<String, Value>),
    /// [`Step::NeedInput`] that also sets the checkpoint the step re-runs with: for a step
    /// whose questions come with state of their own (the gateway's, holding an upstream's
    /// `requestState`), so a question asked by MRTR before any task carries it too.
    NeedInputAt {
        requests: Map<String, Value>,
        checkpoint: Value,
    },
    /// More work later: the next step runs `resume_after_ms` from now with `checkpoint`
    /// (`None` keeps the previous one).
    Continue {
        checkpoint: Option<Value>,
        status_message: Option<String>,
        /// How far the work has come, in numbers (`None` keeps the task's last).
        progress: Option<Amount>,
        resume_after_ms: u64,
    },
    /// End with this JSON-RPC error.
    Fail(ErrorObject),
}

impl Step {
    /// Done, with this `CallToolResult` (or, for a prompt, `GetPromptResult`). A tool's
    /// result without `isError` gets `isError: false`, as [`Step::text`]'s has. For a
    /// typed result, see [`Step::output`].
    pub fn complete(result: Value) -> Step {
        Step::Complete(result)
    }

    /// Done, with one text block.
    pub fn text(text: impl Into<String>) -> Step {
        Step::Complete(text_result(text))
    }

    /// Run the next step after `delay` (inside a task: from an alarm, so the wait costs
    /// nothing and a cancel takes effect at once). Chain [`Step::checkpoint`] and
    /// [`Step::message`].
    pub fn wait(delay: Duration) -> Step {
        Step::Continue {
            checkpoint: None,
            status_message: None,
            progress: None,
            resume_after_ms: delay.as_millis().min(u64::MAX as u128) as u64,
        }
    }

    /// Run the next step as soon as possible.
    pub fn next() -> Step {
        Step::wait(Duration::ZERO)
    }

    /// Ask the client: `key` → an input request (see [`crate::mcp::input`]).
    pub fn ask(key: &str, request: Value) -> Step {
        Step::NeedInput(one_request(key, request))
    }

    /// Sets the checkpoint the next step sees (a `Continue` only). A value that does not
    /// serialize (a map with non-string keys, a failing `Serialize`) fails the call
    /// instead of storing nothing: the next step would start over.
    pub fn checkpoint(mut self, value: impl Serialize) -> Step {
        if let Step::Continue { checkpoint, .. } = &mut self {
            match serde_json::to_value(value) {
                Ok(value) => *checkpoint = Some(value),
                Err(e) => {
                    return Step::Fail(internal_error(format!(
                        "the step's checkpoint does not serialize as JSON: {e}"
                    )));
                }
            }
        }
        self
    }

    /// A `Continue` takes the latest progress report's numbers and, without a status
    /// message of its own, its summary (so progress shows in a task's `statusMessage`,
    /// and as numbers in this server's `_meta` on the task).
    pub fn or_progress(mut self, reports: &Progress) -> Step {
        let Some(report) = reports.last() else {
            return self;
        };
        if let Step::Continue {
            status_message,
            progress,
            ..
        } = &mut self
        {
            progress.get_or_insert(Amount {
                progress: report.progress,
                total: report.total,
            });
            status_message.get_or_insert_with(|| report.summary());
        }
        self
    }

    /// Sets the task's `statusMessage` (a `Continue` only).
    pub fn message(mut self, message: impl Into<String>) -> Step {
        if let Step::Continue { status_message, .. } = &mut self {
            *status_message = Some(message.into());
        }
        self
    }
}

/// Why a step could not produce a [`Step`]: the author chooses how the caller sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolError {
    /// A tool-level error the model sees: a result with `isError: true` (tasks complete).
    Result(String),
    /// A JSON-RPC error (tasks fail).
    Rpc(ErrorObject),
    /// Not a failure: the step asks for input first ([`Call::ask`] returns it for `?`)
    /// and re-runs with the answers, as with [`Step::NeedInput`].
    NeedInput(Map<String, Value>),
}

impl ToolError {
    /// An `isError: true` result with this text.
    pub fn message(text: impl Into<String>) -> Self {
        ToolError::Result(text.into())
    }

    /// A JSON-RPC -32602 error.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        ToolError::Rpc(ErrorObject {
            code: ErrorCode::INVALID_PARAMS,
            message: message.into(),
            data: None,
        })
    }

    /// A JSON-RPC -32603 error.
    pub fn internal(message: impl Into<String>) -> Self {
        ToolError::Rpc(internal_error(message))
    }

    /// The step this error ends the call with.
    pub fn into_step(self) -> Step {
        match self {
            ToolError::Result(text) => Step::Complete(error_result(text)),
            ToolError::Rpc(error) => Step::Fail(error),
            ToolError::NeedInput(requests) => Step::NeedInput(requests),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Result(text) => f.write_str(text),
            ToolError::Rpc(error) => write!(f, "{} ({})", error.message, error.code.0),
            ToolError::NeedInput(requests) => {
                write!(f, "asks for input: ")?;
                f.debug_list().entries(requests.keys()).finish()
            }
        }
    }
}

/// A platform failure is something the model can read and react to (an `isError`
/// result), except missing configuration, which is the operator's problem (-32603).
impl From<HostError> for ToolError {
    fn from(e: HostError) -> Self {
        match e {
            HostError::Missing { .. } | HostError::Misconfigured(_) => {
                ToolError::internal(format!("server misconfigured: {e}"))
            }
            other => ToolError::Result(other.to_string()),
        }
    }
}

/// An `inputRequests` map with one request.
pub fn one_request(key: &str, request: Value) -> Map<String, Value> {
    [(key.to_owned(), request)].into_iter().collect()
}

/// A `CallToolResult` of one text block, and its `structuredContent` if any.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallToolResult<'a> {
    content: [TextContent<'a>; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<&'a Value>,
    is_error: bool,
}

fn call_tool_result(text: &str, structured_content: Option<&Value>, is_error: bool) -> Value {
    jsonrpc::payload(&CallToolResult {
        content: [TextContent::new(text)],
        structured_content,
        is_error,
    })
}

/// A text content block.
pub fn text(s: impl Into<String>) -> Value {
    jsonrpc::payload(&TextContent::new(&s.into()))
}

/// A successful `CallToolResult` with one text block.
pub fn text_result(s: impl Into<String>) -> Value {
    call_tool_result(&s.into(), None, false)
}

/// A tool-level error result (`isError: true`): the model sees it; the task completes.
pub fn error_result(s: impl Into<String>) -> Value {
    call_tool_result(&s.into(), None, true)
}

/// A JSON-RPC internal error for `Step::Fail`.
pub fn internal_error(message: impl Into<String>) -> ErrorObject {
    ErrorObject {
        code: ErrorCode::INTERNAL_ERROR,
        message: message.into(),
        data: None,
    }
}
