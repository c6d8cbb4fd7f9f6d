//! The error every failure becomes, in plain Rust: a JSON-RPC error object, from the
//! server or made up by the client (docs/js-api.md "Errors"); `js.rs` turns it into the
//! JS `McpError`.

use serde::Serialize;
use serde_json::Value;

/// An error as the JS side sees it (`McpError`): a JSON-RPC error object, either from the
/// server or made up by the client for failures that never reached JSON-RPC.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

/// The `data` of an error the client makes up: the fields its kind fills in, the others
/// absent.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Details<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reachable: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handler: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_info: Option<&'a Value>,
}

impl Details<'_> {
    pub fn data(&self) -> Option<Value> {
        Some(crate::jsonrpc::payload(self))
    }
}

/// Codes the client uses for failures of its own (docs/js-api.md "Errors").
impl ClientError {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    pub const HEADER_MISMATCH: i64 = -32020;
    /// A task that ended `cancelled` (LSP's RequestCancelled code).
    pub const CANCELLED: i64 = -32800;

    pub fn new(code: i64, message: impl Into<String>, data: Option<Value>) -> Self {
        ClientError {
            code,
            message: message.into(),
            data,
        }
    }

    /// The network request itself failed (offline, CORS refusal, DNS…).
    pub fn network(why: &str) -> Self {
        ClientError::new(
            Self::INTERNAL_ERROR,
            format!("Network error: {why}"),
            Details {
                cause: Some(why),
                ..Details::default()
            }
            .data(),
        )
    }

    /// A request to `url` that got no answer the page may read: `fetch` rejected. The
    /// browser gives the same `TypeError` for a CORS refusal and for a server it cannot
    /// reach; `reachable` is what a `no-cors` probe of the same URL found (it gets an
    /// opaque answer from any server that answers, whatever its CORS rules).
    pub fn unreachable(url: &str, cause: &str, reachable: bool) -> Self {
        let reason = if reachable {
            format!(
                "the browser blocked the response from {url}: the server answers, but not to this page \
                 (its CORS rules refuse this page's origin, e.g. the origin is not in the server's \
                 ALLOWED_ORIGINS, or the URL is not the server's MCP endpoint)"
            )
        } else {
            format!(
                "the browser could not reach {url} (offline, wrong host or port, a DNS or TLS failure, \
                 mixed content, or the page's Content-Security-Policy connect-src does not list it)"
            )
        };
        ClientError::new(
            Self::INTERNAL_ERROR,
            format!("Network error: {reason}"),
            Details {
                url: Some(url),
                cause: Some(cause),
                reachable: Some(reachable),
                reason: Some(&reason),
                ..Details::default()
            }
            .data(),
        )
    }

    /// A JSON-RPC error object (`{code, message, data?}`); anything else is a bad response.
    pub fn from_object(error: &Value) -> Self {
        match (
            error.get("code").and_then(Value::as_i64),
            error.get("message").and_then(Value::as_str),
        ) {
            (Some(code), Some(message)) => {
                ClientError::new(code, message, error.get("data").cloned())
            }
            _ => ClientError::new(
                Self::INVALID_REQUEST,
                format!("Invalid response: malformed JSON-RPC error {error}"),
                None,
            ),
        }
    }
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}
