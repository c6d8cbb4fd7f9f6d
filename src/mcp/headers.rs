//! Request-metadata headers (streamable-http "Request Metadata", SEP-2243).
//!
//! # Format
//!
//! ```text
//! MCP-Protocol-Version: 2026-07-28          every POST; equals _meta protocolVersion
//! Mcp-Method: tools/call                    every request; equals body "method"
//! Mcp-Name: greet                           tools/call, prompts/get (params.name),
//!                                           resources/read (params.uri),
//!                                           tasks/get|update|cancel (params.taskId)
//! Mcp-Name: =?base64?SGVsbG8sIOS4lueVjA==?= a value that is not plain header-safe ASCII
//! Mcp-Param-Region: us-west1                 tool argument annotated "x-mcp-header"
//! ```
//!
//! Every failure here is -32020 `HeaderMismatch` with HTTP 400.

use crate::error::McpError;
use crate::http::{Headers, is_valid_field_value, trim_ows};
use base64::Engine;
use serde_json::{Map, Value};

pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
pub const METHOD: &str = "mcp-method";
pub const NAME: &str = "mcp-name";
pub const PARAM_PREFIX: &str = "mcp-param-";

const SENTINEL_PREFIX: &str = "=?base64?";
const SENTINEL_SUFFIX: &str = "?=";

/// The body field `Mcp-Name` mirrors for `method`, if the method has one.
pub fn name_source(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        // ext-tasks "Streamable HTTP: Routing Headers".
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// Reads a header that must be present, trimmed of OWS, with only legal characters.
fn required(headers: &Headers, name: &str, display: &str) -> Result<String, McpError> {
    let value = headers
        .get(name)
        .ok_or_else(|| McpError::HeaderMismatch(format!("required header {display} is missing")))?;
    if !is_valid_field_value(&value) {
        return Err(McpError::HeaderMismatch(format!(
            "header {display} contains characters that are not allowed in a field value"
        )));
    }
    Ok(trim_ows(&value).to_owned())
}

/// The `MCP-Protocol-Version` header value; missing is -32020.
pub fn protocol_version(headers: &Headers) -> Result<String, McpError> {
    required(headers, PROTOCOL_VERSION, "MCP-Protocol-Version")
}

/// Decodes the `=?base64?…?=` sentinel form; other values are literal
/// (streamable-http "Value Encoding"). Invalid Base64 or UTF-8 is a mismatch.
pub fn decode_value(raw: &str, display: &str) -> Result<String, McpError> {
    match raw
        .strip_prefix(SENTINEL_PREFIX)
        .and_then(|rest| rest.strip_suffix(SENTINEL_SUFFIX))
    {
        None => Ok(raw.to_owned()),
        Some(encoded) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .map_err(|e| {
                    McpError::HeaderMismatch(format!("header {display} has invalid Base64 ({e})"))
                })?;
            String::from_utf8(bytes).map_err(|_| {
                McpError::HeaderMismatch(format!("header {display} does not decode to UTF-8"))
            })
        }
    }
}

/// Encodes a value for a header the way a client must: plain when header-safe, the
/// Base64 sentinel otherwise (non-ASCII, controls, edge whitespace, or sentinel-shaped).
pub fn encode_value(value: &str) -> String {
    let plain_safe = !value.is_empty()
        && value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && trim_ows(value) == value
        && !(value.starts_with(SENTINEL_PREFIX) && value.ends_with(SENTINEL_SUFFIX));
    if plain_safe {
        value.to_owned()
    } else {
        format!(
            "{SENTINEL_PREFIX}{}{SENTINEL_SUFFIX}",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    }
}

/// Checks `Mcp-Method` and, where the method has one, `Mcp-Name` against the body.
pub fn check_standard(
    headers: &Headers,
    method: &str,
    params: &Map<String, Value>,
) -> Result<(), McpError> {
    let header_method = required(headers, METHOD, "Mcp-Method")?;
    if header_method != method {
        // Values are case-sensitive (streamable-http "Case Sensitivity").
        return Err(McpError::HeaderMismatch(format!(
            "Mcp-Method header value '{header_method}' does not match body method '{method}'"
        )));
    }
    let Some(field) = name_source(method) else {
        return Ok(());
    };
    let raw = required(headers, NAME, "Mcp-Name")?;
    let header_name = decode_value(&raw, "Mcp-Name")?;
    match params.get(field) {
        Some(Value::String(body)) if *body == header_name => Ok(()),
        Some(Value::String(body)) => Err(McpError::HeaderMismatch(format!(
            "Mcp-Name header value '{header_name}' does not match body params.{field} '{body}'"
        ))),
        // The body itself is malformed; params validation reports it precisely.
        _ => Ok(()),
    }
}

/// One `x-mcp-header` annotation of a tool's input schema: the header name part and the
/// property path from the schema root.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamHeader {
    pub name: String,
    pub path: Vec<String>,
}

