//! Domain errors and their single mapping to the wire (architecture invariant 5).
//!
//! Every failure the server can report is a variant here; [`McpError::to_wire`] is the
//! one place that picks the JSON-RPC error object, and [`McpError::http_status`] the one
//! place that picks the HTTP status.

use crate::jsonrpc::{self, ErrorCode, ErrorObject};
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub enum McpError {
    /// The body is not JSON (-32700).
    Parse(String),
    /// The body is JSON but not a JSON-RPC request (-32600).
    InvalidRequest(String),
    /// Unknown or removed method (-32601, HTTP 404 per streamable-http "Protocol Version Header").
    MethodNotFound(String),
    /// Params that do not fit the method (-32602).
    InvalidParams(String),
    /// A task id the caller may not see: unknown, expired, deleted, or owned by another
    /// principal. One variant so the answers are indistinguishable (ext-tasks "Security").
    TaskNotFound,
    /// A 2025-11-25 request for a session that ended or never existed (404, transports
    /// "Session Management": the client must initialize again).
    SessionNotFound,
    /// `resources/read` of a URI no resource or template matches (-32602 with the URI in
    /// `data`, SEP-2164: never an empty `contents`).
    ResourceNotFound(String),
    /// `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` or `Mcp-Param-*` missing, malformed or
    /// disagreeing with the body (-32020).
    HeaderMismatch(String),
    /// The request needs a capability its `_meta` did not declare (-32021).
    MissingCapability { message: String, required: Value },
    /// A protocol version this server does not speak (-32022).
    UnsupportedVersion {
        requested: String,
        supported: Vec<&'static str>,
    },
    /// A JSON-RPC error object made elsewhere, passed through unchanged: a tool's
    /// `Step::Fail`, or a TaskObject's reply.
    Wire(ErrorObject),
    /// A fault of ours (-32603, HTTP 500).
    Internal(String),
    /// The deployment's variables or the server's definition are invalid, so nothing can
    /// be served (-32603, HTTP 500). `what` names the variable to fix (or the server's
    /// definition), never its value: the whole reason goes to the operator's log.
    Misconfigured { what: String },
    // HTTP-level refusals, answered before any JSON-RPC processing.
    /// `Origin` not allowed (DNS-rebinding protection): 403.
    ForbiddenOrigin(String),
    /// Body over the configured limit: 413.
    PayloadTooLarge { limit: usize },
    /// Not `application/json`: 415.
    UnsupportedMediaType(String),
    /// GET/DELETE/PUT… on the MCP endpoint: 405.
    MethodNotAllowed(String),
    /// The answer can only be a `text/event-stream` and the request's `Accept` refuses
    /// it: 406. The message says what the request is and what to accept.
    NotAcceptable(String),
    /// Missing or invalid credentials: 401 with `WWW-Authenticate: Bearer
    /// resource_metadata=…` (plus `error="invalid_token"` when a token was presented).
    Unauthorized {
        error: Option<&'static str>,
        message: String,
    },
    /// A valid token without a required scope: 403 with `error="insufficient_scope"` and
    /// `scope` (every scope the server requires).
    InsufficientScope { scope: String, message: String },
    /// A per-principal quota is exhausted: 429 with `Retry-After`. `limit` is the
    /// variable that sets it.
    TooManyRequests {
        limit: &'static str,
        max: u64,
        retry_after_s: u64,
    },
}

/// An error's `data`: the fields its kind fills in, the others absent.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct ErrorData<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    required_capabilities: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    supported: Option<&'a [&'static str]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    requested: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    misconfigured: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit_bytes: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    http_status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accept: Option<&'static [&'static str]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after_seconds: Option<u64>,
}

fn data(data: ErrorData) -> Option<Value> {
    Some(jsonrpc::payload(&data))
}

/// The wire message (what a client would read).
impl std::fmt::Display for McpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_wire().message)
    }
}

