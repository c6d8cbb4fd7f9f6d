//! Input requests and responses (basic/patterns/mrtr "Core Types"), shared by MRTR
//! rounds and task `inputRequests`.
//!
//! # Format
//!
//! ```text
//! inputRequests:  { "user_name": {"method":"elicitation/create","params":{"message":..,"requestedSchema":..}},
//!                   "greeting":  {"method":"sampling/createMessage","params":{"messages":[..],"maxTokens":50}},
//!                   "roots":     {"method":"roots/list","params":{}} }
//! inputResponses: { "user_name": {"action":"accept","content":{"name":"Ada"}},
//!                   "greeting":  {"role":"assistant","content":{"type":"text","text":"Hi"},"model":"m"},
//!                   "roots":     {"roots":[{"uri":"file:///a"}]} }
//! ```

use super::TextContent;
use super::meta::{Capability, ClientCapabilities};
use super::params;
use super::schema::Schema;
use crate::error::McpError;
use crate::jsonrpc::{Empty, payload};
use serde::Serialize;
use serde_json::{Map, Value};

pub const ELICIT: &str = "elicitation/create";
pub const SAMPLE: &str = "sampling/createMessage";
pub const LIST_ROOTS: &str = "roots/list";

/// An input request: a method and its params.
#[derive(Serialize)]
struct InputRequest<P> {
    method: &'static str,
    params: P,
}

/// `ElicitRequestParams`, form mode (`requestedSchema`) or URL mode (`url`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ElicitParams<'a> {
    mode: &'static str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    requested_schema: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    elicitation_id: Option<&'a str>,
}

/// `CreateMessageRequestParams` with one user message.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SamplingParams<'a> {
    messages: [SamplingMessage<'a>; 1],
    max_tokens: u32,
}

#[derive(Serialize)]
struct SamplingMessage<'a> {
    role: &'static str,
    content: TextContent<'a>,
}

/// A form-mode elicitation asking the user to fill `requested_schema`.
pub fn elicit_form(message: &str, requested_schema: Value) -> Value {
    let params = ElicitParams {
        mode: "form",
        message,
        requested_schema: Some(requested_schema),
        url: None,
        elicitation_id: None,
    };
    payload(&InputRequest {
        method: ELICIT,
        params,
    })
}

/// A URL-mode elicitation sending the user to `url` (client/elicitation "URL mode").
pub fn elicit_url(message: &str, url: &str, elicitation_id: &str) -> Value {
    let params = ElicitParams {
        mode: "url",
        message,
        requested_schema: None,
        url: Some(url),
        elicitation_id: Some(elicitation_id),
    };
    payload(&InputRequest {
        method: ELICIT,
        params,
    })
}

/// A sampling request with one user text message.
pub fn sample_text(prompt: &str, max_tokens: u32) -> Value {
    let message = SamplingMessage {
        role: "user",
        content: TextContent::new(prompt),
    };
    payload(&InputRequest {
        method: SAMPLE,
        params: SamplingParams {
            messages: [message],
            max_tokens,
        },
    })
}

/// A `roots/list` request.
pub fn list_roots() -> Value {
    payload(&InputRequest {
        method: LIST_ROOTS,
        params: Empty {},
    })
}

/// The capability a client must declare before a server may send `request`
/// (mrtr "Server Requirements" 7). `None` for a method that is not an input request.
pub fn required_capability(request: &Value) -> Option<Capability> {
    match request.get("method").and_then(Value::as_str)? {
        ELICIT => {
            let url = request.pointer("/params/mode").and_then(Value::as_str) == Some("url");
            Some(if url {
                Capability::ElicitationUrl
            } else {
                Capability::ElicitationForm
            })
        }
        SAMPLE => Some(Capability::Sampling),
        LIST_ROOTS => Some(Capability::Roots),
        _ => None,
    }
}

/// -32021 if any request needs a capability the client did not declare on this request.
pub fn check_capabilities(
    requests: &Map<String, Value>,
    capabilities: &ClientCapabilities,
) -> Result<(), McpError> {
    for (key, request) in requests {
        let needed = required_capability(request).ok_or_else(|| {
            McpError::Internal(format!(
                "input request {key:?} is not an input request method"
            ))
        })?;
        if !capabilities.has(needed) {
            return Err(needed.missing(&format!("the server needs to send input request {key:?}")));
        }
    }
    Ok(())
}

/// Checks the shape of `params.inputResponses` (mrtr "Error Handling"): an object whose
/// values are objects ([`params::InputResponses`]); absent or `null` is none. Per-method
/// validation happens where an answer is read.
pub fn parse_input_responses(params: &Map<String, Value>) -> Result<Map<String, Value>, McpError> {
    Ok(params::parse::<params::CarriedResponses>(params)?
        .input_responses
        .map(params::InputResponses::into_map)
        .unwrap_or_default())
}

/// An answered elicitation (schema `ElicitResult`).
#[derive(Debug, Clone, PartialEq)]
pub enum Elicited {
    Accept(Map<String, Value>),
    Decline,
    Cancel,
}

/// Reads an answer as an `ElicitResult`; -32602 if it is not one.
pub fn as_elicit_result(key: &str, answer: &Value) -> Result<Elicited, McpError> {
    let bad = |why: &str| {
        McpError::InvalidParams(format!(
            "inputResponses[{key:?}] is not a valid ElicitResult: {why}"
        ))
    };
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => match answer.get("content") {
            None => Ok(Elicited::Accept(Map::new())),
            Some(Value::Object(content)) => Ok(Elicited::Accept(content.clone())),
            Some(_) => Err(bad("\"content\" must be an object")),
        },
        Some("decline") => Ok(Elicited::Decline),
        Some("cancel") => Ok(Elicited::Cancel),
        Some(other) => Err(bad(&format!("unknown action {other:?}"))),
        None => Err(bad("\"action\" is missing")),
    }
}

