//! Typed params: each method's `params` as a serde struct, decoded by one function that
//! turns every failure into -32602 naming the field (lsp-server's order: the envelope
//! first, then typed params, then the method).
//!
//! ```
//! use mcp_tasks_edge::mcp::params::{self, TaskIdParams};
//! let params = serde_json::json!({ "taskId": 3 });
//! let err = params::parse::<TaskIdParams>(params.as_object().unwrap()).unwrap_err();
//! assert_eq!(err.to_wire().message, "params.taskId: invalid type: integer `3`, expected a string");
//! ```

use crate::error::McpError;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Decodes `params` as `T`; the error names the field that does not fit.
pub fn parse<T: DeserializeOwned>(params: &Map<String, Value>) -> Result<T, McpError> {
    let value = Value::Object(params.clone());
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        McpError::InvalidParams(if path == "." {
            format!("params: {inner}")
        } else {
            format!("params.{path}: {inner}")
        })
    })
}

/// `tasks/get`, `tasks/cancel`, `tasks/result` (and the Tasks extension's `tasks/get`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    pub task_id: String,
}

/// `subscriptions/listen`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ListenParams {
    /// The notification filter (required: what the stream is for).
    #[serde(deserialize_with = "object")]
    pub notifications: NotificationFilter,
}

/// A nested struct that must be a JSON object: serde's derived structs also accept an
/// array (their fields in order), so `"notifications": []` would pass as an empty filter.
/// The struct is decoded from the map itself, so an error inside it keeps its path
/// (`params.argument.name`, not `params.argument`).
fn object<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct OnlyMap<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for OnlyMap<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    deserializer.deserialize_map(OnlyMap(std::marker::PhantomData))
}

/// What a `subscriptions/listen` stream carries; other filters are not offered here.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotificationFilter {
    /// `notifications/tasks` for these tasks (the Tasks extension).
    #[serde(default)]
    pub task_ids: Option<Vec<String>>,
}

/// A string param by name, without decoding the rest (for `tools/call`, whose arguments
/// are kept as they are).
pub fn string<'a>(params: &'a Map<String, Value>, name: &str) -> Result<&'a str, McpError> {
    match params.get(name) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(McpError::InvalidParams(format!(
            "params.{name} must be a string"
        ))),
        None => Err(McpError::InvalidParams(format!(
            "params.{name} is required"
        ))),
    }
}

/// A paginated list: `tasks/list`, `mcp-tasks-edge/tasks/list`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CursorParams {
    #[serde(default)]
    pub cursor: Option<String>,
}

/// `resources/subscribe`, `resources/unsubscribe`, `resources/read`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct UriParams {
    pub uri: String,
}

/// The eight `LoggingLevel`s (RFC 5424 severities), in increasing severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

/// `logging/setLevel`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SetLevelParams {
    pub level: LoggingLevel,
}

/// `prompts/get`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PromptGetParams {
    pub name: String,
    /// Absent or `null`: none.
    #[serde(default)]
    pub arguments: Option<Map<String, Value>>,
}

/// `completion/complete` (server/utilities/completion).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CompleteParams {
    /// A `PromptReference` or `ResourceTemplateReference` (the catalog checks which).
    #[serde(rename = "ref")]
    pub reference: Map<String, Value>,
    #[serde(deserialize_with = "object")]
    pub argument: CompleteArgument,
    /// Read leniently, as before typed params: only `context.arguments`, when it is an
    /// object, is used.
    #[serde(default)]
    pub context: Value,
}

/// The argument being completed.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CompleteArgument {
    pub name: String,
    pub value: String,
}

impl CompleteParams {
    /// The already-resolved arguments (`context.arguments`), or none.
    pub fn context_arguments(&self) -> Map<String, Value> {
        self.context
            .get("arguments")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    }
}

/// `tasks/update` (the Tasks extension): answers are required.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskUpdateParams {
    pub task_id: String,
    pub input_responses: InputResponses,
}

/// `params.inputResponses` (mrtr "Error Handling"): an object of answers keyed by input
/// request key, each an object. Per-method validation happens where an answer is read.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(transparent)]
pub struct InputResponses(BTreeMap<String, InputResponse>);

impl InputResponses {
    pub fn into_map(self) -> Map<String, Value> {
        let mut map = Map::new();
        map.extend(
            self.0
                .into_iter()
                .map(|(key, InputResponse(answer))| (key, Value::Object(answer))),
        );
        map
    }
}

/// One answer: an object (an `ElicitResult`, `CreateMessageResult` or `ListRootsResult`).
#[derive(Debug, Clone, PartialEq)]
struct InputResponse(Map<String, Value>);

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Object(answer) => Ok(InputResponse(answer)),
            other => Err(serde::de::Error::custom(format!(
                "an answer must be an object (an ElicitResult, CreateMessageResult or ListRootsResult), not {}",
                kind(&other)
            ))),
        }
    }
}

/// The JSON type of `value`, for error messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The answers a request carries, if any (`tools/call`, `prompts/get` rounds of MRTR).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CarriedResponses {
    #[serde(default)]
    pub input_responses: Option<InputResponses>,
}

/// `initialize` (2025-11-25 sessions).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    pub protocol_version: String,
    #[serde(default)]
    pub capabilities: Map<String, Value>,
    #[serde(default)]
    pub client_info: Value,
}
