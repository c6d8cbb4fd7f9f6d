//! Legacy experimental tasks on the same task objects as the Tasks extension: the I/O of
//! the operations `legacy::plan` decides, with `legacy::result_step` deciding each turn
//! of `tasks/result`.

use super::asker::SessionAsker;
use super::{SessionRunner, Stream, json_reply};
use crate::cloudflare::sse::Channel;
use crate::cloudflare::{call_object, my_tasks, store_new_task};
use crate::error::McpError;
use crate::http::HttpResponse;
use crate::jsonrpc::{self, ErrorObject, RequestId};
use crate::legacy::{self, ResultStep, TaskOp};
use crate::server::Server;
use crate::tasks::protocol::{ObjectReply, ObjectRequest};
use crate::tasks::record::TaskRecord;
use crate::tasks::task::TaskStatus;
use serde_json::{Value, json};
use std::time::Duration;
use worker::{Delay, Response, Result};

/// The task object's answer for `request`, as a value or an error.
async fn object(
    env: &worker::Env,
    request: ObjectRequest,
    principal: &str,
) -> std::result::Result<Value, McpError> {
    decode(call_object(env, &request, principal).await)
}

/// A task object's reply (or why it could not be reached) as the result or the error.
fn decode(
    reply: std::result::Result<(u16, Vec<u8>), String>,
) -> std::result::Result<Value, McpError> {
    match reply {
        Ok((status, body)) => match ObjectReply::decode(status, &body) {
            Ok(ObjectReply::Result(value)) => Ok(value),
            Ok(ObjectReply::Error(error)) => Err(McpError::Wire(error)),
            Err(why) => Err(McpError::Internal(why)),
        },
        Err(why) => Err(McpError::Internal(format!(
            "task storage unavailable: {why}"
        ))),
    }
}

async fn get(
    env: &worker::Env,
    task_id: &str,
    principal: &str,
) -> std::result::Result<Value, McpError> {
    let request = ObjectRequest::Get {
        task_id: task_id.to_owned(),
    };
    object(env, request, principal).await
}

/// A task-augmented `tools/call`: `CreateTaskResult` at once, under the same quotas as a
/// 2026-07-28 task.
pub(super) async fn create(
    runner: &SessionRunner,
    server: &Server,
    id: &RequestId,
    mut record: Box<TaskRecord>,
    principal: &str,
) -> Result<Response> {
    record.task_id = crate::cloudflare::new_task_id()?;
    let outcome = match store_new_task(server, &runner.env, principal, record, false).await {
        Ok(reply) => decode(reply).map(|created| json!({ "task": legacy::legacy_task(&created) })),
        Err(refused) => Err(refused),
    };
    json_reply(Some(id), outcome)
}

/// `tasks/get`, `tasks/cancel`, `tasks/list` answer at once; `tasks/result` streams.
pub(super) async fn handle(
    runner: &SessionRunner,
    server: &Server,
    id: &RequestId,
    op: TaskOp,
    principal: &str,
    accepts_sse: bool,
) -> Result<Response> {
    let env = &runner.env;
    let outcome = match op {
        TaskOp::Get(task_id) => get(env, &task_id, principal)
            .await
            .map(|t| legacy::legacy_task(&t)),
        TaskOp::Cancel(task_id) => cancel(env, &task_id, principal).await,
        TaskOp::List(cursor) => list(env, principal, cursor.as_deref()).await,
        TaskOp::Result(task_id) => {
            return Ok(result_stream(
                runner,
                server,
                id,
                task_id,
                principal,
                accepts_sse,
            ));
        }
    };
    json_reply(Some(id), outcome)
}

