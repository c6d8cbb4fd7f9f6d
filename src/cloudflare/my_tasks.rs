//! The caller's tasks, newest first, from its principal's index: the page both
//! `mcp-tasks-edge/tasks/list` (any era, e.g. the web console's "my tasks") and the
//! 2025-11-25 `tasks/list` read. Each listed task is read from its own object (the page's
//! objects at once), so the list shows what `tasks/get` would, and skips tasks that have
//! expired. A page reads only its own index entries: the cursor is the index key it ends
//! at, so listing 5,000 tasks reads each entry once, not the whole index per page.

use super::call_object;
use super::principal_object::task_index;
use crate::auth::anonymous::lists_tasks;
use crate::concurrent::join_all;
use crate::error::McpError;
use crate::quota::cursor_ok;
use crate::tasks::protocol::{ObjectReply, ObjectRequest};
use serde_json::Value;
use worker::Env;

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
    let tasks = read(env, ids, principal).await;
    Ok((
        tasks.into_iter().filter_map(|(_, task)| task).collect(),
        next,
    ))
}

/// The tasks `ids` name, as `principal` reads them, all at once: each id with its
/// `DetailedTask` (without `resultType`), or `None` for one it cannot read (ended for
/// good, expired, someone else's, or its object unreachable).
pub(crate) async fn read(
    env: &Env,
    ids: Vec<String>,
    principal: &str,
) -> Vec<(String, Option<Value>)> {
    join_all(ids.into_iter().map(|task_id| async move {
        let request = ObjectRequest::Get {
            task_id: task_id.clone(),
        };
        let reply = call_object(env, &request, principal).await;
        let task = match ObjectReply::outcome(reply) {
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
/// the next page (the index key the page ends at).
pub(crate) async fn index_page(
    env: &Env,
    principal: &str,
    cursor: Option<&str>,
) -> Result<(Vec<String>, Option<String>), McpError> {
    if let Some(cursor) = cursor.filter(|c| !cursor_ok(c)) {
        return Err(McpError::InvalidParams(format!(
            "Invalid cursor: {cursor:?}"
        )));
    }
    task_index(env, principal, cursor)
        .await
        .map_err(|why| McpError::Internal(format!("the task index is unavailable: {why}")))
}
