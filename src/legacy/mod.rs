//! The 2025-11-25 era on the same endpoint (spec/spec-2026-07-28_basic_versioning.mdx
//! "Backward Compatibility"): `initialize` and `Mcp-Session-Id` sessions, server→client
//! requests on response streams, logging, resource subscriptions, and the legacy
//! experimental tasks on the same task objects. This module is the pure part: what a
//! session holds, how requests and results translate; `cloudflare::session_object` runs it.
//!
//! # Format
//!
//! ```text
//! POST /mcp {"method":"initialize","params":{"protocolVersion":"2025-11-25",...}}
//!   → 200 {"result":{"protocolVersion":"2025-11-25","capabilities":{...},"serverInfo":{...}}}
//!     Mcp-Session-Id: 3f0c…                         (32 hex digits, CSPRNG)
//! POST /mcp  Mcp-Session-Id: 3f0c…  {"method":"tools/call",...}
//!   → 200 text/event-stream: notifications/progress, notifications/message,
//!     server→client requests (elicitation/create, sampling/createMessage, roots/list),
//!     then the response
//! POST /mcp  Mcp-Session-Id: 3f0c…  {"id":"s-1","result":{...}}   (an answer) → 202
//! GET  /mcp  Mcp-Session-Id: 3f0c…   → text/event-stream (notifications/resources/updated)
//! DELETE /mcp Mcp-Session-Id: 3f0c…  → 204; the session is gone (404 afterwards)
//! ```

mod tasks;

pub use tasks::{RELATED_TASK, legacy_task, task_params, task_result};

use crate::error::McpError;
use crate::mcp::meta::{ClientCapabilities, RequestMeta};
use crate::server::Server;
use crate::tools::TaskSupport;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// The header naming a session.
pub const SESSION_HEADER: &str = "mcp-session-id";
/// The versions this server speaks in the legacy era, newest first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The modern version every legacy request is translated to.
pub const MODERN: &str = "2026-07-28";

/// A request is legacy when it is `initialize` or names a session (DESIGN.md §7).
pub fn is_legacy(method: Option<&str>, session_header: Option<&str>) -> bool {
    method == Some("initialize") || session_header.is_some()
}

/// What a session keeps (in its Durable Object's storage).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub id: String,
    /// The principal that initialized it; requests of any other get "not found".
    pub principal: String,
    pub protocol_version: String,
    pub capabilities: Map<String, Value>,
    #[serde(default)]
    pub client_info: Value,
    /// `logging/setLevel`; `None` sends every level.
    #[serde(default)]
    pub log_level: Option<String>,
    #[serde(default)]
    pub subscriptions: BTreeSet<String>,
    pub created_at_ms: u64,
    pub last_seen_ms: u64,
}

impl Session {
    /// The `_meta` view the modern handlers take.
    pub fn meta(&self) -> RequestMeta {
        RequestMeta {
            protocol_version: MODERN.to_owned(),
            capabilities: ClientCapabilities(self.capabilities.clone()),
            client_info: Some(self.client_info.clone()),
        }
    }

    /// Whether a message at `level` goes out (RFC 5424 severities, as logging/setLevel).
    pub fn logs(&self, level: &str) -> bool {
        match &self.log_level {
            None => true,
            Some(min) => severity(level) >= severity(min),
        }
    }
}

/// The order of the `LoggingLevel` values; unknown names count as `info`.
pub fn severity(level: &str) -> u8 {
    match level {
        "debug" => 0,
        "info" => 1,
        "notice" => 2,
        "warning" => 3,
        "error" => 4,
        "critical" => 5,
        "alert" => 6,
        "emergency" => 7,
        _ => 1,
    }
}

/// `logging/setLevel`: -32602 for a level that is not one of the eight.
pub fn parse_level(params: &Map<String, Value>) -> Result<String, McpError> {
    match params.get("level").and_then(Value::as_str) {
        Some(level @ ("debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency")) => {
            Ok(level.to_owned())
        }
        _ => Err(McpError::InvalidParams(
            "params.level must be one of debug, info, notice, warning, error, critical, alert, emergency".into(),
        )),
    }
}

