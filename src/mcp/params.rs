//! Typed params: each method's `params` as a struct, read member by member ([`Fields`]),
//! every failure -32602 naming the field in serde's words (lsp-server's order: the
//! envelope first, then typed params, then the method).
//!
//! ```
//! use mcp_tasks_edge::mcp::params::{self, TaskIdParams};
//! let params = serde_json::json!({ "taskId": 3 });
//! let err = params::parse::<TaskIdParams>(params.as_object().unwrap()).unwrap_err();
//! assert_eq!(err.to_wire().message, "params.taskId: invalid type: integer `3`, expected a string");
//! ```

use crate::error::McpError;
use serde::Deserialize;
use serde_json::{Map, Value};

mod fields;

pub use fields::Fields;

/// A method's params, read from their object by [`Fields`].
pub trait Params: Sized {
    fn read(fields: &Fields) -> Result<Self, McpError>;
}

/// Decodes `params` as `T`; the error names the field that does not fit.
pub fn parse<T: Params>(params: &Map<String, Value>) -> Result<T, McpError> {
    T::read(&Fields::params(params))
}

/// `tasks/get`, `tasks/cancel`, `tasks/result` (and the Tasks extension's `tasks/get`).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskIdParams {
    pub task_id: String,
}

impl Params for TaskIdParams {
    fn read(fields: &Fields) -> Result<Self, McpError> {
        Ok(TaskIdParams {
            task_id: fields.string("taskId")?,
        })
    }
}

/// `subscriptions/listen`.
#[derive(Debug, Clone, PartialEq)]
pub struct ListenParams {
    /// The notification filter (required: what the stream is for; an object, so
    /// `"notifications": []` is refused rather than read as an empty filter).
    pub notifications: NotificationFilter,
}

impl Params for ListenParams {
    fn read(fields: &Fields) -> Result<Self, McpError> {
        let filter = fields.object("notifications")?;
        Ok(ListenParams {
            notifications: NotificationFilter {
                task_ids: filter.opt_strings("taskIds")?,
                tools_list_changed: filter.flag("toolsListChanged")?,
            },
        })
    }
}

/// What a `subscriptions/listen` stream carries; other filters are not offered here.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NotificationFilter {
    /// `notifications/tasks` for these tasks (the Tasks extension).
    pub task_ids: Option<Vec<String>>,
    /// `notifications/tools/list_changed` (a gateway's: docs/gateway.md).
    pub tools_list_changed: bool,
}

