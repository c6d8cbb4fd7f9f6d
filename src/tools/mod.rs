//! The tool API: one resumable step function per tool (DESIGN.md §3).
//!
//! A tool is written once; the server decides per request whether a call completes
//! inline, asks for input with an MRTR `InputRequiredResult`, runs inline to the end
//! (`optional` tools for clients without the Tasks extension), or becomes a task that its
//! Durable Object drives from alarms. The step function never knows which:
//!
//! ```text
//! step(call) → Complete(result)     done; `isError: true` results are still Complete
//!            → NeedInput(requests)  ask the client; the step re-runs with the answers
//!            → Continue{..}         persist `checkpoint`, run the next step later
//!            → Fail(error)          a JSON-RPC error (task status "failed")
//! ```
//!
//! Steps are plain functions of their input (arguments, answers so far, last checkpoint,
//! the time), so a task can resume on any instance after eviction or a restart.

pub mod demo;
pub mod fixtures;

use crate::error::McpError;
use crate::jsonrpc::{ErrorCode, ErrorObject};
use crate::mcp::input::{self, Elicited};
use crate::mcp::meta::ClientCapabilities;
use serde_json::{Map, Value, json};

/// What one step of a tool produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Complete(Value),
    NeedInput(Map<String, Value>),
    Continue {
        checkpoint: Value,
        status_message: Option<String>,
        resume_after_ms: u64,
    },
    Fail(ErrorObject),
}

/// Everything a step may read. Answers are keyed by the keys the tool chose in
/// `NeedInput`, whichever flow (MRTR or task) delivered them.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    pub arguments: &'a Map<String, Value>,
    pub answers: &'a Map<String, Value>,
    pub checkpoint: &'a Value,
    pub capabilities: &'a ClientCapabilities,
    /// Input rounds completed so far (verified `requestState` rounds, or task rounds).
    pub round: u32,
    /// Unix milliseconds, read by the adapter.
    pub now_ms: u64,
}

impl ToolCall<'_> {
    pub fn str_arg(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).and_then(Value::as_str)
    }

    pub fn f64_arg(&self, name: &str) -> Option<f64> {
        self.arguments.get(name).and_then(Value::as_f64)
    }

    /// The answer to elicitation `key`, if it has arrived; `Err` if it is malformed.
    pub fn elicited(&self, key: &str) -> Result<Option<Elicited>, ErrorObject> {
        self.answers
            .get(key)
            .map(|a| input::as_elicit_result(key, a))
            .transpose()
            .map_err(|e| e.to_wire())
    }

    /// Asks for one required text `field` by form elicitation under `key` and gives back
    /// the answer: `Ok(Some(text))` once accepted, `Ok(None)` if the user declined or
    /// cancelled, and until then `Err(step)`, the step to return (the question, or a
    /// failure for a malformed answer):
    ///
    /// ```ignore
    /// let name = match call.ask_text("name", "Your name?", "name") {
    ///     Ok(name) => name.unwrap_or_else(|| "stranger".into()),
    ///     Err(step) => return step,
    /// };
    /// ```
    pub fn ask_text(&self, key: &str, message: &str, field: &str) -> Result<Option<String>, Step> {
        match self.elicited(key) {
            Err(error) => Err(Step::Fail(error)),
            Ok(None) => {
                let schema = json!({ "type": "object", "properties": { field: { "type": "string" } }, "required": [field] });
                Err(Step::NeedInput(one_request(
                    key,
                    input::elicit_form(message, schema),
                )))
            }
            Ok(Some(Elicited::Accept(content))) => Ok(Some(
                content
                    .get(field)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            )),
            Ok(Some(Elicited::Decline | Elicited::Cancel)) => Ok(None),
        }
    }

    /// The text of sampling answer `key`, if it has arrived.
    pub fn sampled(&self, key: &str) -> Result<Option<String>, ErrorObject> {
        self.answers
            .get(key)
            .map(|a| input::as_sampled_text(key, a))
            .transpose()
            .map_err(|e| e.to_wire())
    }

    /// The root URIs of `roots/list` answer `key`, if it has arrived.
    pub fn roots(&self, key: &str) -> Result<Option<Vec<String>>, ErrorObject> {
        self.answers
            .get(key)
            .map(|a| input::as_root_uris(key, a))
            .transpose()
            .map_err(|e| e.to_wire())
    }
}

/// Whether a tool may, must, or must not run as a task. Server-side registration only:
/// nothing of it is on the wire in SEP-2663.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    /// Always answers inline (a `Continue` is run to the end inline).
    Forbidden,
    /// Becomes a task when the client declared the extension, else runs inline.
    Optional,
    /// Needs a task: clients without the extension get -32021.
    Required,
}

/// A registered tool: its `tools/list` definition, task support, and step function.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub definition: Value,
    pub task_support: TaskSupport,
    /// Overrides the server's default task TTL (still capped by the maximum).
    pub ttl_ms: Option<u64>,
    pub step: fn(&ToolCall) -> Step,
}

impl ToolSpec {
    pub fn name(&self) -> &str {
        self.definition["name"].as_str().unwrap_or_default()
    }

    pub fn input_schema(&self) -> &Value {
        &self.definition["inputSchema"]
    }
}

/// The tools this server offers, in a deterministic order (tools "Capabilities").
#[derive(Debug, Clone)]
pub struct Registry {
    tools: Vec<ToolSpec>,
}

impl Registry {
    /// The demo tools, preceded by the conformance fixtures when `fixtures` is on
    /// (http-header-validation calls the first listed tool with empty arguments).
    pub fn new(fixtures: bool) -> Self {
        let mut tools = if fixtures {
            fixtures::tools()
        } else {
            Vec::new()
        };
        tools.extend(demo::tools());
        Registry { tools }
    }

    pub fn get(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|t| t.name() == name)
    }

    pub fn definitions(&self) -> Vec<Value> {
        self.tools.iter().map(|t| t.definition.clone()).collect()
    }

    /// Looks a tool up for `tools/call`: -32602 for an unknown name (schema example
    /// `InvalidParamsError/unknown-tool`).
    pub fn lookup(&self, name: &str) -> Result<&ToolSpec, McpError> {
        self.get(name)
            .ok_or_else(|| McpError::InvalidParams(format!("Unknown tool: {name}")))
    }
}

/// An `inputRequests` map with one request.
pub fn one_request(key: &str, request: Value) -> Map<String, Value> {
    [(key.to_owned(), request)].into_iter().collect()
}

/// A text content block.
pub fn text(s: impl Into<String>) -> Value {
    json!({ "type": "text", "text": s.into() })
}

/// A successful `CallToolResult` with one text block.
pub fn text_result(s: impl Into<String>) -> Value {
    json!({ "content": [text(s)], "isError": false })
}

/// A tool-level error result (`isError: true`): the model sees it; the task completes.
pub fn error_result(s: impl Into<String>) -> Value {
    json!({ "content": [text(s)], "isError": true })
}

/// A JSON-RPC internal error for `Step::Fail`.
pub fn internal_error(message: impl Into<String>) -> ErrorObject {
    ErrorObject {
        code: ErrorCode::INTERNAL_ERROR,
        message: message.into(),
        data: None,
    }
}