/// `initialize`: the negotiated version (the client's if this server speaks it, else
/// the newest it does), the result, and the new session.
pub fn initialize(
    server: &Server,
    params: &Map<String, Value>,
    id: &str,
    principal: &str,
    now_ms: u64,
) -> Result<(Value, Session), McpError> {
    let requested = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| McpError::InvalidParams("params.protocolVersion must be a string".into()))?;
    let capabilities = match params.get("capabilities") {
        Some(Value::Object(c)) => c.clone(),
        None => Map::new(),
        Some(_) => {
            return Err(McpError::InvalidParams(
                "params.capabilities must be an object".into(),
            ));
        }
    };
    let version = LEGACY_VERSIONS
        .iter()
        .find(|v| **v == requested)
        .copied()
        .unwrap_or(LEGACY_VERSIONS[0]);
    let mut result = json!({
        "protocolVersion": version,
        "capabilities": capabilities_of(server),
        "serverInfo": { "name": server.config.server_name, "version": server.config.server_version },
    });
    if let Some(instructions) = &server.instructions {
        result["instructions"] = instructions.clone().into();
    }
    let session = Session {
        id: id.to_owned(),
        principal: principal.to_owned(),
        protocol_version: version.to_owned(),
        capabilities,
        client_info: params.get("clientInfo").cloned().unwrap_or(Value::Null),
        log_level: None,
        subscriptions: BTreeSet::new(),
        created_at_ms: now_ms,
        last_seen_ms: now_ms,
    };
    Ok((result, session))
}

/// The server's capabilities as a 2025-11-25 client reads them (with legacy tasks).
pub fn capabilities_of(server: &Server) -> Value {
    let mut capabilities = json!({
        "tools": { "listChanged": false },
        "logging": {},
        "tasks": { "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } },
    });
    if !server.catalog.prompts.is_empty() {
        capabilities["prompts"] = json!({ "listChanged": false });
    }
    if server.catalog.has_resources() {
        capabilities["resources"] = json!({ "subscribe": true, "listChanged": false });
    }
    if server.catalog.has_completions() {
        capabilities["completions"] = json!({});
    }
    capabilities
}

/// A modern result as a 2025-11-25 client expects it: without the 2026-07-28 fields.
pub fn legacy_result(mut result: Value) -> Value {
    if let Some(object) = result.as_object_mut() {
        for field in ["resultType", "ttlMs", "cacheScope"] {
            object.remove(field);
        }
    }
    result
}

/// A `tools/call` without `params.task` of a tool whose `taskSupport` is `required`:
/// -32601 (legacy tasks "Tool-Level Negotiation": servers MUST answer so).
pub fn needs_task(server: &Server, params: &Map<String, Value>) -> Option<McpError> {
    let name = params.get("name").and_then(Value::as_str)?;
    let tool = server.registry.get(name)?;
    (tool.task_support() == TaskSupport::Required).then(|| {
        crate::server::call::method_not_found(format!(
            "The tool {name} only runs as a task (execution.taskSupport is \"required\"): call it with params.task"
        ))
    })
}

/// `tools/list` for a legacy client: each tool says whether it runs as a task
/// (2025-11-25 `execution.taskSupport`).
pub fn legacy_tools(server: &Server) -> Value {
    let tools: Vec<Value> = server
        .registry
        .tools()
        .iter()
        .map(|tool| {
            let mut definition = tool.definition();
            let support = match tool.task_support() {
                TaskSupport::Forbidden => "forbidden",
                TaskSupport::Optional => "optional",
                TaskSupport::Required => "required",
            };
            definition["execution"] = json!({ "taskSupport": support });
            definition
        })
        .collect();
    json!({ "tools": tools })
}
