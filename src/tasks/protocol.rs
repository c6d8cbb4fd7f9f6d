//! The Worker ↔ TaskObject contract, defined once (issue: "paths, bodies, internal
//! headers ... defined once, in the core").
//!
//! # Format
//!
//! ```text
//! POST https://task-object/op                    (the URL is never routed; only the body matters)
//! x-mcp-tasks-principal: <principal>             set by the Worker on every call, never from the client
//! {"op":"create","record":{...TaskRecord}}       → 200 {resultType:"task", ...Task}
//! {"op":"get","taskId":"…"}                      → 200 {resultType:"complete", ...DetailedTask}
//! {"op":"update","taskId":"…","inputResponses":{…}} → 200 {"resultType":"complete"}
//! {"op":"cancel","taskId":"…"}                   → 200 {"resultType":"complete"}
//! {"op":"legacy_cancel","taskId":"…"}            → 200 {resultType:"complete", ...DetailedTask} (cancelled)
//!                                                or 422 -32602 when it had already ended
//! {"op":"timeline","taskId":"…"}                 → 200 {resultType, taskId, status, timeline, omittedEntries}
//! {"op":"inspect","taskId":"…"}                  → 200 the operator's view (any owner; `ops::admin`)
//! {"op":"operator_cancel","taskId":"…"}          → 200 {"resultType":"complete"} (any owner)
//!                                                or 422 {code,message,data?}
//! ```
//!
//! The reply is the bare result JSON with status 200, or the bare error object with status
//! 422: the Worker splices a result into its JSON-RPC envelope without parsing it again
//! (one JSON parse per request on the hot path).
//!
//! The object is named by the task id (`id_from_name(taskId)`), so a task's object is
//! found from the `Mcp-Name` header alone.

use super::record::TaskRecord;
use crate::error::McpError;
use crate::jsonrpc::ErrorObject;
use crate::jsonrpc::tagged::{self, Tagged};
use crate::mcp::identity::MetaFirst;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// The internal header carrying the caller's principal. The Worker always overwrites it.
pub const PRINCIPAL_HEADER: &str = "x-mcp-tasks-principal";
/// The internal header carrying the Worker's request id, so the object's log lines
/// (`ops::log`) name the request that caused them.
pub const REQUEST_ID_HEADER: &str = "x-mcp-tasks-request-id";
/// The URL the Worker fetches on a task's object.
pub const OBJECT_URL: &str = "https://task-object/op";

/// Written by serde's derive, read by hand ([`tagged`]): `{"op":"get","taskId":"…"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ObjectRequest {
    Create {
        record: Box<TaskRecord>,
    },
    #[serde(rename_all = "camelCase")]
    Get {
        task_id: String,
    },
    #[serde(rename_all = "camelCase")]
    Update {
        task_id: String,
        input_responses: Map<String, Value>,
    },
    #[serde(rename_all = "camelCase")]
    Cancel {
        task_id: String,
    },
    /// A 2025-11-25 `tasks/cancel`: the task as the cancel left it, or -32602 for one that
    /// had already ended (legacy tasks "Cancelling Tasks"), decided in one turn of the
    /// object, so a task that ends meanwhile is never answered as the cancel's success.
    #[serde(rename_all = "camelCase")]
    LegacyCancel {
        task_id: String,
    },
    /// The owner reads the task's timeline (`tasks::timeline`).
    #[serde(rename_all = "camelCase")]
    Timeline {
        task_id: String,
    },
    /// An operator reads the task, whoever owns it. Only the Worker sends it, and only
    /// for a caller it authenticated as an operator (`ops::admin`).
    #[serde(rename_all = "camelCase")]
    Inspect {
        task_id: String,
    },
    /// An operator cancels the task, whoever owns it (same trust as `Inspect`).
    #[serde(rename_all = "camelCase")]
    OperatorCancel {
        task_id: String,
    },
}

impl<'de> Deserialize<'de> for ObjectRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ObjectRequest, D::Error> {
        tagged::deserialize(deserializer, "op", ObjectRequest::read)
    }
}

impl ObjectRequest {
    /// The request `Serialize` wrote, tagged by `op`.
    fn read(mut m: Tagged) -> Result<ObjectRequest, String> {
        let task_id = |m: &mut Tagged| m.string("taskId");
        Ok(match m.name() {
            "create" => ObjectRequest::Create {
                record: Box::new(m.decode("record")?),
            },
            "get" => ObjectRequest::Get {
                task_id: task_id(&mut m)?,
            },
            "update" => ObjectRequest::Update {
                task_id: task_id(&mut m)?,
                input_responses: m.object("inputResponses")?,
            },
            "cancel" => ObjectRequest::Cancel {
                task_id: task_id(&mut m)?,
            },
            "legacy_cancel" => ObjectRequest::LegacyCancel {
                task_id: task_id(&mut m)?,
            },
            "timeline" => ObjectRequest::Timeline {
                task_id: task_id(&mut m)?,
            },
            "inspect" => ObjectRequest::Inspect {
                task_id: task_id(&mut m)?,
            },
            "operator_cancel" => ObjectRequest::OperatorCancel {
                task_id: task_id(&mut m)?,
            },
            _ => return Err(m.unknown()),
        })
    }

