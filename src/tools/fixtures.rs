//! The conformance suite's fixture tools (spec/conformance/*-scenarios.md), enabled by
//! the `CONFORMANCE_FIXTURES` switch. They come first in `tools/list` because
//! http-header-validation calls the first tool with empty arguments.

use super::{Step, TaskSupport, ToolCall, ToolSpec, error_result, internal_error, text_result};
use crate::mcp::input::{self, Elicited};
use serde_json::{Map, Value, json};

fn spec(
    name: &str,
    description: &str,
    schema: Value,
    task_support: TaskSupport,
    step: fn(&ToolCall) -> Step,
) -> ToolSpec {
    ToolSpec {
        definition: json!({ "name": name, "description": description, "inputSchema": schema }),
        task_support,
        ttl_ms: None,
        step,
    }
}

fn no_args() -> Value {
    json!({ "type": "object" })
}

fn one(key: &str, request: Value) -> Map<String, Value> {
    [(key.to_owned(), request)].into_iter().collect()
}

fn name_schema() -> Value {
    json!({ "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] })
}

pub fn tools() -> Vec<ToolSpec> {
    use TaskSupport::*;
    vec![
        spec(
            "test_simple_text",
            "Returns a simple text response.",
            no_args(),
            Forbidden,
            |_| Step::Complete(text_result("This is a simple text response for testing.")),
        ),
        spec(
            "test_error_handling",
            "Always returns a tool error (isError: true).",
            no_args(),
            Forbidden,
            |_| {
                Step::Complete(error_result(
                    "This tool intentionally returns an error for testing",
                ))
            },
        ),
        ToolSpec {
            definition: json!({
                "name": "json_schema_2020_12_tool",
                "description": "Tool with JSON Schema 2020-12 features",
                "inputSchema": {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}
            }),
            task_support: Forbidden,
            ttl_ms: None,
            step: |call| {
                Step::Complete(text_result(format!(
                    "Received: {}",
                    Value::Object(call.arguments.clone())
                )))
            },
        },
        spec(
            "test_header_param",
            "Mirrors its `value` argument into the Mcp-Param-Value header (x-mcp-header).",
            json!({ "type": "object", "properties": { "value": { "type": "string", "x-mcp-header": "Value" } }, "required": ["value"] }),
            Forbidden,
            |call| {
                Step::Complete(text_result(format!(
                    "value={}",
                    call.str_arg("value").unwrap_or_default()
                )))
            },
        ),
        spec(
            "test_missing_capability",
            "Needs the client's sampling capability.",
            no_args(),
            Forbidden,
            |call| match call.sampled("answer") {
                Err(e) => Step::Fail(e),
                Ok(None) => Step::NeedInput(one("answer", input::sample_text("Say hello", 20))),
                Ok(Some(text)) => Step::Complete(text_result(format!("Sampled: {text}"))),
            },
        ),
        spec(
            "test_streaming_elicitation",
            "Asks for input with an InputRequiredResult (never a server request on the stream).",
            no_args(),
            Forbidden,
            |call| match call.elicited("confirm") {
                Err(e) => Step::Fail(e),
                Ok(None) => Step::NeedInput(one(
                    "confirm",
                    input::elicit_form(
                        "Continue?",
                        json!({ "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] }),
                    ),
                )),
                Ok(Some(_)) => Step::Complete(text_result("Confirmed.")),
            },
        ),
        spec(
            "test_logging_tool",
            "Returns a result without log notifications (no logLevel was requested).",
            no_args(),
            Forbidden,
            |_| Step::Complete(text_result("Done without logging.")),
        ),
        spec(
            "test_input_required_result_elicitation",
            "MRTR: asks for a name.",
            no_args(),
            Forbidden,
            |call| match call.elicited("user_name") {
                Err(e) => Step::Fail(e),
                Ok(None) => Step::NeedInput(one(
                    "user_name",
                    input::elicit_form("What is your name?", name_schema()),
                )),
                Ok(Some(answer)) => Step::Complete(text_result(format!(
                    "Hello, {}!",
                    accepted_str(&answer, "name")
                ))),
            },
        ),
        spec(
            "test_input_required_result_sampling",
            "MRTR: asks the client's model a question.",
            no_args(),
            Forbidden,
            |call| match call.sampled("capital_question") {
                Err(e) => Step::Fail(e),
                Ok(None) => Step::NeedInput(one(
                    "capital_question",
                    input::sample_text("What is the capital of France?", 100),
                )),
                Ok(Some(text)) => Step::Complete(text_result(format!("The model said: {text}"))),
            },
        ),
        spec(
            "test_input_required_result_list_roots",
            "MRTR: asks for the client's roots.",
            no_args(),
            Forbidden,
            |call| match call.roots("client_roots") {
                Err(e) => Step::Fail(e),
                Ok(None) => Step::NeedInput(one("client_roots", input::list_roots())),
                Ok(Some(roots)) => {
                    Step::Complete(text_result(format!("Roots: {}", roots.join(", "))))
                }
            },
        ),
        spec(
            "test_input_required_result_request_state",
            "MRTR with requestState.",
            no_args(),
            Forbidden,
            confirm_with_state,
        ),
        spec(
            "test_input_required_result_tampered_state",
            "MRTR with integrity-protected requestState.",
            no_args(),
            Forbidden,
            confirm_with_state,
        ),
        spec(
            "test_input_required_result_multiple_inputs",
            "MRTR: elicitation, sampling and roots in one round.",
            no_args(),
            Forbidden,
            multiple_inputs,
        ),
        spec(
            "test_input_required_result_multi_round",
            "MRTR over two rounds.",
            no_args(),
            Forbidden,
            multi_round,
        ),
        spec(
            "test_input_required_result_capabilities",
            "MRTR: only asks for what the client declared.",
            no_args(),
            Forbidden,
            by_capability,
        ),
        spec(
            "greet",
            "Greets someone synchronously.",
            name_schema(),
            Forbidden,
            |call| {
                Step::Complete(text_result(format!(
                    "Hello, {}!",
                    call.str_arg("name").unwrap_or_default()
                )))
            },
        ),
        spec(
            "slow_compute",
            "Sleeps `seconds` seconds (as a task when the client supports tasks), then answers.",
            json!({ "type": "object", "properties": { "seconds": { "type": "number", "minimum": 0 }, "label": { "type": "string" } } }),
            Optional,
            slow_compute,
        ),
        spec(
            "failing_job",
            "A task that ends with a tool error (isError: true) after about a second.",
            no_args(),
            Required,
            |call| {
                if call.checkpoint.is_null() {
                    Step::Continue {
                        checkpoint: json!(1),
                        status_message: Some("Working…".into()),
                        resume_after_ms: 1000,
                    }
                } else {
                    Step::Complete(error_result(
                        "The job failed: the input could not be processed.",
                    ))
                }
            },
        ),
        spec(
            "protocol_error_job",
            "A task that ends with a JSON-RPC error (status failed).",
            no_args(),
            Required,
            |call| {
                if call.checkpoint.is_null() {
                    Step::Continue {
                        checkpoint: json!(1),
                        status_message: None,
                        resume_after_ms: 200,
                    }
                } else {
                    Step::Fail(internal_error(
                        "protocol_error_job raised an internal error on purpose",
                    ))
                }
            },
        ),
        spec(
            "confirm_delete",
            "Asks (inside the task) for confirmation before 'deleting' `filename`.",
            json!({ "type": "object", "properties": { "filename": { "type": "string" } }, "required": ["filename"] }),
            Required,
            confirm_delete,
        ),
        spec(
            "multi_input",
            "Asks (inside the task) two questions at once.",
            no_args(),
            Required,
            multi_input,
        ),
        spec(
            "test_tool_with_task",
            "Asks for a name by MRTR, then finishes the work as a task.",
            no_args(),
            Required,
            tool_with_task,
        ),
        spec(
            "panic_job",
            "Test-only: panics inside its task step, to show a crash ends the task failed.",
            no_args(),
            Required,
            |call| {
                if call.checkpoint.is_null() {
                    Step::Continue {
                        checkpoint: json!(1),
                        status_message: None,
                        resume_after_ms: 0,
                    }
                } else {
                    panic!("panic_job panics on purpose")
                }
            },
        ),
    ]
}

fn accepted_str(answer: &Elicited, field: &str) -> String {
    match answer {
        Elicited::Accept(content) => content
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or("stranger")
            .to_owned(),
        Elicited::Decline | Elicited::Cancel => "stranger".to_owned(),
    }
}

fn confirm_with_state(call: &ToolCall) -> Step {
    match call.elicited("confirm") {
        Err(e) => Step::Fail(e),
        Ok(None) => Step::NeedInput(one(
            "confirm",
            input::elicit_form(
                "Please confirm",
                json!({ "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] }),
            ),
        )),
        // `round` counts verified requestState rounds: the state came back intact.
        Ok(Some(_)) if call.round > 0 => Step::Complete(text_result("Confirmed: state-ok")),
        Ok(Some(_)) => Step::Complete(error_result("Confirmed, but no requestState came back")),
    }
}

fn multiple_inputs(call: &ToolCall) -> Step {
    let answers = (
        call.elicited("user_name"),
        call.sampled("greeting"),
        call.roots("client_roots"),
    );
    match answers {
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => Step::Fail(e),
        (Ok(Some(name)), Ok(Some(greeting)), Ok(Some(roots))) => {
            Step::Complete(text_result(format!(
                "{greeting} {} (roots: {})",
                accepted_str(&name, "name"),
                roots.join(", ")
            )))
        }
        (name, greeting, roots) => {
            let mut asks = Map::new();
            if matches!(name, Ok(None)) {
                asks.insert(
                    "user_name".into(),
                    input::elicit_form("What is your name?", name_schema()),
                );
            }
            if matches!(greeting, Ok(None)) {
                asks.insert(
                    "greeting".into(),
                    input::sample_text("Generate a greeting", 50),
                );
            }
            if matches!(roots, Ok(None)) {
                asks.insert("client_roots".into(), input::list_roots());
            }
            Step::NeedInput(asks)
        }
    }
}

fn multi_round(call: &ToolCall) -> Step {
    let name = match call.elicited("step1") {
        Err(e) => return Step::Fail(e),
        Ok(None) => {
            return Step::NeedInput(one(
                "step1",
                input::elicit_form("Step 1: What is your name?", name_schema()),
            ));
        }
        Ok(Some(answer)) => accepted_str(&answer, "name"),
    };
    match call.elicited("step2") {
        Err(e) => Step::Fail(e),
        Ok(None) => Step::NeedInput(one(
            "step2",
            input::elicit_form(
                "Step 2: What is your favorite color?",
                json!({ "type": "object", "properties": { "color": { "type": "string" } }, "required": ["color"] }),
            ),
        )),
        Ok(Some(answer)) => Step::Complete(text_result(format!(
            "{name} likes {}.",
            accepted_str(&answer, "color")
        ))),
    }
}

/// Asks only for what the client declared: elicitation if it can, else sampling.
fn by_capability(call: &ToolCall) -> Step {
    use crate::mcp::meta::Capability;
    if let Some(Ok(answer)) = call.answers.values().next().map(|a| {
        input::as_sampled_text("", a)
            .or_else(|_| input::as_elicit_result("", a).map(|e| accepted_str(&e, "name")))
    }) {
        return Step::Complete(text_result(format!("Got: {answer}")));
    }
    if call.capabilities.has(Capability::ElicitationForm) {
        Step::NeedInput(one(
            "user_name",
            input::elicit_form("What is your name?", name_schema()),
        ))
    } else {
        Step::NeedInput(one(
            "question",
            input::sample_text("What is your name?", 20),
        ))
    }
}

fn slow_compute(call: &ToolCall) -> Step {
    let seconds = call.f64_arg("seconds").unwrap_or(1.0).max(0.0);
    let label = call.str_arg("label").unwrap_or("slow_compute");
    if seconds == 0.0 || !call.checkpoint.is_null() {
        return Step::Complete(text_result(format!("{label}: computed after {seconds} s")));
    }
    Step::Continue {
        checkpoint: json!({ "sleeping": true }),
        status_message: Some(format!("Computing for {seconds} s")),
        resume_after_ms: (seconds * 1000.0) as u64,
    }
}

fn confirm_delete(call: &ToolCall) -> Step {
    let filename = call.str_arg("filename").unwrap_or_default();
    if call.checkpoint.is_null() {
        return Step::Continue {
            checkpoint: json!({ "ask": true }),
            status_message: None,
            resume_after_ms: 0,
        };
    }
    match call.elicited("confirm") {
        Err(e) => Step::Fail(e),
        Ok(None) => Step::NeedInput(one(
            "confirm",
            input::elicit_form(
                &format!("Delete {filename}?"),
                json!({ "type": "object", "properties": { "confirm": { "type": "boolean" } }, "required": ["confirm"] }),
            ),
        )),
        Ok(Some(Elicited::Accept(c))) if c.get("confirm") == Some(&Value::Bool(true)) => {
            Step::Complete(text_result(format!("Deleted {filename}.")))
        }
        Ok(Some(_)) => Step::Complete(text_result(format!("Kept {filename}."))),
    }
}

fn multi_input(call: &ToolCall) -> Step {
    if call.checkpoint.is_null() {
        return Step::Continue {
            checkpoint: json!({ "ask": true }),
            status_message: None,
            resume_after_ms: 0,
        };
    }
    let schema = json!({ "type": "object", "properties": { "name": { "type": "string" }, "confirm": { "type": "boolean" } } });
    let mut asks = Map::new();
    for key in ["first", "second"] {
        match call.elicited(key) {
            Err(e) => return Step::Fail(e),
            Ok(None) => {
                asks.insert(
                    key.into(),
                    input::elicit_form(&format!("Answer the {key} question"), schema.clone()),
                );
            }
            Ok(Some(_)) => {}
        }
    }
    if asks.is_empty() {
        Step::Complete(text_result("Both questions answered."))
    } else {
        Step::NeedInput(asks)
    }
}

fn tool_with_task(call: &ToolCall) -> Step {
    let name = match call.elicited("user_name") {
        Err(e) => return Step::Fail(e),
        Ok(None) => {
            return Step::NeedInput(one(
                "user_name",
                input::elicit_form("What is your name?", name_schema()),
            ));
        }
        Ok(Some(answer)) => accepted_str(&answer, "name"),
    };
    if call.checkpoint.is_null() {
        return Step::Continue {
            checkpoint: json!({ "name": name }),
            status_message: Some(format!("Working for {name}")),
            resume_after_ms: 300,
        };
    }
    Step::Complete(text_result(format!("Task finished for {name}.")))
}

/// The fixture prompt for `input-required-result-non-tool-request`.
pub fn prompt_step(call: &ToolCall) -> Step {
    match call.elicited("user_context") {
        Err(e) => Step::Fail(e),
        Ok(None) => Step::NeedInput(one(
            "user_context",
            input::elicit_form(
                "What context should the prompt use?",
                json!({ "type": "object", "properties": { "context": { "type": "string" } }, "required": ["context"] }),
            ),
        )),
        Ok(Some(answer)) => Step::Complete(json!({
            "description": "A prompt that needed input first",
            "messages": [{ "role": "user", "content": { "type": "text",
                "text": format!("Use this context: {}", accepted_str(&answer, "context")) } }]
        })),
    }
}
