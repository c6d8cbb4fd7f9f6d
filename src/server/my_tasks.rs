//! `mcp-tasks-edge/tasks/list`: the caller's tasks, newest first, a page at a time, and
//! which of them a caller asked for (`status`, `tool`). The adapter reads a page of the
//! caller's index and the tasks from their objects; what is kept and what the result
//! looks like is decided here.
//!
//! ```text
//! → {"method":"mcp-tasks-edge/tasks/list","params":{"status":"working","tool":"process_batch","cursor":"…"}}
//! ← {"resultType":"complete","tasks":[{…DetailedTask…,"_meta":{"mcp-tasks-edge/task":{"tool":"process_batch",…}}}],"nextCursor":"…"}
//! ```
//!
//! A filter applies to the page read: a page may hold fewer tasks than the index page
//! (none, even) and still have a `nextCursor`; a reader follows it to the end.

use crate::error::McpError;
use crate::mcp::params::{Fields, Params};
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