    pub fn task_id(&self) -> &str {
        match self {
            ObjectRequest::Create { record } => record.task_id(),
            ObjectRequest::Get { task_id }
            | ObjectRequest::Update { task_id, .. }
            | ObjectRequest::Cancel { task_id }
            | ObjectRequest::LegacyCancel { task_id }
            | ObjectRequest::Timeline { task_id }
            | ObjectRequest::Inspect { task_id }
            | ObjectRequest::OperatorCancel { task_id } => task_id,
        }
    }
}

/// The object's answer: a JSON-RPC result (with its `resultType`) or error object.
#[derive(Debug, Clone, PartialEq)]
pub enum ObjectReply {
    Result(Value),
    Error(ErrorObject),
}

/// HTTP status of a reply that carries a result; an error object travels with
/// [`ERROR_STATUS`].
pub const RESULT_STATUS: u16 = 200;
pub const ERROR_STATUS: u16 = 422;

impl ObjectReply {
    /// The reply as the object sends it: (status, body).
    pub fn encode(&self) -> (u16, Vec<u8>) {
        match self {
            // `_meta` first: the Worker adds this server's identity without parsing it
            // again (`mcp::identity`).
            ObjectReply::Result(result) => (
                RESULT_STATUS,
                serde_json::to_vec(&MetaFirst(result)).expect("results serialize"),
            ),
            ObjectReply::Error(error) => (
                ERROR_STATUS,
                serde_json::to_vec(error).expect("errors serialize"),
            ),
        }
    }

    /// What a call to an object came to: its result, or why not. `reply`: the (status,
    /// body) the object answered, or why it could not be reached. Every caller reads
    /// replies through this (or [`ObjectReply::decode`] where it needs the error itself).
    pub fn outcome(reply: Result<(u16, Vec<u8>), String>) -> Result<Value, ObjectError> {
        let (status, body) = reply.map_err(ObjectError::Unreachable)?;
        match ObjectReply::decode(status, &body) {
            Ok(ObjectReply::Result(result)) => Ok(result),
            Ok(ObjectReply::Error(error)) => Err(ObjectError::Refused(error)),
            Err(why) => Err(ObjectError::Unreachable(why)),
        }
    }

    /// Parses a reply (for callers that need the value, such as the listen stream).
    pub fn decode(status: u16, body: &[u8]) -> Result<ObjectReply, String> {
        let parse_error =
            |e: serde_json::Error| format!("unreadable reply from the task object: {e}");
        match status {
            RESULT_STATUS => crate::jsonrpc::read(body)
                .map(ObjectReply::Result)
                .map_err(parse_error),
            ERROR_STATUS => crate::jsonrpc::read(body)
                .map(ObjectReply::Error)
                .map_err(parse_error),
            other => Err(format!(
                "task object answered HTTP {other}: {}",
                String::from_utf8_lossy(body)
            )),
        }
    }
}

/// Why a call to an object gave no result.
#[derive(Debug, Clone, PartialEq)]
pub enum ObjectError {
    /// The object refused (an unknown task, answers that do not fit…): its error, which
    /// reaches the client as it is.
    Refused(ErrorObject),
    /// The object could not be reached, or answered something unreadable.
    Unreachable(String),
}

impl ObjectError {
    /// Whether the object said the task does not exist for this caller.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ObjectError::Refused(e) if is_task_not_found(e))
    }
}

/// Whether a task object's error says the task does not exist for this caller (unknown,
/// expired or someone else's: one answer for all). The whole error, not its code alone:
/// other refusals share -32602 (invalid params).
pub fn is_task_not_found(error: &ErrorObject) -> bool {
    *error == McpError::TaskNotFound.to_wire()
}

impl std::fmt::Display for ObjectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ObjectError::Refused(error) => f.write_str(&error.message),
            ObjectError::Unreachable(why) => write!(f, "task storage unavailable: {why}"),
        }
    }
}

impl From<ObjectError> for McpError {
    fn from(error: ObjectError) -> McpError {
        match error {
            ObjectError::Refused(error) => McpError::Wire(error),
            unreachable => McpError::Internal(unreachable.to_string()),
        }
    }
}
