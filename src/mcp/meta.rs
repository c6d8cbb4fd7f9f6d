//! Per-request `_meta` (basic/index "Per-request protocol fields") and protocol versions.
//!
//! # Format
//!
//! ```text
//! "params": { "_meta": {
//!     "io.modelcontextprotocol/protocolVersion": "2026-07-28",        required
//!     "io.modelcontextprotocol/clientCapabilities": { ... },          required
//!     "io.modelcontextprotocol/clientInfo": {"name":..,"version":..}  optional
//! } }
//! ```

use crate::error::McpError;
use crate::jsonrpc::{Empty, OneEntry, payload};
use serde_json::{Map, Value};

pub const KEY_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const KEY_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const KEY_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const KEY_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub const KEY_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The revision this server implements.
pub const PROTOCOL_2026_07_28: &str = "2026-07-28";
/// Versions the server answers to, newest first (advertised by `server/discover` and in
/// `UnsupportedProtocolVersion` errors).
pub const SUPPORTED_VERSIONS: &[&str] = &[PROTOCOL_2026_07_28];

/// The Tasks extension identifier (ext-tasks "Extension Identifier").
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The validated `_meta` of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMeta {
    pub protocol_version: String,
    pub capabilities: ClientCapabilities,
    pub client_info: Option<Value>,
}

/// The client's capabilities for one request. Kept as the raw object (an open set) with
/// typed questions on top.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientCapabilities(pub Map<String, Value>);

/// A client capability a server feature may need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    ElicitationForm,
    ElicitationUrl,
    Sampling,
    Roots,
    TasksExtension,
}

impl Capability {
    /// The `ClientCapabilities` object that declares exactly this capability, as used in
    /// `MissingRequiredClientCapability.data.requiredCapabilities`.
    pub fn as_required(self) -> Value {
        let key = match self {
            Capability::ElicitationUrl => {
                return payload(&OneEntry("elicitation", OneEntry("url", Empty {})));
            }
            Capability::TasksExtension => {
                return payload(&OneEntry("extensions", OneEntry(TASKS_EXTENSION, Empty {})));
            }
            Capability::ElicitationForm => "elicitation",
            Capability::Sampling => "sampling",
            Capability::Roots => "roots",
        };
        payload(&OneEntry(key, Empty {}))
    }

    pub fn describe(self) -> &'static str {
        match self {
            Capability::ElicitationForm => "elicitation (form mode)",
            Capability::ElicitationUrl => "elicitation (url mode)",
            Capability::Sampling => "sampling",
            Capability::Roots => "roots",
            Capability::TasksExtension => "the io.modelcontextprotocol/tasks extension",
        }
    }

    /// The -32021 error for a request that needs this capability.
    pub fn missing(self, why: &str) -> McpError {
        McpError::MissingCapability {
            message: format!(
                "Missing required client capability: {} ({why})",
                self.describe()
            ),
            required: self.as_required(),
        }
    }
}

impl ClientCapabilities {
    /// The capabilities a job records for its questions: these, plus elicitation in form
    /// and URL mode, which `job_answer` answers whatever the client declared.
    pub fn answerable_by_job(&self) -> Map<String, Value> {
        let mut recorded = self.0.clone();
        let elicitation = recorded
            .entry("elicitation")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(modes) = elicitation.as_object_mut() {
            modes
                .entry("form")
                .or_insert_with(|| Value::Object(Map::new()));
            modes
                .entry("url")
                .or_insert_with(|| Value::Object(Map::new()));
        }
        recorded
    }

    /// Whether the client declared `capability` on this request.
    ///
    /// Elicitation: an empty `elicitation: {}` means form mode only (client/elicitation
    /// "Capabilities": the implicit form-only declaration).
    pub fn has(&self, capability: Capability) -> bool {
        let object = |key: &str| self.0.get(key).and_then(Value::as_object);
        match capability {
            Capability::ElicitationForm => {
                object("elicitation").is_some_and(|e| e.is_empty() || e.contains_key("form"))
            }
            Capability::ElicitationUrl => {
                object("elicitation").is_some_and(|e| e.contains_key("url"))
            }
            Capability::Sampling => object("sampling").is_some(),
            Capability::Roots => object("roots").is_some(),
            Capability::TasksExtension => object("extensions")
                .and_then(|x| x.get(TASKS_EXTENSION))
                .is_some_and(Value::is_object),
        }
    }
}

/// Reads and validates `params._meta`. A missing required key is -32602
/// (basic/index: "A request missing any required field is malformed").
pub fn parse_request_meta(params: &Map<String, Value>) -> Result<RequestMeta, McpError> {
    let meta = match params.get("_meta") {
        Some(Value::Object(meta)) => meta,
        Some(_) => {
            return Err(McpError::InvalidParams(
                "params._meta must be an object".into(),
            ));
        }
        None => {
            return Err(McpError::InvalidParams(format!(
                "params._meta is required in {PROTOCOL_2026_07_28} and must carry \
                 {KEY_PROTOCOL_VERSION} and {KEY_CLIENT_CAPABILITIES}"
            )));
        }
    };
    let protocol_version = match meta.get(KEY_PROTOCOL_VERSION) {
        Some(Value::String(v)) => v.clone(),
        Some(_) => {
            return Err(McpError::InvalidParams(format!(
                "_meta[\"{KEY_PROTOCOL_VERSION}\"] must be a string"
            )));
        }
        None => {
            return Err(McpError::InvalidParams(format!(
                "_meta[\"{KEY_PROTOCOL_VERSION}\"] is required"
            )));
        }
    };
    let capabilities = match meta.get(KEY_CLIENT_CAPABILITIES) {
        Some(Value::Object(c)) => ClientCapabilities(c.clone()),
        Some(_) => {
            return Err(McpError::InvalidParams(format!(
                "_meta[\"{KEY_CLIENT_CAPABILITIES}\"] must be an object"
            )));
        }
        None => {
            return Err(McpError::InvalidParams(format!(
                "_meta[\"{KEY_CLIENT_CAPABILITIES}\"] is required (send {{}} for none)"
            )));
        }
    };
    let client_info = match meta.get(KEY_CLIENT_INFO) {
        None => None,
        Some(info @ Value::Object(o)) if o.get("name").is_some_and(Value::is_string) => {
            Some(info.clone())
        }
        Some(_) => {
            return Err(McpError::InvalidParams(format!(
                "_meta[\"{KEY_CLIENT_INFO}\"] must be an Implementation object with a string \"name\""
            )));
        }
    };
    Ok(RequestMeta {
        protocol_version,
        capabilities,
        client_info,
    })
}

/// -32022 unless `version` is one this server speaks.
pub fn check_supported(version: &str) -> Result<(), McpError> {
    if SUPPORTED_VERSIONS.contains(&version) {
        Ok(())
    } else {
        Err(McpError::UnsupportedVersion {
            requested: version.to_owned(),
            supported: SUPPORTED_VERSIONS.to_vec(),
        })
    }
}
