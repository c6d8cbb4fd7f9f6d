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
//! Generic over [`Waiting`]: the Cloudflare session object implements it on the task
//! objects and its streams (`cloudflare::session_object::tasks`), the native tests on a
//! script of task states (`tests/session_object.rs`).

use super::tasks::{ResultStep, legacy_task, result_step};
use crate::error::McpError;
use crate::jsonrpc;
use crate::mcp::input;
use serde_json::{Map, Value};

/// What one `tasks/result` needs of its platform.
// Single threaded, as `legacy::object::SessionPlatform`.
#[allow(async_fn_in_trait)]
pub trait Waiting {
    /// The task's next state: as its object has it now on the first call, then each
    /// change (the platform follows it: `server::follower`).
    async fn get(&mut self) -> Result<Value, McpError>;
    /// The client's answers, to the task's object (`tasks/update`).
    async fn update(&mut self, answers: Map<String, Value>) -> Result<(), McpError>;
    /// A message on the response stream (streamed only).
    fn send(&mut self, message: Value);
    /// Asks the client `requests` on the response stream (streamed only): its answers,
    /// or `None` when the task moved on without them meanwhile (answered elsewhere,
    /// cancelled, expired), so the loop reads it again instead of waiting in vain.
    async fn ask(
        &mut self,
        requests: Map<String, Value>,
    ) -> Option<Result<Map<String, Value>, McpError>>;
    /// For a JSON answer, which cannot carry questions: offers `task`'s questions on the
    /// session's GET streams; `false` when none is open.
    fn offer(&mut self, task: &Value) -> bool;
}

/// `tasks/result` of `task_id`, on a response stream (`streamed`) or as one JSON answer.
/// `read`: the task as just read by the caller (finding out whom it is reached as, say),
/// the first turn's state instead of a second read.
pub async fn result<W: Waiting>(
    w: &mut W,
    task_id: &str,
    streamed: bool,
    mut read: Option<Value>,
) -> Result<Value, McpError> {
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
        match result_step(&task, task_id)? {
            ResultStep::Complete(result) => return Ok(result),
            ResultStep::Fail(error) => return Err(McpError::Wire(error)),
            ResultStep::Cancelled => {
                return Err(McpError::Internal(format!("Task {task_id} was cancelled")));
            }
            ResultStep::Ask(requests) if streamed => {
                if let Some(answers) = w.ask(requests.clone()).await {
                    w.update(input::answered(&requests, answers?)?).await?;
                }
            }
            ResultStep::Ask(_) if !w.offer(&task) => {
                return Err(McpError::NotAcceptable(format!(
                    "tasks/result of task {task_id}, which waits for input and has no GET stream of this session open to carry its questions,"
                )));
            }
            // Its next state is what `get` waits for.
            ResultStep::Ask(_) | ResultStep::Wait => {}
        }
    }
}
