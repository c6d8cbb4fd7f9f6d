//! Demo tools that show the Tasks extension to a newcomer. Each is a step function; see
//! the module docs of `tools` for how the server runs them.

use super::{Step, TaskSupport, ToolCall, ToolSpec, error_result, one_request, text, text_result};
use crate::mcp::input::{self, Elicited};
use serde_json::{Value, json};

pub fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            definition: json!({
                "name": "echo",
                "title": "Echo",
                "description": "Returns the given text unchanged. A synchronous tool: it never creates a task.",
                "inputSchema": {
                    "type": "object",
                    "properties": { "text": { "type": "string", "description": "Text to echo back" } },
                    "required": ["text"],
                    "additionalProperties": false
                }
            }),
            task_support: TaskSupport::Forbidden,
            ttl_ms: None,
            step: echo,
        },
        ToolSpec {
            definition: json!({
                "name": "hello_world",
                "title": "Hello, world (elicitation)",
                "description": "Asks the user for their name, then greets them. With the Tasks extension the question is asked by the task (tasks/get shows input_required, tasks/update answers); without it, by a multi round-trip request.",
                "inputSchema": { "type": "object", "additionalProperties": false }
            }),
            task_support: TaskSupport::Optional,
            ttl_ms: None,
            step: hello_world,
        },
        ToolSpec {
            definition: json!({
                "name": "process_batch",
                "title": "Process a batch (long task)",
                "description": "Processes `items` items one at a time, `delayMs` apart, reporting progress in the task's statusMessage as 'Processed N/M items'. Cancel it at any point with tasks/cancel.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "items": { "type": "integer", "minimum": 1, "maximum": 100, "default": 10, "description": "How many items to process" },
                        "delayMs": { "type": "integer", "minimum": 0, "maximum": 60000, "default": 1000, "description": "Milliseconds per item" },
                        "label": { "type": "string", "default": "batch", "description": "A name for the batch" }
                    },
                    "additionalProperties": false
                }
            }),
            task_support: TaskSupport::Optional,
            ttl_ms: None,
            step: process_batch,
        },
        ToolSpec {
            definition: json!({
                "name": "read_the_spec",
                "title": "Read the spec (URL elicitation)",
                "description": "Sends you to the MCP specification with a URL-mode elicitation and thanks you once you confirm. Needs a client that declares elicitation.url.",
                "inputSchema": { "type": "object", "additionalProperties": false }
            }),
            task_support: TaskSupport::Forbidden,
            ttl_ms: None,
            step: read_the_spec,
        },
    ]
}

const SPEC_URL: &str = "https://modelcontextprotocol.io/specification/2026-07-28";

/// URL-mode elicitation (client/elicitation "URL Mode"): the answer carries no content.
fn read_the_spec(call: &ToolCall) -> Step {
    match call.elicited("visit") {
        Err(error) => Step::Fail(error),
        Ok(None) => Step::NeedInput(one_request(
            "visit",
            input::elicit_url(
                "Please read the MCP 2026-07-28 specification.",
                SPEC_URL,
                "read-the-spec",
            ),
        )),
        Ok(Some(Elicited::Accept(_))) => {
            Step::Complete(text_result(format!("Thanks for reading {SPEC_URL}!")))
        }
        Ok(Some(_)) => Step::Complete(text_result("Maybe later, then.")),
    }
}

fn echo(call: &ToolCall) -> Step {
    Step::Complete(text_result(call.str_arg("text").unwrap_or_default()))
}

/// The ext-tasks "Example Message Flow": create the task first, then ask inside it.
fn hello_world(call: &ToolCall) -> Step {
    if call.checkpoint.is_null() {
        // First step: hand the rest to the task (or to the inline run) straight away.
        return Step::Continue {
            checkpoint: json!({ "asked": true }),
            status_message: Some("Waiting to ask for your name".into()),
            resume_after_ms: 0,
        };
    }
    match call.elicited("name") {
        Err(error) => Step::Fail(error),
        Ok(None) => Step::NeedInput(one_request(
            "name",
            input::elicit_form(
                "Please enter your name.",
                json!({
                    "type": "object",
                    "properties": { "name": { "type": "string", "title": "Your name" } },
                    "required": ["name"]
                }),
            ),
        )),
        Ok(Some(Elicited::Accept(content))) => match content.get("name").and_then(Value::as_str) {
            Some(name) if !name.trim().is_empty() => {
                Step::Complete(text_result(format!("Hello, {}!", name.trim())))
            }
            _ => Step::Complete(error_result("No name was given.")),
        },
        Ok(Some(Elicited::Decline)) => Step::Complete(text_result("Hello, stranger!")),
        Ok(Some(Elicited::Cancel)) => {
            Step::Complete(error_result("The user cancelled the question."))
        }
    }
}

/// A long job: one item per step, progress in the status message, cancellable between
/// any two items because each wait is an alarm, not a sleep.
fn process_batch(call: &ToolCall) -> Step {
    let total = call.f64_arg("items").unwrap_or(10.0) as u64;
    let delay = call.f64_arg("delayMs").unwrap_or(1000.0) as u64;
    let label = call.str_arg("label").unwrap_or("batch");
    let done = call
        .checkpoint
        .get("done")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let started = call
        .checkpoint
        .get("startedAt")
        .and_then(Value::as_u64)
        .unwrap_or(call.now_ms);
    if done >= total {
        let elapsed = call.now_ms.saturating_sub(started);
        return Step::Complete(json!({
            "content": [text(format!("Processed {total} items of {label} in {elapsed} ms."))],
            "structuredContent": { "label": label, "items": total, "elapsedMs": elapsed },
            "isError": false
        }));
    }
    let done = done + 1;
    Step::Continue {
        checkpoint: json!({ "done": done, "startedAt": started }),
        status_message: Some(format!("Processed {done}/{total} items")),
        resume_after_ms: delay,
    }
}