impl McpError {
    /// The JSON-RPC error object for this failure.
    pub fn to_wire(&self) -> ErrorObject {
        let (code, message, data) = match self {
            McpError::Parse(m) => (ErrorCode::PARSE_ERROR, m.clone(), None),
            McpError::InvalidRequest(m) => (ErrorCode::INVALID_REQUEST, m.clone(), None),
            McpError::MethodNotFound(method) => (
                ErrorCode::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
                data(ErrorData { method: Some(method), ..ErrorData::default() }),
            ),
            McpError::InvalidParams(m) => (ErrorCode::INVALID_PARAMS, m.clone(), None),
            McpError::TaskNotFound => (
                ErrorCode::INVALID_PARAMS,
                "Failed to retrieve task: Task not found (unknown, expired, or not accessible to this caller)"
                    .to_owned(),
                None,
            ),
            McpError::SessionNotFound => (
                ErrorCode::INVALID_REQUEST,
                "Session not found: it ended or never existed; send initialize to start a new one".to_owned(),
                None,
            ),
            McpError::ResourceNotFound(uri) => (
                ErrorCode::INVALID_PARAMS,
                format!("Resource not found: {uri}"),
                data(ErrorData { uri: Some(uri), ..ErrorData::default() }),
            ),
            McpError::HeaderMismatch(m) => {
                (ErrorCode::HEADER_MISMATCH, format!("Header mismatch: {m}"), None)
            }
            McpError::MissingCapability { message, required } => (
                ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                message.clone(),
                data(ErrorData { required_capabilities: Some(required), ..ErrorData::default() }),
            ),
            McpError::UnsupportedVersion { requested, supported } => (
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                format!("Unsupported protocol version: {requested}"),
                data(ErrorData { supported: Some(supported), requested: Some(requested), ..ErrorData::default() }),
            ),
            McpError::Wire(error) => return error.clone(),
            McpError::Internal(m) => (ErrorCode::INTERNAL_ERROR, format!("Internal error: {m}"), None),
            McpError::Misconfigured { what } => (
                ErrorCode::INTERNAL_ERROR,
                format!("The server is misconfigured: {what} is invalid (its log says why)"),
                data(ErrorData { misconfigured: Some(what), ..ErrorData::default() }),
            ),
            McpError::ForbiddenOrigin(origin) => (
                ErrorCode::INVALID_REQUEST,
                format!("Forbidden: Origin {origin:?} is not allowed to use this server"),
                None,
            ),
            McpError::PayloadTooLarge { limit } => (
                ErrorCode::INVALID_REQUEST,
                format!("Request body too large: the limit is {limit} bytes"),
                data(ErrorData { limit_bytes: Some(*limit), ..ErrorData::default() }),
            ),
            McpError::UnsupportedMediaType(got) => (
                ErrorCode::INVALID_REQUEST,
                format!("Unsupported media type {got:?}: POST a JSON-RPC message as application/json"),
                None,
            ),
            McpError::MethodNotAllowed(method) => (
                ErrorCode::INVALID_REQUEST,
                format!(
                    "HTTP method {method} is not allowed: this 2026-07-28 endpoint accepts POST only \
                     (there is no GET stream and there are no sessions)"
                ),
                None,
            ),
            McpError::NotAcceptable(what) => (
                ErrorCode::INVALID_REQUEST,
                format!(
                    "Not Acceptable: {what} can only be answered with a text/event-stream, which \
                     this request's Accept refuses; send Accept: application/json, text/event-stream"
                ),
                data(ErrorData { http_status: Some(406), accept: Some(&["application/json", "text/event-stream"]), ..ErrorData::default() }),
            ),
            McpError::Unauthorized { error, message } => (
                ErrorCode::INVALID_REQUEST,
                format!("Unauthorized: {message}"),
                data(ErrorData { http_status: Some(401), error: Some(error.unwrap_or("unauthorized")), ..ErrorData::default() }),
            ),
            McpError::InsufficientScope { scope, message } => (
                ErrorCode::INVALID_REQUEST,
                format!("Forbidden: {message}"),
                data(ErrorData { http_status: Some(403), error: Some("insufficient_scope"), scope: Some(scope), ..ErrorData::default() }),
            ),
            McpError::TooManyRequests {
                limit,
                max,
                retry_after_s,
            } => (
                ErrorCode::RATE_LIMITED,
                format!(
                    "Too many requests: {} ({limit} = {max}); retry in {retry_after_s} s",
                    match *limit {
                        "QUOTA_TASKS_PER_MINUTE" => "this caller started the most tool runs allowed per minute",
                        "QUOTA_LIVE_TASKS" => "this caller has the most unfinished tasks allowed at once",
                        "QUOTA_SESSIONS" => "this caller has the most sessions allowed open at once",
                        _ => "this caller has the most listen streams allowed open at once",
                    }
                ),
                data(ErrorData { limit: Some(limit), max: Some(*max), retry_after_seconds: Some(*retry_after_s), ..ErrorData::default() }),
            ),
        };
        ErrorObject {
            code,
            message,
            data,
        }
    }

