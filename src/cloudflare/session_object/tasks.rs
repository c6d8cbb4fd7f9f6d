//! Legacy experimental tasks (spec/spec-2025-11-25_basic_utilities_tasks.mdx) on the same
//! task objects as the Tasks extension: a task created by either era is read by the other.

use super::{SessionRunner, error_body, json_response};
use crate::cloudflare::sse::Channel;
use crate::cloudflare::{call_object, new_task_id, store_new_task};
use crate::error::McpError;
use crate::http::HttpResponse;
use crate::jsonrpc::{self, ErrorObject, Request as RpcRequest};
use crate::legacy::{self, Session};
use crate::server::call::{Asker, legacy_task_record};
use crate::server::{Context, Server};
use crate::tasks::id;
use crate::tasks::protocol::{ObjectReply, ObjectRequest};
use serde_json::{Map, Value, json};
use std::rc::Rc;
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
    runner: &SessionRunner,
    task_id: &str,
    principal: &str,
) -> std::result::Result<Value, McpError> {
    object(
        &runner.env,
        ObjectRequest::Get {
            task_id: task_id.to_owned(),
        },
        principal,
    )
    .await
}

fn task_id(params: &Map<String, Value>) -> std::result::Result<String, McpError> {
    let task_id = params
        .get("taskId")
        .and_then(Value::as_str)
        .ok_or_else(|| McpError::InvalidParams("params.taskId must be a string".into()))?;
    if !id::is_valid(task_id) {
        return Err(McpError::TaskNotFound);
    }
    Ok(task_id.to_owned())
}

fn is_terminal(task: &Value) -> bool {
    matches!(
        task["status"].as_str(),
        Some("completed" | "failed" | "cancelled")
    )
}

/// A task-augmented `tools/call`: `CreateTaskResult` at once.
pub(super) async fn create(
    runner: &SessionRunner,
    server: &Server,
    rpc: &RpcRequest,
    session: &Session,
    ctx: &Context,
    ttl: Option<u64>,
) -> Result<Response> {
    let fail = |e: McpError| json_response(200, error_body(Some(&rpc.id), &e));
    let mut record = match legacy_task_record(server, &rpc.params, &session.meta(), ctx, ttl) {
        Ok(record) => record,
        Err(e) => return fail(e),
    };
    record.task_id = new_task_id()?;
    // The same quotas as a 2026-07-28 task (QUOTA_TASKS_PER_MINUTE, QUOTA_LIVE_TASKS).
    let reply = match store_new_task(server, &runner.env, &ctx.principal, Box::new(record)).await {
        Ok(reply) => reply,
        Err(refused) => return fail(refused),
    };
    match decode(reply) {
        Ok(created) => {
            let result = json!({ "task": legacy::legacy_task(&created) });
            json_response(200, jsonrpc::result_response(&rpc.id, &result))
        }
        Err(e) => fail(e),
    }
}

pub(super) async fn handle(
    runner: &SessionRunner,
    server: &Rc<Server>,
    rpc: &RpcRequest,
    ctx: &Context,
    accepts_sse: bool,
) -> Result<Response> {
    let respond = |outcome: std::result::Result<Value, McpError>| match outcome {
        Ok(result) => json_response(200, jsonrpc::result_response(&rpc.id, &result)),
        Err(e) => json_response(200, error_body(Some(&rpc.id), &e)),
    };
    let principal = ctx.principal.as_str();
    match rpc.method.as_str() {
        "tasks/list" => respond(list(runner, &rpc.params, principal).await),
        "tasks/get" => {
            let outcome = match task_id(&rpc.params) {
                Ok(task_id) => get(runner, &task_id, principal)
                    .await
                    .map(|t| legacy::legacy_task(&t)),
                Err(e) => Err(e),
            };
            respond(outcome)
        }
        "tasks/cancel" => respond(cancel(runner, &rpc.params, principal).await),
        _ => {
            // tasks/result blocks until the task ends, asking the client for input on the
            // way; it streams so the questions can travel.
            let task_id = match task_id(&rpc.params) {
                Ok(task_id) => task_id,
                Err(e) => return respond(Err(e)),
            };
            let channel = Channel::default();
            let out = runner.resumable.open(channel.clone());
            let asker = runner.asker(out.clone(), Some(task_id.clone()), accepts_sse);
            let status_out = out.clone();
            let request_id = rpc.id.clone();
            let principal = principal.to_owned();
            let env = runner.env.clone();
            let poll_ms = server.config.poll_interval_ms.max(100);
            worker::wasm_bindgen_futures::spawn_local(async move {
                let body =
                    match result(&env, &asker, &status_out, &task_id, &principal, poll_ms).await {
                        Ok(result) => jsonrpc::result_response(&request_id, &result),
                        Err(error) => jsonrpc::error_response(Some(&request_id), &error),
                    };
                out.finish(&body);
            });
            channel.response(HttpResponse::empty(200))
        }
    }
}

