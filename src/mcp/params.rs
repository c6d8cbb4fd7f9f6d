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
fn object<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: DeserializeOwned,
{
    let map = Map::<String, Value>::deserialize(deserializer)?;
    T::deserialize(Value::Object(map)).map_err(serde::de::Error::custom)
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