    /// The HTTP status that carries this error.
    pub fn http_status(&self) -> u16 {
        match self {
            McpError::MethodNotFound(_) | McpError::SessionNotFound => 404,
            McpError::Internal(_) | McpError::Misconfigured { .. } => 500,
            McpError::ForbiddenOrigin(_) => 403,
            McpError::PayloadTooLarge { .. } => 413,
            McpError::UnsupportedMediaType(_) => 415,
            McpError::MethodNotAllowed(_) => 405,
            McpError::NotAcceptable(_) => 406,
            McpError::Unauthorized { .. } => 401,
            McpError::InsufficientScope { .. } => 403,
            McpError::TooManyRequests { .. } => 429,
            // A passed-through error's status follows its code like any other error.
            McpError::Wire(error) => status_for_code(error.code),
            _ => 400,
        }
    }
}

/// The HTTP status of an answer inside a 2025-11-25 session, from the status the error
/// maps to ([`McpError::http_status`]): a JSON-RPC error goes with 200, as that transport
/// carries them (its clients take other statuses for transport failures), except where the
/// status itself tells the client what to do: 429 (retry later), 406 (accept a stream).
pub fn legacy_status(status: u16) -> u16 {
    match status {
        200..=299 | 406 | 429 => status,
        _ => 200,
    }
}

impl McpError {
    /// The HTTP headers this error needs besides the body: the `WWW-Authenticate`
    /// challenge of a 401/403 (naming the Protected Resource Metadata at `metadata_url`)
    /// and the `Retry-After` of a 429.
    pub fn http_headers(&self, metadata_url: &str) -> Vec<(&'static str, String)> {
        self.challenge(metadata_url)
            .into_iter()
            .chain(self.retry_after())
            .collect()
    }

    /// The `WWW-Authenticate` challenge of a 401/403.
    pub fn challenge(&self, metadata_url: &str) -> Option<(&'static str, String)> {
        match self {
            McpError::Unauthorized { error, message } => Some((
                "www-authenticate",
                crate::http::challenge(metadata_url, *error, None, error.map(|_| message.as_str())),
            )),
            McpError::InsufficientScope { scope, message } => Some((
                "www-authenticate",
                crate::http::challenge(
                    metadata_url,
                    Some("insufficient_scope"),
                    Some(scope),
                    Some(message),
                ),
            )),
            _ => None,
        }
    }

    /// The `Retry-After` of a 429: every answer carrying this error has it, whichever
    /// door it leaves by.
    pub fn retry_after(&self) -> Option<(&'static str, String)> {
        match self {
            McpError::TooManyRequests { retry_after_s, .. } => {
                Some(("retry-after", retry_after_s.to_string()))
            }
            _ => None,
        }
    }
}

/// HTTP status for an arbitrary JSON-RPC error code.
fn status_for_code(code: ErrorCode) -> u16 {
    match code {
        ErrorCode::METHOD_NOT_FOUND => 404,
        ErrorCode::INTERNAL_ERROR => 500,
        ErrorCode::PARSE_ERROR
        | ErrorCode::INVALID_REQUEST
        | ErrorCode::INVALID_PARAMS
        | ErrorCode::HEADER_MISMATCH
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => 400,
        _ => 200,
    }
}

impl McpError {
    /// The refusal for a server whose definition (its tools, prompts, resources) is
    /// invalid; the log says what is wrong. (A deployment variable's is
    /// `vars::ConfigError::refusal`.)
    pub fn misdefined() -> McpError {
        McpError::Misconfigured {
            what: "the server's definition".to_owned(),
        }
    }
}
