//! Legacy experimental tasks on the same task objects as the Tasks extension: the I/O of
//! the requests `legacy::task_ops` decides, with `legacy::result_loop` running
//! `tasks/result` on a [`Turn`] (`legacy::turn`) of this object's streams.

use super::streams::new_id;
use super::{SessionRunner, json_reply};
use crate::cloudflare::now_ms;
use crate::cloudflare::sse::Channel;
use crate::cloudflare::watcher::Watcher;
use crate::error::McpError;
use crate::jsonrpc::{self, RequestId};
use crate::legacy::result_loop::{self, Waiting};
use crate::legacy::task_ops::{self, Answer};
use crate::legacy::turn::{self, Following};
use crate::legacy::{Session, TaskOp};
use crate::server::Server;
use crate::server::follower::Follower;
use crate::tasks::calls;
use crate::tasks::protocol::{ObjectError, ObjectRequest};
use serde_json::Value;
use worker::wasm_bindgen_futures::spawn_local;
use worker::{Response, Result};

/// A legacy task request (`legacy::task_ops`): answered at once, or on a stream (a
/// poll carrying its task's questions; `tasks/result`, unless the client takes none).
pub(super) async fn handle(
    runner: &SessionRunner,
    server: &Server,
    id: &RequestId,
    op: TaskOp,
    session: &Session,
    accepts_sse: bool,
) -> Result<Response> {
    let mut reacher = runner.reacher(server);
    match task_ops::perform(&mut reacher, session, op, accepts_sse).await {
        Answer::Json(outcome) => json_reply(Some(id), outcome),
        Answer::Questions { questions, result } => poll_stream(runner, id, &questions, &result),
        Answer::Follow {
            task_id,
            principal,
            read,
        } => {
            let mut turn = turn(runner, server, task_id, principal);
            if accepts_sse {
                return result_stream(runner, id, turn, read);
            }
            // A client whose Accept refuses a stream still blocks until the task ends;
            // its questions go to the session's GET streams.
            json_reply(Some(id), result_loop::result(&mut turn, None, read).await)
        }
    }
}

/// A `tasks/get` answered as a stream: the task's questions (server→client requests
/// related to it), then the poll's result, and the stream ends. Resumable like every
/// response stream, so a client that loses it replays it with `Last-Event-ID`.
fn poll_stream(
    runner: &SessionRunner,
    id: &RequestId,
    questions: &[Value],
    result: &Value,
) -> Result<Response> {
    let (out, response) = runner.response_stream()?;
    for question in questions {
        out.send(question.to_string().as_bytes());
    }
    out.finish(&jsonrpc::result_response(id, result));
    Ok(response)
}

/// `tasks/result` blocks until the task ends, asking the client for input on the way; it
/// streams so the questions can travel.
fn result_stream(
    runner: &SessionRunner,
    id: &RequestId,
    turn: Turn,
    read: Option<Value>,
) -> Result<Response> {
    let (out, response) = runner.response_stream()?;
    let asker = (runner.memory).asker(Some(out.clone()), Some(turn.task_id().to_owned()));
    let mut turn = turn.streamed(out.clone());
    let request_id = id.clone();
    spawn_local(async move {
        let body = match result_loop::result(&mut turn, Some(&asker), read).await {
            Ok(result) => jsonrpc::result_response(&request_id, &result),
            Err(error) => jsonrpc::error_response(Some(&request_id), &error.to_wire()),
        };
        out.finish(&body);
    });
    Ok(response)
}

/// A `tasks/result`'s follow of its task (`legacy::turn`): its watch socket, one object
/// request however long the task runs, and its object for the answers.
struct Follow {
    watcher: Watcher,
    env: worker::Env,
}

impl Following for Follow {
    async fn next(&mut self) -> Option<std::result::Result<Value, ObjectError>> {
        self.watcher.next().await
    }

    async fn send(
        &mut self,
        request: ObjectRequest,
        principal: &str,
    ) -> std::result::Result<Value, McpError> {
        calls::task(&self.env, &request, principal, None)
            .await
            .map_err(McpError::from)
    }
}

type Turn = turn::Turn<Follow, Channel>;

/// The `tasks/result` of `task_id`, followed as `principal`.
fn turn(runner: &SessionRunner, server: &Server, task_id: String, principal: String) -> Turn {
    let follower = Follower::of_server(&server.config, now_ms(), None);
    let follow = Follow {
        watcher: Watcher::new(&runner.env, &task_id, &principal, None, follower),
        env: runner.env.clone(),
    };
    runner.memory.turn(task_id, principal, follow, new_id)
}