/// `tasks/result` blocks until the task ends, asking the client for input on the way; it
/// streams so the questions can travel.
fn result_stream(
    runner: &SessionRunner,
    server: &Server,
    id: &RequestId,
    task_id: String,
    principal: &str,
    accepts_sse: bool,
) -> Response {
    let channel = Channel::default();
    let out = runner.resumable.open(channel.clone());
    let asker = runner.asker(out.clone(), Some(task_id.clone()), accepts_sse);
    let request_id = id.clone();
    let principal = principal.to_owned();
    let env = runner.env.clone();
    let poll_ms = server.config.poll_interval_ms.max(100);
    worker::wasm_bindgen_futures::spawn_local(async move {
        let body = match result(&env, &asker, &out, &task_id, &principal, poll_ms).await {
            Ok(result) => jsonrpc::result_response(&request_id, &result),
            Err(error) => jsonrpc::error_response(Some(&request_id), &error),
        };
        out.finish(&body);
    });
    channel
        .response(HttpResponse::empty(200))
        .unwrap_or_else(|e| Response::error(e.to_string(), 500).expect("a plain error response"))
}

/// `tasks/result`: what the underlying `tools/call` would have returned, once the task
/// ends; an `input_required` task's questions go to the client as server→client requests
/// tagged with the task, and the answers to the task object.
async fn result(
    env: &worker::Env,
    asker: &SessionAsker,
    out: &Stream,
    task_id: &str,
    principal: &str,
    poll_ms: u64,
) -> std::result::Result<Value, ErrorObject> {
    let mut last_status = Value::Null;
    loop {
        let task = get(env, task_id, principal)
            .await
            .map_err(|e| e.to_wire())?;
        if task["status"] != last_status {
            // notifications/tasks/status (legacy tasks "Task Status Notification"), without
            // related-task metadata: the task id is in the params.
            last_status = task["status"].clone();
            let notification = json!({ "jsonrpc": "2.0", "method": "notifications/tasks/status",
                "params": legacy::legacy_task(&task) });
            out.send(notification.to_string().as_bytes());
        }
        match legacy::result_step(&task, task_id) {
            ResultStep::Complete(result) => return Ok(result),
            ResultStep::Fail(error) => {
                return Err(serde_json::from_value(error)
                    .unwrap_or_else(|_| McpError::Internal("the task failed".into()).to_wire()));
            }
            ResultStep::Cancelled => {
                return Err(McpError::Internal(format!("Task {task_id} was cancelled")).to_wire());
            }
            ResultStep::Ask(requests) => {
                use crate::server::call::Asker;
                let answers = asker.ask(requests).await.map_err(|e| e.to_wire())?;
                let update = ObjectRequest::Update {
                    task_id: task_id.to_owned(),
                    input_responses: answers,
                };
                object(env, update, principal)
                    .await
                    .map_err(|e| e.to_wire())?;
            }
            ResultStep::Wait => Delay::from(Duration::from_millis(poll_ms)).await,
        }
    }
}

/// `tasks/cancel`: the cancelled task; -32602 for one already ended (legacy tasks
/// "Cancelling Tasks": terminal tasks cannot be cancelled).
async fn cancel(
    env: &worker::Env,
    task_id: &str,
    principal: &str,
) -> std::result::Result<Value, McpError> {
    let task = get(env, task_id, principal).await?;
    let status: Option<TaskStatus> = serde_json::from_value(task.clone()).ok();
    if status.as_ref().is_some_and(TaskStatus::is_terminal) {
        return Err(McpError::InvalidParams(format!(
            "Cannot cancel task {task_id}: it already ended ({})",
            task["status"].as_str().unwrap_or_default()
        )));
    }
    let request = ObjectRequest::Cancel {
        task_id: task_id.to_owned(),
    };
    object(env, request, principal).await?;
    get(env, task_id, principal)
        .await
        .map(|t| legacy::legacy_task(&t))
}

/// `tasks/list`: the caller's tasks that still exist, whichever era or session created
/// them (legacy tasks "Task Listing": what `tasks/get` can read, `tasks/list` lists),
/// newest first, 50 a page; the cursor is the offset of the next page.
async fn list(
    env: &worker::Env,
    principal: &str,
    cursor: Option<&str>,
) -> std::result::Result<Value, McpError> {
    let (tasks, next) = my_tasks::page(env, principal, cursor).await?;
    let tasks: Vec<Value> = tasks.iter().map(legacy::legacy_task).collect();
    let mut result = json!({ "tasks": tasks });
    if let Some(next) = next {
        result["nextCursor"] = next.into();
    }
    Ok(result)
}
