//! Legacy experimental tasks on the same task objects as the Tasks extension: the I/O of
//! the requests `legacy::task_ops` decides, with `legacy::result_loop` running
//! `tasks/result` on this object's [`Turn`].

use super::questions::{GetStreams, offered};
use super::{SessionRunner, Stream, json_reply};
use crate::cloudflare::sse::{self, Channel};
use crate::cloudflare::watcher::Watcher;
use crate::cloudflare::{now_ms, rpc};
use crate::error::McpError;
use crate::http::HttpResponse;
use crate::jsonrpc::{self, RequestId};
use crate::legacy::result_loop::{self, Waiting};
use crate::legacy::task_ops::{self, Answer};
use crate::legacy::{self, Session, TaskOp};
use crate::server::Server;
use crate::server::follower::Follower;
use crate::tasks::protocol::ObjectRequest;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::rc::Rc;
use worker::{Response, Result};

/// The task object's answer for `request` (`rpc::object`), as a value or an error.
pub(super) async fn object(
    env: &worker::Env,
    request: ObjectRequest,
    principal: &str,
) -> std::result::Result<Value, McpError> {
    rpc::object(env, &request, principal, None)
        .await
        .map_err(McpError::from)
}

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
            let mut turn = Turn::new(runner, server, task_id, &principal);
            if accepts_sse {
                return result_stream(runner, id, turn, read);
            }
            // A client whose Accept refuses a stream still blocks until the task ends;
            // its questions go to the session's GET streams.
            let task_id = turn.task_id.clone();
            let outcome = result_loop::result(&mut turn, None, &task_id, read).await;
            json_reply(Some(id), outcome)
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
    let channel = Channel::default();
    let out = runner.resumable.open(channel.clone());
    for question in questions {
        out.send(question.to_string().as_bytes());
    }
    out.finish(&jsonrpc::result_response(id, result));
    // A failure is the session fetch's error: JSON-RPC -32603 with the request's id
    // (`guard.js`), never a plain-text 500.
    sse::response(&channel, HttpResponse::empty(200))
}

/// `tasks/result` blocks until the task ends, asking the client for input on the way; it
/// streams so the questions can travel.
fn result_stream(
    runner: &SessionRunner,
    id: &RequestId,
    mut turn: Turn,
    read: Option<Value>,
) -> Result<Response> {
    let channel = Channel::default();
    let out = runner.resumable.open(channel.clone());
    let asker = runner.asker(Some(out.clone()), Some(turn.task_id.clone()));
    turn.stream = Some(out.clone());
    let request_id = id.clone();
    worker::wasm_bindgen_futures::spawn_local(async move {
        let task_id = turn.task_id.clone();
        let body = match result_loop::result(&mut turn, Some(&asker), &task_id, read).await {
            Ok(result) => jsonrpc::result_response(&request_id, &result),
            Err(error) => jsonrpc::error_response(Some(&request_id), &error.to_wire()),
        };
        out.finish(&body);
    });
    // A failure is the session fetch's error: JSON-RPC -32603 with the request's id
    // (`guard.js`), never a plain-text 500.
    sse::response(&channel, HttpResponse::empty(200))
}

/// One `tasks/result` (`legacy::result_loop`) on the task objects and this session's
/// streams: it follows the task as every follower does (`server::follower`: on its watch
/// socket, one object request however long the task runs), without a deadline.
struct Turn {
    env: worker::Env,
    task_id: String,
    principal: String,
    watcher: Watcher,
    /// A streamed answer's stream.
    stream: Option<Stream>,
    streams: Rc<RefCell<GetStreams>>,
    questions: Rc<RefCell<legacy::Questions>>,
}

impl Turn {
    fn new(runner: &SessionRunner, server: &Server, task_id: String, principal: &str) -> Self {
        let config = &server.config;
        let poll_ms = config.server_poll_ms();
        let follower = Follower::start(now_ms(), None, poll_ms, config.listen_reconnects);
        Turn {
            watcher: Watcher::new(&runner.env, &task_id, principal, None, follower),
            env: runner.env.clone(),
            task_id,
            principal: principal.to_owned(),
            stream: None,
            streams: runner.streams.clone(),
            questions: runner.questions.clone(),
        }
    }
}

impl Waiting for Turn {
    async fn get(&mut self) -> std::result::Result<Value, McpError> {
        match self.watcher.next().await {
            Some(state) => state.map_err(McpError::from),
            // A follow without a deadline ends only after telling why (`NotFound`).
            None => Err(McpError::Internal(format!(
                "the follow of task {} ended without its result",
                self.task_id
            ))),
        }
    }

    async fn update(
        &mut self,
        input_responses: Map<String, Value>,
    ) -> std::result::Result<(), McpError> {
        let update = ObjectRequest::Update {
            task_id: self.task_id.clone(),
            input_responses,
        };
        object(&self.env, update, &self.principal).await.map(drop)
    }

    fn send(&mut self, message: Value) {
        if let Some(out) = &self.stream {
            out.send(message.to_string().as_bytes());
        }
    }

    /// While it asks, the session's GET streams hold the same questions back
    /// (`legacy::questions`).
    fn asking(&mut self, asking: bool) {
        self.questions.borrow_mut().asking(&self.task_id, asking);
    }

    fn offer(&mut self, task: &Value) -> bool {
        offered(&self.streams, &self.questions, task)
    }
}
