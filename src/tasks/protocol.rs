//! The Worker ↔ TaskObject contract, defined once (issue: "paths, bodies, internal
//! headers ... defined once, in the core").
//!
//! # Format
//!
//! ```text
//! POST https://task-object/op                    (the URL is never routed; only the body matters)
//! x-mcp-tasks-principal: <principal>             set by the Worker on every call, never from the client
//! {"op":"create","record":{...TaskRecord}}       → {"result":{resultType:"task", ...Task}}
//! {"op":"get","taskId":"…"}                      → {"result":{resultType:"complete", ...DetailedTask}}
//! {"op":"update","taskId":"…","inputResponses":{…}} → {"result":{"resultType":"complete"}}
//! {"op":"cancel","taskId":"…"}                   → {"result":{"resultType":"complete"}}
//!                                                or {"error":{code,message,data?}}
//! ```
//!
//! The object is named by the task id (`id_from_name(taskId)`), so a task's object is
//! found from the `Mcp-Name` header alone.

use super::record::TaskRecord;
use crate::jsonrpc::ErrorObject;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The internal header carrying the caller's principal. The Worker always overwrites it.
pub const PRINCIPAL_HEADER: &str = "x-mcp-tasks-principal";
/// The URL the Worker fetches on a task's object.
pub const OBJECT_URL: &str = "https://task-object/op";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
}

impl ObjectRequest {
    pub fn task_id(&self) -> &str {
        match self {
            ObjectRequest::Create { record } => &record.task_id,
            ObjectRequest::Get { task_id }
            | ObjectRequest::Update { task_id, .. }
            | ObjectRequest::Cancel { task_id } => task_id,
        }
    }
}

/// The object's answer: a JSON-RPC result (with its `resultType`) or error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectReply {
    Result(Value),
    Error(ErrorObject),
}
