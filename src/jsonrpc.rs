//! JSON-RPC 2.0 envelope: ids, requests, notifications, responses and error objects.
//!
//! Parsing follows the lsp-server order: bytes → `Value` (-32700), `Value` → envelope
//! (-32600), and only later typed params (-32602) and the method (-32601). The body is
//! parsed exactly once; the envelope keeps `params` as a `Value` that dispatch
//! deserializes into the method's own type.
//!
//! # Format
//!
//! ```text
//! {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{...}}     request
//! {"jsonrpc":"2.0","method":"notifications/x","params":{...}}        notification
//! {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",...}}   result response
//! {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"..."}}  error response
//! ```

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::fmt;

pub mod tagged;
pub mod top;

/// A request id: a string or an integer. MCP forbids `null` (basic/index "Requests").
/// Written as the bare string or number; read by hand (below), not as serde's untagged
/// enum, which buffers the value to try each variant in turn.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RequestId, D::Error> {
        deserializer.deserialize_any(IdVisitor)
    }
}

struct IdVisitor;

impl Visitor<'_> for IdVisitor {
    type Value = RequestId;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a request id (a string or an integer)")
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<RequestId, E> {
        Ok(RequestId::Number(n))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<RequestId, E> {
        i64::try_from(n)
            .map(RequestId::Number)
            .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(n), &self))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<RequestId, E> {
        Ok(RequestId::String(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<RequestId, E> {
        Ok(RequestId::String(s))
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// Error codes. An open set, so a newtype with constants (lsp-types style).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    pub const PARSE_ERROR: Self = Self(-32700);
    pub const INVALID_REQUEST: Self = Self(-32600);
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    pub const INVALID_PARAMS: Self = Self(-32602);
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// `HeaderMismatch` (renumbered from -32001 before 2026-07-28 shipped).
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// `MissingRequiredClientCapability` (was -32003).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// `UnsupportedProtocolVersion` (was -32004).
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);
    /// A per-principal quota is exhausted (HTTP 429); `data.limit` names it. From the
    /// implementation-defined server-error range.
    pub const RATE_LIMITED: Self = Self(-32090);
    /// The client cancelled the request (LSP's `RequestCancelled`; MCP names no code: the
    /// answer to a cancelled request SHOULD not be sent at all, basic/patterns/cancellation).
    pub const REQUEST_CANCELLED: Self = Self(-32800);
}

/// The JSON-RPC error object, as it appears on the wire and inside a failed task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// An error's code and message without its `data`: how a result or a view reports an
/// error it carries (a job's facts, the operator's task view).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ErrorSummary<'a> {
    pub code: ErrorCode,
    pub message: &'a str,
}

impl ErrorObject {
    pub fn summary(&self) -> ErrorSummary<'_> {
        ErrorSummary {
            code: self.code,
            message: &self.message,
        }
    }
}

/// A protocol payload (a result or a notification's params, a `Serialize` type) as a
/// value, for the builders below.
pub fn payload(payload: &impl Serialize) -> Value {
    serde_json::to_value(payload).expect("protocol payloads serialize")
}

/// `{key: value}`: a map of one entry under a constant key (a `_meta` key, an extension's
/// name), which a derived field name cannot be.
pub struct OneEntry<'a, T>(pub &'a str, pub T);

impl<T: Serialize> Serialize for OneEntry<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.0, &self.1)?;
        map.end()
    }
}

/// `{}`: an empty object (a capability without settings, content left to fill in).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Empty {}

/// A parsed message body: what the client POSTed.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request(Request),
    Notification(Notification),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: RequestId,
    pub method: String,
    /// `params` as sent; absent params are an empty object.
    pub params: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    pub method: String,
    pub params: Map<String, Value>,
}

/// Why a body is not a usable message. `id` is whatever id could be salvaged, so the
/// error response can still echo it (basic/index "Error Responses").
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeError {
    pub id: Option<RequestId>,
    pub error: ErrorObject,
}

impl EnvelopeError {
    fn invalid(id: Option<RequestId>, message: impl Into<String>) -> Self {
        EnvelopeError {
            id,
            error: ErrorObject {
                code: ErrorCode::INVALID_REQUEST,
                message: message.into(),
                data: None,
            },
        }
    }
}

/// Reads `bytes` into a `T` through a parsed [`Value`]: the wasm then holds one JSON parser
/// (for `Value`) and one deserializer per type (from a `Value`), where `from_slice::<T>`
/// would instantiate the parser again for every `T` (docs/architecture.md, "What keeps the
/// Worker small"). A struct is read from an object only ([`top::Top`]).
pub fn read<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> serde_json::Result<T> {
    serde_json::from_slice::<Value>(bytes).and_then(from_value)
}

/// `serde_json::from_value`, a struct read from an object only ([`top::Top`]): what the
/// Worker's typed reads from a [`Value`] use.
pub fn from_value<T: serde::de::DeserializeOwned>(value: Value) -> serde_json::Result<T> {
    T::deserialize(top::Top(value))
}