/// Reads an answer as a `CreateMessageResult` and returns its text; -32602 if malformed.
pub fn as_sampled_text(key: &str, answer: &Value) -> Result<String, McpError> {
    let bad = |why: &str| {
        McpError::InvalidParams(format!(
            "inputResponses[{key:?}] is not a valid CreateMessageResult: {why}"
        ))
    };
    if answer.get("role").and_then(Value::as_str).is_none() {
        return Err(bad("\"role\" is missing"));
    }
    let content = answer
        .get("content")
        .ok_or_else(|| bad("\"content\" is missing"))?;
    let blocks: Vec<&Value> = match content {
        Value::Array(items) => items.iter().collect(),
        Value::Object(_) => vec![content],
        _ => {
            return Err(bad(
                "\"content\" must be a content block or an array of them",
            ));
        }
    };
    Ok(blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(""))
}

/// Reads an answer as a `ListRootsResult` and returns the root URIs; -32602 if malformed.
pub fn as_root_uris(key: &str, answer: &Value) -> Result<Vec<String>, McpError> {
    let bad = |why: &str| {
        McpError::InvalidParams(format!(
            "inputResponses[{key:?}] is not a valid ListRootsResult: {why}"
        ))
    };
    let roots = answer
        .get("roots")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("\"roots\" must be an array"))?;
    roots
        .iter()
        .map(|r| {
            r.get("uri")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| bad("every root needs a string \"uri\""))
        })
        .collect()
}

/// Whether a step's `NeedInput` is legal: at least one request, each an input request
/// method this protocol defines, and every form elicitation's `requestedSchema` one that
/// compiles (so its answer can be validated). `Err` says what is wrong (the tool's bug).
pub fn check_requests(requests: &Map<String, Value>) -> Result<(), String> {
    if requests.is_empty() {
        return Err("it asked for input without any input request".into());
    }
    for (key, request) in requests {
        if required_capability(request).is_none() {
            return Err(format!(
                "input request {key:?} is not one of {ELICIT}, {SAMPLE} or {LIST_ROOTS}"
            ));
        }
        if let Some(schema) = requested_schema(request) {
            Schema::compile(schema).map_err(|why| {
                format!("input request {key:?} has a requestedSchema that cannot be used: {why}")
            })?;
        }
    }
    Ok(())
}

/// The `requestedSchema` of a form-mode elicitation (the mode defaults to form).
fn requested_schema(request: &Value) -> Option<&Value> {
    let form = request.pointer("/params/mode").and_then(Value::as_str) != Some("url");
    match request.get("method").and_then(Value::as_str) {
        Some(ELICIT) if form => request.pointer("/params/requestedSchema"),
        _ => None,
    }
}

/// What [`check_answer`] needs of `request` to check an answer to it: its method and,
/// for a form elicitation, the mode and `requestedSchema` (not the message). MRTR keeps
/// this in `requestState` for the requests it sent, so the retry's answers are checked
/// against exactly what was asked.
pub fn answer_check(request: &Value) -> Value {
    let mode = request.pointer("/params/mode");
    let requested_schema = requested_schema(request);
    payload(&AnswerCheck {
        method: request.get("method"),
        params: (mode.is_some() || requested_schema.is_some()).then_some(CheckedParams {
            mode,
            requested_schema,
        }),
    })
}

/// What [`answer_check`] keeps of an input request.
#[derive(Serialize)]
struct AnswerCheck<'a> {
    /// `null` when the request has none.
    method: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<CheckedParams<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CheckedParams<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    requested_schema: Option<&'a Value>,
}

/// The client's `answers` to `requests` it was asked on a stream (a 2025-11-25 session's
/// server→client requests), for whoever asked: an inline run, a job's wait, `tasks/result`.
/// One rule: every request answered, each answer valid ([`check_answer`]); answers to
/// keys not asked are dropped. The error names the first that is not.
pub fn answered(
    requests: &Map<String, Value>,
    mut answers: Map<String, Value>,
) -> Result<Map<String, Value>, McpError> {
    let mut taken = Map::new();
    for (key, request) in requests {
        let answer = answers.remove(key).ok_or_else(|| {
            McpError::Internal(format!(
                "the client sent no answer to input request {key:?}"
            ))
        })?;
        check_answer(key, request, &answer)?;
        taken.insert(key.clone(), answer);
    }
    Ok(taken)
}

/// Checks that `answer` is a valid response to `request` (an input request this server
/// sent under `key`): -32602 naming the problem if not. Called when answers arrive, so a
/// malformed answer is refused at once instead of failing the task later. An accepted
/// form elicitation's `content` must validate against the `requestedSchema` (every JSON
/// Schema keyword, see [`Schema`]); the error names the path and keyword.
pub fn check_answer(key: &str, request: &Value, answer: &Value) -> Result<(), McpError> {
    match request.get("method").and_then(Value::as_str) {
        Some(ELICIT) => {
            if let Elicited::Accept(content) = as_elicit_result(key, answer)?
                && let Some(schema) = requested_schema(request)
            {
                let schema = Schema::compile(schema).map_err(|why| {
                    McpError::Internal(format!(
                        "input request {key:?} has a requestedSchema that cannot be used: {why}"
                    ))
                })?;
                schema.validate(&Value::Object(content)).map_err(|why| {
                    McpError::InvalidParams(format!(
                        "inputResponses[{key:?}] does not match the requested schema: {why}"
                    ))
                })?;
            }
            Ok(())
        }
        Some(SAMPLE) => as_sampled_text(key, answer).map(drop),
        Some(LIST_ROOTS) => as_root_uris(key, answer).map(drop),
        _ => Ok(()),
    }
}
