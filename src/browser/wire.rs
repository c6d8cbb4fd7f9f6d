//! The client's side of the wire, in plain Rust: building a POST (headers + body with
//! `_meta`) and reading the answer into a result or a [`ClientError`].
//!
//! # Format
//!
//! ```text
//! POST /mcp
//! Content-Type: application/json
//! Accept: application/json, text/event-stream
//! MCP-Protocol-Version: 2026-07-28
//! Mcp-Method: tools/call
//! Mcp-Name: greet                            (Base64 sentinel when not plain ASCII)
//! Mcp-Param-Value: x                         (x-mcp-header arguments of the tool)
//! Authorization: Bearer …                    (when a token was given)
//!
//! {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{…},
//!  "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
//!           "io.modelcontextprotocol/clientCapabilities":{…},
//!           "io.modelcontextprotocol/clientInfo":{"name":…,"version":…}}}}
//! ```
//!
//! Answers may be `application/json` or a `text/event-stream` whose last response frame
//! with our id is the answer (streamable-http "Sending Messages" 6).

use super::error::ClientError;
use super::sse::SseParser;
use crate::mcp::headers::{encode_value, header_text, name_source, param_headers};
use crate::mcp::meta::{
    KEY_CLIENT_CAPABILITIES, KEY_CLIENT_INFO, KEY_PROTOCOL_VERSION, PROTOCOL_2026_07_28,
    TASKS_EXTENSION,
};
use serde_json::{Map, Value, json};

/// The client capabilities sent when `connect` is given none: the Tasks extension,
/// elicitation (form and URL), sampling and roots.
pub fn default_capabilities() -> Value {
    json!({
        "extensions": { TASKS_EXTENSION: {} },
        "elicitation": { "form": {}, "url": {} },
        "sampling": {},
        "roots": {}
    })
}

/// Everything that goes into every request: where, who, and what the client can do.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub url: String,
    pub bearer_token: Option<String>,
    pub client_info: Value,
    pub capabilities: Value,
}

/// One HTTP POST, ready for `fetch`.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Session {
    pub fn new(url: &str) -> Self {
        Session {
            url: url.to_owned(),
            bearer_token: None,
            client_info: json!({ "name": "mcp-tasks-edge-browser", "version": env!("CARGO_PKG_VERSION") }),
            capabilities: default_capabilities(),
        }
    }

    /// The `_meta` every request carries (basic/index "Per-request protocol fields").
    pub fn meta(&self) -> Value {
        json!({
            KEY_PROTOCOL_VERSION: PROTOCOL_2026_07_28,
            KEY_CLIENT_CAPABILITIES: self.capabilities,
            KEY_CLIENT_INFO: self.client_info,
        })
    }

    /// Builds request `id`. `input_schema` is the called tool's schema, for `Mcp-Param-*`.
    pub fn request(
        &self,
        id: u64,
        method: &str,
        mut params: Map<String, Value>,
        input_schema: Option<&Value>,
    ) -> Outgoing {
        let mut headers = vec![
            ("Content-Type".to_owned(), "application/json".to_owned()),
            (
                "Accept".to_owned(),
                "application/json, text/event-stream".to_owned(),
            ),
            (
                "MCP-Protocol-Version".to_owned(),
                PROTOCOL_2026_07_28.to_owned(),
            ),
            ("Mcp-Method".to_owned(), method.to_owned()),
        ];
        if let Some(name) = name_source(method)
            .and_then(|field| params.get(field))
            .and_then(Value::as_str)
        {
            headers.push(("Mcp-Name".to_owned(), encode_value(name)));
        }
        let arguments = params.get("arguments").and_then(Value::as_object);
        if let (Some(schema), Some(arguments)) = (input_schema, arguments) {
            for annotation in param_headers(schema) {
                if let Some(text) = annotation.value_in(arguments).and_then(header_text) {
                    headers.push((
                        format!("Mcp-Param-{}", annotation.name),
                        encode_value(&text),
                    ));
                }
            }
        }
        if let Some(token) = &self.bearer_token {
            headers.push(("Authorization".to_owned(), format!("Bearer {token}")));
        }
        params.insert("_meta".into(), self.meta());
        let body =
            json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string();
        Outgoing { headers, body }
    }
}