/// Parses a POST body into a message: -32700 for bytes that are not JSON, -32600 for
/// JSON that is not a single JSON-RPC request or notification.
pub fn parse_message(body: &[u8]) -> Result<Message, EnvelopeError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| EnvelopeError {
        id: None,
        error: ErrorObject {
            code: ErrorCode::PARSE_ERROR,
            message: format!("Parse error: body is not valid JSON ({e})"),
            data: None,
        },
    })?;
    let mut object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(EnvelopeError::invalid(
                None,
                "Invalid request: JSON-RPC batches are not supported; send one message per POST",
            ));
        }
        _ => {
            return Err(EnvelopeError::invalid(
                None,
                "Invalid request: the body must be a JSON-RPC object",
            ));
        }
    };
    let id = match object.remove("id") {
        None => None,
        Some(Value::Number(n)) => match n.as_i64() {
            Some(n) => Some(RequestId::Number(n)),
            None => {
                return Err(EnvelopeError::invalid(
                    None,
                    "Invalid request: a numeric id must be an integer",
                ));
            }
        },
        Some(Value::String(s)) => Some(RequestId::String(s)),
        Some(Value::Null) => {
            return Err(EnvelopeError::invalid(
                None,
                "Invalid request: the id must not be null",
            ));
        }
        Some(_) => {
            return Err(EnvelopeError::invalid(
                None,
                "Invalid request: the id must be a string or an integer",
            ));
        }
    };
    match object.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        _ => {
            return Err(EnvelopeError::invalid(
                id,
                "Invalid request: \"jsonrpc\" must be exactly \"2.0\"",
            ));
        }
    }
    if object.contains_key("result") || object.contains_key("error") {
        return Err(EnvelopeError::invalid(
            id,
            "Invalid request: clients must not POST JSON-RPC responses to a 2026-07-28 server",
        ));
    }
    let method = match object.remove("method") {
        Some(Value::String(m)) if !m.is_empty() => m,
        Some(Value::String(_)) => {
            return Err(EnvelopeError::invalid(
                id,
                "Invalid request: \"method\" must not be empty",
            ));
        }
        Some(_) => {
            return Err(EnvelopeError::invalid(
                id,
                "Invalid request: \"method\" must be a string",
            ));
        }
        None => {
            return Err(EnvelopeError::invalid(
                id,
                "Invalid request: \"method\" is missing",
            ));
        }
    };
    let params = match object.remove("params") {
        None => Map::new(),
        Some(Value::Object(p)) => p,
        Some(_) => {
            return Err(EnvelopeError::invalid(
                id,
                "Invalid request: \"params\" must be an object in MCP",
            ));
        }
    };
    Ok(match id {
        Some(id) => Message::Request(Request { id, method, params }),
        None => Message::Notification(Notification { method, params }),
    })
}

/// A request id given as a value (`notifications/cancelled`'s `requestId`): a string or an
/// integer, else none.
pub fn request_id(value: &Value) -> Option<RequestId> {
    match value {
        Value::String(s) => Some(RequestId::String(s.clone())),
        Value::Number(n) => n.as_i64().map(RequestId::Number),
        _ => None,
    }
}

/// A notification message: `{"jsonrpc":"2.0","method":…,"params":…}`. Every message the
/// server builds goes through this module's builders (`scripts/check-habits.sh`).
pub fn notification(method: &str, params: Value) -> Value {
    serde_json::json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

/// A request the server sends the client (elicitation, sampling, roots) under `id`.
pub fn server_request(id: &str, method: &Value, params: Value) -> Value {
    serde_json::json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// A request this server sends as a client (the gateway's, to an upstream server) under `id`.
pub fn client_request(id: u64, method: &str, params: Value) -> Value {
    serde_json::json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// A result response as a message value (see [`result_response`] for its bytes).
pub fn result_message(id: &RequestId, result: Value) -> Value {
    serde_json::json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// An error response as a message value (the gateway's answer to an upstream's request).
pub fn error_message(id: &RequestId, error: &ErrorObject) -> Value {
    serde_json::json!({ "jsonrpc": "2.0", "id": id, "error": error })
}

/// Serializes a result response. `result` must already carry its `resultType`. Written
/// straight from `result` (a message value built around it would copy it first).
pub fn result_response(id: &RequestId, result: &Value) -> Vec<u8> {
    result_response_raw(
        id,
        &serde_json::to_vec(result).expect("a Value always serializes"),
    )
}

/// Serializes a result response around an already serialized result (a list built once,
/// a task object's reply), without parsing it again. The result is the message's last
/// member: it ends one byte before the message does.
pub fn result_response_raw(id: &RequestId, raw_result: &[u8]) -> Vec<u8> {
    result_response_parts(id, &[raw_result])
}

/// [`result_response_raw`] of the result written as `parts`, in order, into one buffer
/// of the answer's size.
pub fn result_response_parts(id: &RequestId, parts: &[&[u8]]) -> Vec<u8> {
    const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
    const RESULT: &[u8] = br#","result":"#;
    let id = serde_json::to_vec(id).expect("ids serialize");
    let size = parts.iter().map(|part| part.len()).sum::<usize>();
    let mut out = Vec::with_capacity(HEAD.len() + id.len() + RESULT.len() + size + 1);
    out.extend_from_slice(HEAD);
    out.extend_from_slice(&id);
    out.extend_from_slice(RESULT);
    for part in parts {
        out.extend_from_slice(part);
    }
    out.push(b'}');
    out
}

/// Serializes an error response; `id` is omitted when it could not be read.
pub fn error_response(id: Option<&RequestId>, error: &ErrorObject) -> Vec<u8> {
    let mut object = Map::new();
    object.insert("jsonrpc".into(), "2.0".into());
    if let Some(id) = id {
        object.insert(
            "id".into(),
            serde_json::to_value(id).expect("ids serialize"),
        );
    }
    object.insert(
        "error".into(),
        serde_json::to_value(error).expect("errors serialize"),
    );
    serde_json::to_vec(&object).expect("a Value always serializes")
}