impl ParamHeader {
    /// The argument this header mirrors, read at the annotation's exact property path;
    /// absent and `null` are the same (streamable-http "Schema Extension").
    pub fn value_in<'a>(&self, arguments: &'a Map<String, Value>) -> Option<&'a Value> {
        let mut value = arguments.get(&self.path[0]);
        for key in &self.path[1..] {
            value = value.and_then(|v| v.get(key));
        }
        value.filter(|v| !v.is_null())
    }
}

/// Collects the `x-mcp-header` annotations statically reachable through `properties`
/// (tools "x-mcp-header"; streamable-http "Schema Extension").
pub fn param_headers(input_schema: &Value) -> Vec<ParamHeader> {
    fn walk(schema: &Value, path: &mut Vec<String>, out: &mut Vec<ParamHeader>) {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (key, child) in properties {
            path.push(key.clone());
            if let Some(name) = child.get("x-mcp-header").and_then(Value::as_str) {
                out.push(ParamHeader {
                    name: name.to_owned(),
                    path: path.clone(),
                });
            }
            walk(child, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(input_schema, &mut Vec::new(), &mut out);
    out
}

/// The header text a body value must produce: strings as-is, integers in decimal,
/// booleans lower-case. Other types cannot be mirrored.
pub fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Compares a decoded header value with the body value; numbers numerically
/// (streamable-http "Server Validation": `42.0` equals `42`).
fn header_matches(header: &str, body: &Value) -> bool {
    match body {
        Value::Number(n) => header
            .parse::<f64>()
            .ok()
            .zip(n.as_f64())
            .is_some_and(|(h, b)| h == b),
        other => header_text(other).is_some_and(|text| text == header),
    }
}

/// Validates every annotated `Mcp-Param-{Name}` header against `arguments`
/// (streamable-http "Server Behavior for Custom Headers").
pub fn check_params(
    headers: &Headers,
    annotations: &[ParamHeader],
    arguments: &Map<String, Value>,
) -> Result<(), McpError> {
    for annotation in annotations {
        let display = format!("Mcp-Param-{}", annotation.name);
        let header_key = format!("{PARAM_PREFIX}{}", annotation.name.to_ascii_lowercase());
        match (headers.get(&header_key), annotation.value_in(arguments)) {
            (None, None) => {}
            (None, Some(_)) => {
                return Err(McpError::HeaderMismatch(format!(
                    "header {display} is required because arguments.{} is present",
                    annotation.path.join(".")
                )));
            }
            (Some(_), None) => {
                return Err(McpError::HeaderMismatch(format!(
                    "header {display} was sent but arguments.{} is absent",
                    annotation.path.join(".")
                )));
            }
            (Some(raw), Some(body)) => {
                if !is_valid_field_value(&raw) {
                    return Err(McpError::HeaderMismatch(format!(
                        "header {display} contains characters that are not allowed in a field value"
                    )));
                }
                let decoded = decode_value(trim_ows(&raw), &display)?;
                if !header_matches(&decoded, body) {
                    return Err(McpError::HeaderMismatch(format!(
                        "{display} header value '{decoded}' does not match body value {body}"
                    )));
                }
            }
        }
    }
    Ok(())
}