impl Outgoing {
    /// Sends `token` as `Authorization: Bearer …`, replacing any other credential.
    pub fn set_bearer(&mut self, token: &str) {
        self.headers
            .retain(|(name, _)| !name.eq_ignore_ascii_case("authorization"));
        self.headers
            .push(("Authorization".to_owned(), format!("Bearer {token}")));
    }
}

/// A short, printable excerpt of a body for error messages.
fn excerpt(body: &str) -> String {
    let mut text: String = body.chars().take(80).filter(|c| !c.is_control()).collect();
    if body.chars().count() > 80 {
        text.push('…');
    }
    text
}

/// Reads one HTTP answer to request `id`: the JSON-RPC `result` object, or the error.
///
/// Garbage (HTML, truncated JSON, a JSON value that is not a response) is -32700 or
/// -32600 with `data.httpStatus`; a JSON-RPC error is passed through whatever the status.
pub fn read_response(
    status: u16,
    content_type: &str,
    body: &str,
    id: u64,
) -> Result<Map<String, Value>, ClientError> {
    let http = |code: i64, message: String| {
        ClientError::new(
            code,
            message,
            Some(json!({ "httpStatus": status, "contentType": content_type })),
        )
    };
    let media = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let message: Value = if media == "text/event-stream" {
        let mut parser = SseParser::default();
        let mut frames = parser.push(body.as_bytes());
        frames.extend(parser.finish());
        let answer = frames
            .iter()
            .filter_map(|f| serde_json::from_str::<Value>(f).ok())
            .rfind(|m| {
                m.get("id").and_then(Value::as_u64) == Some(id)
                    && (m.get("result").is_some() || m.get("error").is_some())
            });
        answer.ok_or_else(|| {
            http(ClientError::INVALID_REQUEST, format!("Invalid response: the event stream (HTTP {status}) ended without a response to request {id}"))
        })?
    } else {
        serde_json::from_str(body).map_err(|_| {
            http(ClientError::PARSE_ERROR, format!(
                "Parse error: the server answered HTTP {status} ({}) with a body that is not JSON: {}",
                if content_type.is_empty() { "no content type" } else { content_type },
                excerpt(body)
            ))
        })?
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(http(
            ClientError::INVALID_REQUEST,
            format!(
                "Invalid response: HTTP {status} with JSON that is not a JSON-RPC 2.0 message: {}",
                excerpt(body)
            ),
        ));
    }
    if let Some(error) = message.get("error") {
        return Err(ClientError::from_object(error));
    }
    match (
        message.get("id").and_then(Value::as_u64),
        message.get("result"),
    ) {
        (Some(got), Some(Value::Object(result))) if got == id => Ok(result.clone()),
        (Some(got), Some(_)) if got != id => Err(http(
            ClientError::INVALID_REQUEST,
            format!("Invalid response: id {got} answers another request than {id}"),
        )),
        _ => Err(http(
            ClientError::INVALID_REQUEST,
            format!(
                "Invalid response: HTTP {status} without an object result: {}",
                excerpt(body)
            ),
        )),
    }
}

/// Checks a `server/discover` result: the server must speak 2026-07-28 (-32022 otherwise).
pub fn check_discovery(result: &Map<String, Value>) -> Result<(), ClientError> {
    let versions: Vec<&str> = result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .map(|v| v.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if versions.contains(&PROTOCOL_2026_07_28) {
        Ok(())
    } else {
        Err(ClientError::new(
            ClientError::UNSUPPORTED_PROTOCOL_VERSION,
            format!(
                "The server does not support MCP {PROTOCOL_2026_07_28} (it supports: {versions:?})"
            ),
            Some(json!({ "requested": PROTOCOL_2026_07_28, "supported": versions })),
        ))
    }
}
