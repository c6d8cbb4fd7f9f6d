//! `mcp-tasks-edge/tasks/list`: the caller's tasks, newest first, a page at a time, and
//! which of them a caller asked for (`status`, `tool`). A page of the caller's index is
//! read ([`Index`]), then each listed task from its own object, all at once ([`read`]),
//! so the list shows what `tasks/get` would and skips tasks that have expired; the same
//! page serves a 2025-11-25 `tasks/list` (`legacy::task_ops`). A page reads only its own
//! index entries: the cursor is the index key it ends at, so listing 5,000 tasks reads
//! each entry once, not the whole index per page.
//!
//! ```text
//! → {"method":"mcp-tasks-edge/tasks/list","params":{"status":"working","tool":"process_batch","cursor":"…"}}
//! ← {"resultType":"complete","tasks":[{…DetailedTask…,"_meta":{"mcp-tasks-edge/task":{"tool":"process_batch",…}}}],"nextCursor":"…"}
//! ```
//!
//! A filter applies to the page read: a page may hold fewer tasks than the index page
//! (none, even) and still have a `nextCursor`; a reader follows it to the end.

use super::creation::Creating;
use crate::auth::anonymous::lists_tasks;
use crate::concurrent::join_all;
use crate::error::McpError;
use crate::mcp::params::{Fields, Params};
use crate::quota::cursor_ok;
use crate::tasks::protocol::{ObjectReply, ObjectRequest};
use crate::tasks::record::task_facts;
use crate::tasks::task::{self, StatusKind};
use serde_json::Value;

/// The params of `mcp-tasks-edge/tasks/list`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListParams {
    pub cursor: Option<String>,
    pub filter: TaskFilter,
}

/// Which of the caller's tasks a page keeps: those with this status and this tool, when
/// given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskFilter {
    pub status: Option<StatusKind>,
    pub tool: Option<String>,
}

impl Params for ListParams {
    fn read(fields: &Fields) -> Result<Self, McpError> {
        let status = match fields.opt_string("status")? {
            None => None,
            Some(name) => Some(StatusKind::from_name(&name).ok_or_else(|| {
                McpError::InvalidParams(format!(
                    "status must be one of working, input_required, completed, failed, cancelled; got {name:?}"
                ))
            })?),
        };
        Ok(ListParams {
            cursor: fields.opt_string("cursor")?,
            filter: TaskFilter {
                status,
                tool: fields.opt_string("tool")?,
            },
        })
    }
}

impl TaskFilter {
    /// Whether `task` (a `DetailedTask` as its object answered it) is one the caller asked for.
    pub fn keeps(&self, task: &Value) -> bool {
        let status_fits = self
            .status
            .is_none_or(|status| StatusKind::of_task(task) == Some(status));
        let tool_fits = self.tool.as_deref().is_none_or(|tool| {
            task_facts(task)
                .and_then(|f| f.get("tool"))
                .and_then(Value::as_str)
                == Some(tool)
        });
        status_fits && tool_fits
    }
}

/// The result of a page: the tasks `filter` keeps, in order, and the next page's cursor.
pub fn page_result(tasks: Vec<Value>, next: Option<String>, filter: &TaskFilter) -> Value {
    let tasks: Vec<Value> = tasks.into_iter().filter(|t| filter.keeps(t)).collect();
    task::list_result(true, tasks, next)
}

/// The principal's task index (kept by its ledger, `crate::quota`).
// Single threaded, as `server::perform::Effects`.
#[allow(async_fn_in_trait)]
pub trait Index {
    /// One page of `principal`'s task ids, newest first: those before the index key
    /// `before` (or the newest), and the key the page ends at; or why the index could
    /// not be read.
    async fn index(
        &self,
        principal: &str,
        before: Option<&str>,
    ) -> Result<(Vec<String>, Option<String>), String>;
}

/// One page of `principal`'s tasks (`DetailedTask`s without `resultType`) and the
/// cursor of the next. An anonymous caller owns nothing beyond each task it holds the id
/// of: its page is empty.
pub async fn page<P: Creating + Index>(
    p: &P,
    principal: &str,
    cursor: Option<&str>,
) -> Result<(Vec<Value>, Option<String>), McpError> {
    if !lists_tasks(principal) {
        return Ok((Vec::new(), None));
    }
    let (ids, next) = index_page(p, principal, cursor).await?;
    let tasks = read(p, ids, principal).await;
    Ok((
        tasks.into_iter().filter_map(|(_, task)| task).collect(),
        next,
    ))
}

/// The tasks `ids` name, as `principal` reads them, all at once: each id with its
/// `DetailedTask` (without `resultType`), or `None` for one it cannot read (ended for
/// good, expired, someone else's, or its object unreachable).
pub async fn read<P: Creating>(
    p: &P,
    ids: Vec<String>,
    principal: &str,
) -> Vec<(String, Option<Value>)> {
    join_all(ids.into_iter().map(|task_id| async move {
        let request = ObjectRequest::Get {
            task_id: task_id.clone(),
        };
        let task = match ObjectReply::outcome(p.forward(principal, &request).await) {
            Ok(Value::Object(mut task)) => {
                task.remove("resultType");
                Some(Value::Object(task))
            }
            _ => None,
        };
        (task_id, task)
    }))
    .await
}

/// One page of `principal`'s task ids from its index, newest first, and the cursor of
/// the next page: -32602 for a cursor this server did not give.
pub async fn index_page<P: Index>(
    p: &P,
    principal: &str,
    cursor: Option<&str>,
) -> Result<(Vec<String>, Option<String>), McpError> {
    if let Some(cursor) = cursor.filter(|c| !cursor_ok(c)) {
        return Err(McpError::InvalidParams(format!(
            "Invalid cursor: {cursor:?}"
        )));
    }
    let page = p.index(principal, cursor).await;
    page.map_err(|why| McpError::Internal(format!("the task index is unavailable: {why}")))
}
