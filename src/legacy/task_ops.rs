//! A 2025-11-25 session's legacy task requests, once for every platform: each reaches its
//! task as the session does ([`super::reach`]), and the era's shapes are applied here.
//!
//! ```text
//! tasks/get     the task as a legacy Task; its questions on the poll's own response
//!               when no GET stream has them (legacy::questions): then a stream
//! tasks/cancel  the cancelled task; -32602 for one already ended (legacy tasks
//!               "Cancelling Tasks"), both decided by the task's object in one turn
//! tasks/list    the caller's tasks that still exist, whichever era or session created
//!               them, newest first; the first page also holds the tasks this session
//!               reached by id
//! tasks/result  followed as the principal that reaches it (legacy::result_loop)
//! a task-augmented tools/call
//!               created under the same quotas as a 2026-07-28 task ([`create`])
//! ```

use super::plan::TaskOp;
use super::reach::{self, Reaching};
use super::session::Session;
use super::tasks::{legacy_task, list_result};
use crate::error::McpError;
use crate::jsonrpc::{self, OneEntry};
use crate::quota::Quotas;
use crate::server::creation::{Creating, store_new_task};
use crate::tasks::protocol::{ObjectReply, ObjectRequest};
use crate::tasks::record::TaskRecord;
use serde_json::Value;

/// A task-augmented `tools/call` (`object::Serve::CreateTask`, its id drawn): the task
/// stored under the same quotas as a 2026-07-28 task (`server::creation`), answered with
/// `CreateTaskResult`, or the refusal.
pub async fn create(
    c: &impl Creating,
    quotas: Quotas,
    record: Box<TaskRecord>,
) -> Result<Value, McpError> {
    let principal = record.owner().to_owned();
    let reply = store_new_task(c, quotas, &principal, record, false).await?;
    let created = ObjectReply::outcome(reply).map_err(McpError::from)?;
    Ok(jsonrpc::payload(&OneEntry("task", legacy_task(&created))))
}

/// How a legacy task request is answered.
#[derive(Debug)]
pub enum Answer {
    /// One JSON-RPC answer.
    Json(Result<Value, McpError>),
    /// A `tasks/get` whose response carries the task's questions first: a stream of
    /// these, then the result.
    Questions {
        questions: Vec<Value>,
        result: Value,
    },
    /// `tasks/result` of `task_id`: followed as `principal` (`read`: its state as just
    /// read, if it was).
    Follow {
        task_id: String,
        principal: String,
        read: Option<Value>,
    },
}

/// What legacy task requests need of the session object's platform beyond reaching.
// Single threaded, as `legacy::object::SessionPlatform`.
#[allow(async_fn_in_trait)]
pub trait TaskOps: Reaching {
    /// One page of `principal`'s tasks (`DetailedTask`s, newest first) from `cursor`,
    /// and the next page's cursor.
    async fn page(
        &mut self,
        principal: &str,
        cursor: Option<&str>,
    ) -> Result<(Vec<Value>, Option<String>), McpError>;
    /// A `tasks/get` poll read `task`: the questions its own response must carry
    /// (`legacy::notices::polled`; `streaming`: its `Accept` takes a stream).
    fn polled(&mut self, task: &Value, streaming: bool) -> Vec<Value>;
}

/// Performs `op` for `session`; `streaming`: the request's `Accept` takes a stream.
pub async fn perform<T: TaskOps>(
    t: &mut T,
    session: &Session,
    op: TaskOp,
    streaming: bool,
) -> Answer {
    match op {
        TaskOp::Get(task_id) => {
            let task = match reach::send(t, session, ObjectRequest::Get { task_id })
                .await
                .0
            {
                Ok(task) => task,
                Err(e) => return Answer::Json(Err(e)),
            };
            let questions = t.polled(&task, streaming);
            let result = legacy_task(&task);
            match questions.is_empty() {
                true => Answer::Json(Ok(result)),
                false => Answer::Questions { questions, result },
            }
        }
        TaskOp::Cancel(task_id) => {
            let cancel = ObjectRequest::LegacyCancel { task_id };
            let (outcome, _) = reach::send(t, session, cancel).await;
            Answer::Json(outcome.map(|task| legacy_task(&task)))
        }
        TaskOp::List(cursor) => Answer::Json(list(t, session, cursor.as_deref()).await),
        TaskOp::Result(task_id) => match reach::principal(t, session, &task_id).await {
            Ok((principal, read)) => Answer::Follow {
                task_id,
                principal,
                read,
            },
            Err(e) => Answer::Json(Err(e)),
        },
    }
}

/// `tasks/list`: what `tasks/get` can read, `tasks/list` lists (legacy tasks "Task
/// Listing"); 50 a page, the cursor where the next page starts in the index.
async fn list<T: TaskOps>(
    t: &mut T,
    session: &Session,
    cursor: Option<&str>,
) -> Result<Value, McpError> {
    let (mut tasks, next) = t.page(&session.principal, cursor).await?;
    if cursor.is_none() {
        tasks = reach::listed(t, session, tasks).await?;
    }
    Ok(list_result(&tasks, next))
}
