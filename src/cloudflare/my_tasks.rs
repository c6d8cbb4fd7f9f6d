//! The caller's tasks, newest first, from its principal's index: the page both
//! `mcp-tasks-edge/tasks/list` (any era, e.g. the web console's "my tasks") and the
//! 2025-11-25 `tasks/list` read. Each listed task is read from its own object, so the
//! list shows what `tasks/get` would, and skips tasks that have expired.

use super::call_object;
use super::principal_object::task_index;
use crate::auth::anonymous::lists_tasks;
use crate::error::McpError;
use crate::tasks::protocol::{ObjectReply, ObjectRequest};
use serde_json::Value;
use worker::Env;

/// Tasks per page.
pub const PAGE: usize = 50;

/// One page of `DetailedTask`s (without `resultType`) and the cursor of the next; the
/// cursor is the offset into the index.
pub(crate) async fn page(
    env: &Env,
    principal: &str,
    cursor: Option<&str>,
) -> Result<(Vec<Value>, Option<String>), McpError> {
    if !lists_tasks(principal) {
        // An anonymous caller owns nothing beyond each task it holds the id of.
        return Ok((Vec::new(), None));
    }
    let (ids, next) = index_page(env, principal, cursor).await?;
    let mut tasks = Vec::new();
    for task_id in ids {
        let request = ObjectRequest::Get { task_id };
        let reply = call_object(env, &request, principal).await;
        if let Ok(ObjectReply::Result(Value::Object(mut task))) =
            reply.and_then(|(status, body)| ObjectReply::decode(status, &body))
        {
            task.remove("resultType");
            tasks.push(Value::Object(task));
        }
    }
    Ok((tasks, next))
}

/// One page of `principal`'s task ids from its index, newest first, and the cursor of
/// the next page (the offset into the index).
pub(crate) async fn index_page(
    env: &Env,
    principal: &str,
    cursor: Option<&str>,
) -> Result<(Vec<String>, Option<String>), McpError> {
    let index = task_index(env, principal)
        .await
        .map_err(|why| McpError::Internal(format!("the task index is unavailable: {why}")))?;
    let offset = match cursor {
        None => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= index.len())
            .ok_or_else(|| McpError::InvalidParams(format!("Invalid cursor: {cursor:?}")))?,
    };
    let ids: Vec<String> = index.iter().skip(offset).take(PAGE).cloned().collect();
    let next = (offset + ids.len() < index.len()).then(|| (offset + ids.len()).to_string());
    Ok((ids, next))
}
