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
use futures_util::future::{Either, select};
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
/// 2026-07-28 task. `trace`: the Worker's request id, for the log lines.
pub(super) async fn create(
    runner: &SessionRunner,
    server: &Server,
    id: &RequestId,
    mut record: Box<TaskRecord>,
    principal: &str,
    trace: Option<&str>,
) -> Result<Response> {
    record.assign_id(crate::cloudflare::new_task_id()?);
    let stored = store_new_task(server, &runner.env, principal, record, false, trace).await;
    let outcome = match stored {
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
        TaskOp::Get(task_id) => match get(env, &task_id, principal).await {
            Ok(task) => {
                // A client that polls instead of calling tasks/result gets the questions on
                // its GET streams (`legacy::questions`), the poll staying JSON; with none
                // open, on this poll's own response if it takes a stream.
                let questions = runner.polled(&task, accepts_sse);
                let result = legacy::legacy_task(&task);
                if !questions.is_empty() {
                    return Ok(poll_stream(runner, id, &questions, &result));
                }
                Ok(result)
            }
            Err(e) => Err(e),
        },
        TaskOp::Cancel(task_id) => cancel(env, &task_id, principal).await,
        TaskOp::List(cursor) => list(env, principal, cursor.as_deref()).await,
        TaskOp::Result(task_id) if accepts_sse => {
            return Ok(result_stream(runner, server, id, task_id, principal));
        }
        TaskOp::Result(task_id) => {
            let poll_ms = server.config.poll_interval_ms.max(100);
            result_json(runner, &task_id, principal, poll_ms).await
        }
    };
    json_reply(Some(id), outcome)
}

/// A `tasks/get` answered as a stream: the task's questions (server→client requests
/// related to it), then the poll's result, and the stream ends. Resumable like every
/// response stream, so a client that loses it replays it with `Last-Event-ID`.
fn poll_stream(
    runner: &SessionRunner,
    id: &RequestId,
    questions: &[Value],
    result: &Value,
) -> Response {
    let channel = Channel::default();
    let out = runner.resumable.open(channel.clone());
    for question in questions {
        out.send(question.to_string().as_bytes());
    }
    out.finish(&jsonrpc::result_response(id, result));
    channel
        .response(HttpResponse::empty(200))
        .unwrap_or_else(|e| Response::error(e.to_string(), 500).expect("a plain error response"))
}

/// `tasks/result` blocks until the task ends, asking the client for input on the way; it
/// streams so the questions can travel.
fn result_stream(
    runner: &SessionRunner,
    server: &Server,
    id: &RequestId,
    task_id: String,
    principal: &str,
) -> Response {
    let channel = Channel::default();
    let out = runner.resumable.open(channel.clone());
    let asker = runner.asker(Some(out.clone()), Some(task_id.clone()));
    let request_id = id.clone();
    let principal = principal.to_owned();
    let env = runner.env.clone();
    let questions = runner.questions.clone();
    let poll_ms = server.config.poll_interval_ms.max(100);
    worker::wasm_bindgen_futures::spawn_local(async move {
        let turn = Turn {
            env: &env,
            task_id: &task_id,
            principal: &principal,
            poll_ms,
        };
        let body = match result(&turn, &asker, &out, &questions).await {
            Ok(result) => jsonrpc::result_response(&request_id, &result),
            Err(error) => jsonrpc::error_response(Some(&request_id), &error),
        };
        out.finish(&body);
    });
    channel
        .response(HttpResponse::empty(200))
        .unwrap_or_else(|e| Response::error(e.to_string(), 500).expect("a plain error response"))
}

/// What one `tasks/result` waits on.
struct Turn<'a> {
    env: &'a worker::Env,
    task_id: &'a str,
    principal: &'a str,
    poll_ms: u64,
}

/// How often a `tasks/result` that asks checks whether its task moved on without it: the
/// common case (the client answers on this stream) never needs it, so it is rare.
const MOVED_ON_CHECK_MS: u64 = 5_000;

/// Resolves once the task is no longer waiting on exactly `keys` (answered elsewhere, e.g.
/// on a GET stream or by another session, cancelled, expired), so a `tasks/result` never
/// waits for answers that will not come.
async fn moved_on(turn: &Turn<'_>, keys: Vec<String>) {
    loop {
        Delay::from(Duration::from_millis(turn.poll_ms.max(MOVED_ON_CHECK_MS))).await;
        let still = match get(turn.env, turn.task_id, turn.principal).await {
            Ok(task) => match legacy::result_step(&task, turn.task_id) {
                Ok(ResultStep::Ask(requests)) => {
                    requests.keys().cloned().collect::<Vec<_>>() == keys
                }
                _ => false,
            },
            Err(_) => false,
        };
        if !still {
            return;
        }
    }
}