/// `_meta.progressToken` of a request: a string or an integer (schema `ProgressToken`).
pub fn progress_token(params: &Map<String, Value>) -> Result<Option<Value>, McpError> {
    match params.get("_meta").and_then(|m| m.get("progressToken")) {
        None | Some(Value::Null) => Ok(None),
        Some(token @ Value::String(_)) => Ok(Some(token.clone())),
        Some(token @ Value::Number(n)) if n.is_i64() || n.is_u64() => Ok(Some(token.clone())),
        Some(_) => Err(McpError::InvalidParams(
            "_meta.progressToken must be a string or an integer".into(),
        )),
    }
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
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CursorParams {
    pub cursor: Option<String>,
}

impl Params for CursorParams {
    fn read(fields: &Fields) -> Result<Self, McpError> {
        Ok(CursorParams {
            cursor: fields.opt_string("cursor")?,
        })
    }
}

/// `resources/subscribe`, `resources/unsubscribe`, `resources/read`.
#[derive(Debug, Clone, PartialEq)]
pub struct UriParams {
    pub uri: String,
}

impl Params for UriParams {
    fn read(fields: &Fields) -> Result<Self, McpError> {
        Ok(UriParams {
            uri: fields.string("uri")?,
        })
    }
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
#[derive(Debug, Clone, PartialEq)]
pub struct SetLevelParams {
    pub level: LoggingLevel,
}

impl Params for SetLevelParams {
    fn read(fields: &Fields) -> Result<Self, McpError> {
        let level = fields.required("level")?;
        // The one enum of the params: serde's derive names the variants in its refusal.
        let level = LoggingLevel::deserialize(level.clone())
            .map_err(|e| McpError::InvalidParams(format!("{}: {e}", fields.at("level"))))?;
        Ok(SetLevelParams { level })
    }
}

/// `prompts/get`.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptGetParams {
    pub name: String,
    /// Absent or `null`: none.
    pub arguments: Option<Map<String, Value>>,
}

impl Params for PromptGetParams {
    fn read(fields: &Fields) -> Result<Self, McpError> {
        Ok(PromptGetParams {
            name: fields.string("name")?,
            arguments: fields.opt_map("arguments")?.cloned(),
        })
    }
}

/// `completion/complete` (server/utilities/completion).
#[derive(Debug, Clone, PartialEq)]
pub struct CompleteParams {
    /// A `PromptReference` or `ResourceTemplateReference` (the catalog checks which).
    pub reference: Map<String, Value>,
    pub argument: CompleteArgument,
    /// Read leniently, as before typed params: only `context.arguments`, when it is an
    /// object, is used.
    pub context: Value,
}

impl Params for CompleteParams {
    fn read(fields: &Fields) -> Result<Self, McpError> {
        let reference = fields.map("ref")?.clone();
        let argument = fields.object("argument")?;
        Ok(CompleteParams {
            reference,
            argument: CompleteArgument {
                name: argument.string("name")?,
                value: argument.string("value")?,
            },
            context: fields.value("context"),
        })
    }
}

/// The argument being completed.
#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug, Clone, PartialEq)]
pub struct TaskUpdateParams {
    pub task_id: String,
    pub input_responses: InputResponses,
}

impl Params for TaskUpdateParams {
    fn read(fields: &Fields) -> Result<Self, McpError> {
        let task_id = fields.string("taskId")?;
        let answers = fields.required("inputResponses")?;
        Ok(TaskUpdateParams {
            task_id,
            input_responses: InputResponses::read(answers, &|| fields.at("inputResponses"))?,
        })
    }
}

/// `params.inputResponses` (mrtr "Error Handling"): an object of answers keyed by input
/// request key, each an object (an `ElicitResult`, `CreateMessageResult` or
/// `ListRootsResult`). Per-method validation happens where an answer is read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InputResponses(Map<String, Value>);

impl InputResponses {
    /// `answers` at `path()`: an object whose members are objects.
    fn read(answers: &Value, path: &dyn Fn() -> String) -> Result<InputResponses, McpError> {
        let Value::Object(answers) = answers else {
            return Err(fields::invalid(answers, "a map", &path()));
        };
        if let Some((key, other)) = answers.iter().find(|(_, answer)| !answer.is_object()) {
            return Err(McpError::InvalidParams(format!(
                "{}.{key}: an answer must be an object (an ElicitResult, CreateMessageResult or ListRootsResult), not {}",
                path(),
                kind(other)
            )));
        }
        Ok(InputResponses(answers.clone()))
    }

    pub fn into_map(self) -> Map<String, Value> {
        self.0
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
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CarriedResponses {
    pub input_responses: Option<InputResponses>,
}

impl Params for CarriedResponses {
    fn read(fields: &Fields) -> Result<Self, McpError> {
        Ok(CarriedResponses {
            input_responses: match fields.get("inputResponses") {
                None | Some(Value::Null) => None,
                Some(answers) => Some(InputResponses::read(answers, &|| {
                    fields.at("inputResponses")
                })?),
            },
        })
    }
}

/// `initialize` (2025-11-25 sessions).
#[derive(Debug, Clone, PartialEq)]
pub struct InitializeParams {
    pub protocol_version: String,
    pub capabilities: Map<String, Value>,
    pub client_info: Value,
}

impl Params for InitializeParams {
    fn read(fields: &Fields) -> Result<Self, McpError> {
        Ok(InitializeParams {
            protocol_version: fields.string("protocolVersion")?,
            capabilities: fields.map_or_empty("capabilities")?,
            client_info: fields.value("clientInfo"),
        })
    }
}
