//! What the gateway sends its upstreams as a client: the params of its requests and
//! notifications, and the `_meta` of a 2026-07-28 request.

use crate::jsonrpc::{self, Empty, OneEntry};
use crate::mcp::Implementation;
use serde::Serialize;
use serde_json::{Map, Value};

/// The gateway as a client (`clientInfo`).
pub(super) const CLIENT_INFO: Implementation<'static> = Implementation {
    name: "mcp-tasks-edge-gateway",
    version: env!("CARGO_PKG_VERSION"),
};

/// `initialize`'s params (2025-11-25).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct InitializeParams {
    pub(super) protocol_version: &'static str,
    pub(super) capabilities: Value,
    pub(super) client_info: Implementation<'static>,
}

/// A 2026-07-28 request's `_meta` (MCP "Request Metadata").
#[derive(Serialize)]
pub(super) struct ModernMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    pub(super) protocol_version: &'static str,
    #[serde(rename = "io.modelcontextprotocol/clientInfo")]
    pub(super) client_info: Implementation<'static>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    pub(super) client_capabilities: &'a Value,
}

/// The params of a task request (`tasks/get`, `tasks/result`, `tasks/cancel`), with the
/// answers of a `tasks/update`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskParams<'a> {
    task_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_responses: Option<&'a Map<String, Value>>,
}

/// `{taskId}`, and `inputResponses` when given.
pub fn task_params(task_id: &str, input_responses: Option<&Map<String, Value>>) -> Value {
    jsonrpc::payload(&TaskParams {
        task_id,
        input_responses,
    })
}

/// `{}`: params with nothing to say.
pub fn no_params() -> Value {
    Value::Object(Map::new())
}

/// `tools/call`'s params (a task-augmented call's `task` at 2025-11-25; a retry's
/// `inputResponses` and `requestState`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallParams<'a> {
    pub(crate) name: &'a str,
    pub(crate) arguments: &'a Map<String, Value>,
    #[serde(rename = "_meta")]
    pub(crate) meta: OneEntry<'static, &'a String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) task: Option<Empty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) input_responses: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) request_state: Option<String>,
}

/// `notifications/cancelled`'s params.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CancelledParams {
    pub(crate) request_id: u64,
    pub(crate) reason: &'static str,
}
