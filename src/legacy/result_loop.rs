//! Legacy `tasks/result`, once for every platform: it blocks until the task ends and then
//! answers what the underlying `tools/call` would have (legacy tasks "Result
//! Retrieval"), asking the client for the task's input on the way. Each turn reads the
//! task, and [`result_step`] decides:
//!
//! ```text
//! streamed  a new status → notifications/tasks/status on the stream (before the answer)
//!           completed → its result · failed → its error · cancelled → -32603
//!           input_required → ask on the stream, then tasks/update with the answers
//!           working → wait for its next state
//! JSON      the same answers; no notifications (nothing carries them); a question goes
//!           to the session's GET streams, and with none open the answer is 406
//! ```
//!
//! While it asks, it goes on following the task: one that moves on without these answers
//! (answered elsewhere, e.g. on a GET stream or by another session, cancelled, expired)
//! ends the asking, and that state is the next turn's.
//!
//! Generic over [`Waiting`]: a session's [`super::turn::Turn`] implements it on the
//! platform's follow of the task and the session's streams, the native tests also on a
//! script of task states (`tests/result_loop.rs`).

use super::tasks::{ResultStep, legacy_task, result_step, still_asking};
use crate::error::McpError;
use crate::jsonrpc;
use crate::mcp::input;
use crate::server::call::Asker;
use serde_json::{Map, Value};
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;

/// What one `tasks/result` needs of its platform.
// Single threaded, as `legacy::object::SessionPlatform`.
#[allow(async_fn_in_trait)]
pub trait Waiting {
    /// The task it waits on.
    fn task_id(&self) -> &str;
    /// The task's next state: as its object has it now on the first call, then each
    /// change (the platform follows it: `server::follower`).
    async fn get(&mut self) -> Result<Value, McpError>;
    /// The client's answers, to the task's object (`tasks/update`).
    async fn update(&mut self, answers: Map<String, Value>) -> Result<(), McpError>;
    /// A message on the response stream (streamed only).
    fn send(&mut self, message: Value);
    /// The loop asks the task's questions on its stream (`true`) or no longer does: the
    /// session's GET streams hold the same questions back meanwhile.
    fn asking(&mut self, asking: bool);
    /// For a JSON answer, which cannot carry questions: offers `task`'s questions on the
    /// session's GET streams; `false` when none is open.
    fn offer(&mut self, task: &Value) -> bool;
}

/// What came first while the client was asked.
enum Asked {
    Answers(Result<Map<String, Value>, McpError>),
    /// The task's state once it no longer waits for these answers.
    MovedOn(Result<Value, McpError>),
}

/// Asks `requests` while following the task, until the answers come or the task moves
/// on without them.
async fn ask<W: Waiting>(
    w: &mut W,
    asker: &dyn Asker,
    requests: Map<String, Value>,
    task_id: &str,
) -> Asked {
    let keys: Vec<String> = requests.keys().cloned().collect();
    let mut answers = asker.ask(requests);
    let mut moved_on = pin!(async {
        loop {
            match w.get().await {
                Ok(task) if still_asking(&task, task_id, &keys) => {}
                state => return state,
            }
        }
    });
    poll_fn(|cx| {
        if let Poll::Ready(answers) = answers.as_mut().poll(cx) {
            return Poll::Ready(Asked::Answers(answers));
        }
        moved_on.as_mut().poll(cx).map(Asked::MovedOn)
    })
    .await
}

/// `tasks/result` of the task `w` waits on, on a response stream (`asker`: what asks on
/// it) or as one JSON answer (`None`). `read`: the task as just read by the caller (finding out whom it
/// is reached as, say), the first turn's state instead of a second read.
pub async fn result<W: Waiting>(
    w: &mut W,
    asker: Option<&dyn Asker>,
    mut read: Option<Value>,
) -> Result<Value, McpError> {
    let task_id = &w.task_id().to_owned();
    let streamed = asker.is_some();
    let mut last_status = Value::Null;
    loop {
        let task = match read.take() {
            Some(task) => task,
            None => w.get().await?,
        };
        if streamed && task["status"] != last_status {
            // notifications/tasks/status (legacy tasks "Task Status Notification"), with
            // no related-task metadata: the task id is in the params.
            last_status = task["status"].clone();
            w.send(jsonrpc::notification(
                "notifications/tasks/status",
                legacy_task(&task),
            ));
        }
        match (result_step(&task, task_id)?, asker) {
            (ResultStep::Complete(result), _) => return Ok(result),
            (ResultStep::Fail(error), _) => return Err(McpError::Wire(error)),
            (ResultStep::Cancelled, _) => {
                return Err(McpError::Internal(format!("Task {task_id} was cancelled")));
            }
            (ResultStep::Ask(requests), Some(asker)) => {
                w.asking(true);
                let asked = ask(w, asker, requests.clone(), task_id).await;
                w.asking(false);
                match asked {
                    Asked::Answers(answers) => {
                        w.update(input::answered(&requests, answers?)?).await?
                    }
                    Asked::MovedOn(state) => read = Some(state?),
                }
            }
            (ResultStep::Ask(_), None) if !w.offer(&task) => {
                return Err(McpError::NotAcceptable(format!(
                    "tasks/result of task {task_id}, which waits for input and has no GET stream of this session open to carry its questions,"
                )));
            }
            // Its next state is what `get` waits for.
            (ResultStep::Ask(_) | ResultStep::Wait, _) => {}
        }
    }
}