/// `tasks/result`: what the underlying `tools/call` would have returned, once the task
/// ends; an `input_required` task's questions go to the client as server→client requests
/// tagged with the task, and the answers to the task object. While it asks, the session's
/// GET streams hold the same questions back (`legacy::questions`).
async fn result(
    turn: &Turn<'_>,
    asker: &SessionAsker,
    out: &Stream,
    questions: &std::cell::RefCell<legacy::Questions>,
) -> std::result::Result<Value, ErrorObject> {
    let (env, task_id, principal) = (turn.env, turn.task_id, turn.principal);
    let mut last_status = Value::Null;
    loop {
        let task = get(env, task_id, principal)
            .await
            .map_err(|e| e.to_wire())?;
        if task["status"] != last_status {
            // notifications/tasks/status (legacy tasks "Task Status Notification"), without
            // related-task metadata: the task id is in the params.
            last_status = task["status"].clone();
            let notification =
                jsonrpc::notification("notifications/tasks/status", legacy::legacy_task(&task));
            out.send(notification.to_string().as_bytes());
        }
        match legacy::result_step(&task, task_id).map_err(|e| e.to_wire())? {
            ResultStep::Complete(result) => return Ok(result),
            ResultStep::Fail(error) => return Err(error),
            ResultStep::Cancelled => {
                return Err(McpError::Internal(format!("Task {task_id} was cancelled")).to_wire());
            }
            ResultStep::Ask(requests) => {
                use crate::server::call::Asker;
                let keys: Vec<String> = requests.keys().cloned().collect();
                questions.borrow_mut().asking(task_id, true);
                let outcome = select(
                    Box::pin(asker.ask(requests)),
                    Box::pin(moved_on(turn, keys)),
                );
                let outcome = outcome.await;
                questions.borrow_mut().asking(task_id, false);
                let answers = match outcome {
                    Either::Left((answers, _)) => answers.map_err(|e| e.to_wire())?,
                    // Answered elsewhere or ended: read it again.
                    Either::Right(_) => continue,
                };
                let update = ObjectRequest::Update {
                    task_id: task_id.to_owned(),
                    input_responses: answers,
                };
                object(env, update, principal)
                    .await
                    .map_err(|e| e.to_wire())?;
            }
            ResultStep::Wait => Delay::from(Duration::from_millis(turn.poll_ms)).await,
        }
    }
}

/// `tasks/result` for a client whose `Accept` refuses a stream: it still blocks until the
/// task ends, answering JSON. A question the task asks meanwhile cannot travel on this
/// response, so it goes to the session's GET streams; with none open, the answer is a
/// clear error saying what to accept or open.
async fn result_json(
    runner: &SessionRunner,
    task_id: &str,
    principal: &str,
    poll_ms: u64,
) -> std::result::Result<Value, McpError> {
    loop {
        let task = get(&runner.env, task_id, principal).await?;
        match legacy::result_step(&task, task_id)? {
            ResultStep::Complete(result) => return Ok(result),
            ResultStep::Fail(error) => return Err(McpError::Wire(error)),
            ResultStep::Cancelled => {
                return Err(McpError::Internal(format!("Task {task_id} was cancelled")));
            }
            ResultStep::Ask(_) if !runner.offered(&task) => {
                return Err(McpError::NotAcceptable(format!(
                    "tasks/result of task {task_id}, which waits for input and has no GET stream of this session open to carry its questions,"
                )));
            }
            ResultStep::Ask(_) | ResultStep::Wait => {
                Delay::from(Duration::from_millis(poll_ms)).await
            }
        }
    }
}

/// `tasks/cancel`: the cancelled task; -32602 for one already ended (legacy tasks
/// "Cancelling Tasks"), both decided by the task's object in one turn.
async fn cancel(
    env: &worker::Env,
    task_id: &str,
    principal: &str,
) -> std::result::Result<Value, McpError> {
    let request = ObjectRequest::LegacyCancel {
        task_id: task_id.to_owned(),
    };
    object(env, request, principal)
        .await
        .map(|t| legacy::legacy_task(&t))
}

/// `tasks/list`: the caller's tasks that still exist, whichever era or session created
/// them (legacy tasks "Task Listing": what `tasks/get` can read, `tasks/list` lists),
/// newest first, 50 a page; the cursor is where the next page starts in the index.
async fn list(
    env: &worker::Env,
    principal: &str,
    cursor: Option<&str>,
) -> std::result::Result<Value, McpError> {
    let (tasks, next) = my_tasks::page(env, principal, cursor).await?;
    Ok(legacy::tasks::list_result(&tasks, next))
}
