//! The operator's view: look up any task by id, list a principal's tasks, cancel a task.
//! Methods of this server's extension namespace, for callers authenticated as operators
//! (`ADMIN_KEYS`, or an OAuth token with `OAUTH_ADMIN_SCOPE`: their principal starts with
//! [`crate::auth::OPERATOR_PREFIX`]). When no operator is configured, or the caller is not
//! one, these methods do not exist: the answer is the -32601 of any unknown method, so
//! nothing says whether a deployment has operators. Every operator request is logged
//! (event `admin`).
//!
//! # Format
//!
//! ```text
//! mcp-tasks-edge/admin/tasks/get     {taskId}              → {resultType, task: Inspected}
//! mcp-tasks-edge/admin/tasks/list    {principal, cursor?}  → {resultType, tasks: Inspected[], nextCursor?}
//! mcp-tasks-edge/admin/tasks/cancel  {taskId}              → {resultType:"complete"} (logged, hook run)
//!
//! Inspected: {taskId, status, statusMessage?, tool, owner: fingerprint, principal,
//!             createdAt, lastUpdatedAt, ttlMs, expiresAt?, attempt?, error?, timeline,
//!             omittedEntries}
//! ```
//!
//! An operator sees what an operator needs, not the callers' data: no arguments, answers,
//! input requests or results (as in the logs). The owner appears as its fingerprint (what
//! the logs carry) and as its principal's name (`key:<name>`, `oauth:<hex>`: never a
//! credential), which is what `list` takes, so an operator goes from a task to its
//! owner's other tasks.

use super::log::{Level, Line, event, fingerprint};
use crate::auth::OPERATOR_PREFIX;
use crate::error::McpError;
use crate::jsonrpc::{self, ErrorSummary};
use crate::mcp::params::{self, TaskIdParams};
use crate::tasks::id;
use crate::tasks::layout::Stored;
use crate::tasks::protocol::ObjectReply;
use crate::tasks::task::{RESULT_COMPLETE, TaskStatus};
use crate::tasks::timeline;
use crate::time::iso8601;
use serde::Serialize;
use serde_json::{Map, Value};

pub const GET: &str = "mcp-tasks-edge/admin/tasks/get";
pub const LIST: &str = "mcp-tasks-edge/admin/tasks/list";
pub const CANCEL: &str = "mcp-tasks-edge/admin/tasks/cancel";

/// Whether `principal` was authenticated as an operator (the Worker always sets it).
pub fn is_operator(principal: &str) -> bool {
    principal.starts_with(OPERATOR_PREFIX)
}

/// An operator's request.
#[derive(Debug, Clone, PartialEq)]
pub enum AdminRequest {
    Get {
        task_id: String,
    },
    List {
        principal: String,
        cursor: Option<String>,
    },
    Cancel {
        task_id: String,
    },
}

impl AdminRequest {
    pub fn method(&self) -> &'static str {
        match self {
            AdminRequest::Get { .. } => GET,
            AdminRequest::List { .. } => LIST,
            AdminRequest::Cancel { .. } => CANCEL,
        }
    }

    /// The `admin` log line for this request by `operator`, with how it ended
    /// (`ok`, `not_found`, or an error message).
    pub fn log_line(&self, operator: &str, request_id: Option<&str>, outcome: &str) -> Line {
        let line = Line::new(event::ADMIN, Level::Info)
            .principal(operator)
            .request_id(request_id)
            .field("method", self.method())
            .field("outcome", outcome);
        match self {
            AdminRequest::Get { task_id } | AdminRequest::Cancel { task_id } => {
                line.field("taskId", task_id.as_str())
            }
            AdminRequest::List { principal, .. } => line.field("owner", fingerprint(principal)),
        }
    }
}

/// The operator request `method` names, when `operators` (this server has operators and
/// the request can reach them: the 2026-07-28 endpoint) and `principal` is one. `None`:
/// not an operator method for this caller, answered as an unknown method.
pub fn parse(
    method: &str,
    params: &Map<String, Value>,
    principal: &str,
    operators: bool,
) -> Option<Result<AdminRequest, McpError>> {
    if !operators || !is_operator(principal) || ![GET, LIST, CANCEL].contains(&method) {
        return None;
    }
    let task_id = || {
        let task_id = params::parse::<TaskIdParams>(params)?.task_id;
        // An id this server could not have minted names no task.
        if !id::is_valid(&task_id) {
            return Err(McpError::TaskNotFound);
        }
        Ok(task_id)
    };
    Some(match method {
        GET => task_id().map(|task_id| AdminRequest::Get { task_id }),
        CANCEL => task_id().map(|task_id| AdminRequest::Cancel { task_id }),
        _ => params::parse::<ListParams>(params).map(|p| AdminRequest::List {
            principal: p.principal,
            cursor: p.cursor,
        }),
    })
}

/// `mcp-tasks-edge/admin/tasks/list`.
struct ListParams {
    /// The principal's name (`key:<name>`, `oauth:<hex>`, `admin:…`).
    principal: String,
    cursor: Option<String>,
}

impl params::Params for ListParams {
    fn read(fields: &params::Fields) -> Result<Self, McpError> {
        Ok(ListParams {
            principal: fields.string("principal")?,
            cursor: fields.opt_string("cursor")?,
        })
    }
}

/// `mcp-tasks-edge/admin/tasks/get`'s result.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InspectResult<'a> {
    result_type: &'static str,
    task: Inspected<'a>,
}

/// The operator's view of a task (`Inspected` in the `# Format` above).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Inspected<'a> {
    task_id: &'a str,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    status_message: Option<&'a str>,
    tool: &'a str,
    owner: String,
    principal: &'a str,
    created_at: String,
    last_updated_at: String,
    ttl_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attempt: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorSummary<'a>>,
    timeline: &'a Value,
    omitted_entries: &'a Value,
}

/// The operator's view of a stored task (loaded with its timeline), whoever owns it;
/// "not found" when there is none or it expired.
pub fn inspect(stored: Option<&Stored>, task_id: &str, now_ms: u64) -> ObjectReply {
    let Some(stored) =
        stored.filter(|s| s.record.task_id() == task_id && !s.record.is_expired(now_ms))
    else {
        return ObjectReply::Error(McpError::TaskNotFound.to_wire());
    };
    let record = &stored.record;
    let timeline = timeline::wire(stored);
    let error = match record.status() {
        TaskStatus::Failed { error } => Some(error.summary()),
        _ => None,
    };
    let task = Inspected {
        task_id: record.task_id(),
        status: record.status().name(),
        status_message: record.status_message(),
        tool: record.tool(),
        owner: fingerprint(record.owner()),
        principal: record.owner(),
        created_at: iso8601(record.created_at_ms()),
        last_updated_at: iso8601(record.last_updated_at_ms()),
        ttl_ms: record.ttl_ms(),
        expires_at: record.expires_at_ms().map(iso8601),
        attempt: record.lease().map(|lease| lease.attempt),
        error,
        timeline: &timeline["timeline"],
        omitted_entries: &timeline["omittedEntries"],
    };
    ObjectReply::Result(jsonrpc::payload(&InspectResult {
        result_type: RESULT_COMPLETE,
        task,
    }))
}