/// `tasks/result`: what the underlying `tools/call` would have returned, once the task
/// ends; an `input_required` task's questions go to the client as server→client requests
/// tagged with the task, and the answers to the task object.
async fn result(
    env: &worker::Env,
    asker: &super::SessionAsker,
    out: &super::Stream,
    task_id: &str,
    principal: &str,
    poll_ms: u64,
) -> std::result::Result<Value, ErrorObject> {
    let mut last_status = Value::Null;
    loop {
        let request = ObjectRequest::Get {
            task_id: task_id.to_owned(),
        };
        let task = object(env, request, principal)
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
        match task["status"].as_str() {
            Some("completed") => return Ok(legacy::task_result(&task)),
            Some("failed") => {
                return Err(serde_json::from_value(task["error"].clone())
                    .unwrap_or_else(|_| McpError::Internal("the task failed".into()).to_wire()));
            }
            Some("cancelled") => {
                return Err(McpError::Internal(format!("Task {task_id} was cancelled")).to_wire());
            }
            Some("input_required") => {
                let requests = task["inputRequests"]
                    .as_object()
                    .cloned()
                    .unwrap_or_default();
                let answers = asker.ask(requests).await.map_err(|e| e.to_wire())?;
                let update = ObjectRequest::Update {
                    task_id: task_id.to_owned(),
                    input_responses: answers,
                };
                object(env, update, principal)
                    .await
                    .map_err(|e| e.to_wire())?;
            }
            _ => Delay::from(Duration::from_millis(poll_ms)).await,
        }
    }
}

/// `tasks/cancel`: the cancelled task; -32602 for one already ended (legacy tasks
/// "Cancelling Tasks": terminal tasks cannot be cancelled).
async fn cancel(
    runner: &SessionRunner,
    params: &Map<String, Value>,
    principal: &str,
) -> std::result::Result<Value, McpError> {
    let task_id = task_id(params)?;
    let task = get(runner, &task_id, principal).await?;
    if is_terminal(&task) {
        return Err(McpError::InvalidParams(format!(
            "Cannot cancel task {task_id}: it already ended ({})",
            task["status"].as_str().unwrap_or_default()
        )));
    }
    object(
        &runner.env,
        ObjectRequest::Cancel {
            task_id: task_id.clone(),
        },
        principal,
    )
    .await?;
    get(runner, &task_id, principal)
        .await
        .map(|t| legacy::legacy_task(&t))
}

/// `tasks/list`: the caller's tasks that still exist, whichever era or session created
/// them (legacy tasks "Task Listing": what `tasks/get` can read, `tasks/list` lists),
/// newest first, 50 a page; the cursor is the offset of the next page.
async fn list(
    runner: &SessionRunner,
    params: &Map<String, Value>,
    principal: &str,
) -> std::result::Result<Value, McpError> {
    let cursor = match params.get("cursor") {
        None | Some(Value::Null) => None,
        Some(Value::String(cursor)) => Some(cursor.as_str()),
        Some(_) => {
            return Err(McpError::InvalidParams(
                "params.cursor must be a string".into(),
            ));
        }
    };
    let (tasks, next) = crate::cloudflare::my_tasks::page(&runner.env, principal, cursor).await?;
    let tasks: Vec<Value> = tasks.iter().map(legacy::legacy_task).collect();
    let mut result = json!({ "tasks": tasks });
    if let Some(next) = next {
        result["nextCursor"] = next.into();
    }
    Ok(result)
}
