//! Following an upstream task by its id (the `Following` phase): one `tasks/get` a step,
//! again after the upstream's poll interval while it works; its questions become the
//! task's, and their answers go back with `tasks/update` (2026-07-28); once it ended, its
//! result. A restart of the gateway between two reads repeats no upstream work.

use super::outcome::finish;
use super::{Checkpoint, UpstreamTool};
use crate::gateway::client::{self, Session, UpstreamError};
use crate::host::Host;
use crate::jsonrpc::ErrorObject;
use crate::tools::{Call, Step, ToolError};
use serde_json::{Map, Value};
use std::time::Duration;

/// Failed reads of an upstream task in a row before the task fails.
const MAX_FOLLOW_FAILURES: u32 = 10;

/// What the `Following` checkpoint holds besides the session.
pub(super) struct Following {
    pub task: String,
    pub interval_ms: u64,
    pub failures: u32,
    pub sent: Vec<String>,
}

impl Following {
    /// Read again after the poll interval.
    fn again(self, session: &Session, message: Option<&str>) -> Step {
        let interval_ms = self.interval_ms;
        let checkpoint = Checkpoint::Following {
            session: session.id.clone(),
            version: session.version.clone(),
            task: self.task,
            interval_ms,
            failures: self.failures,
            sent: self.sent,
        };
        let step = Step::wait(Duration::from_millis(interval_ms)).checkpoint(checkpoint);
        match message {
            Some(m) => step.message(m),
            None => step,
        }
    }
}

/// One read of the upstream task: the next step.
pub(super) async fn follow(
    tool: &UpstreamTool,
    call: &Call,
    mut session: Session,
    mut f: Following,
    host: &Host,
) -> Result<Step, ToolError> {
    let get = client::task_params(&f.task, None);
    let read = match session
        .request("tasks/get", get.clone(), tool.quick())
        .await
    {
        // A 2025-11-25 session ended (the upstream restarted): the task outlives it.
        Err(UpstreamError::SessionGone) => {
            match Session::open(host, &tool.upstream, tool.quick(), client::no_params()).await {
                Ok(fresh) => {
                    session = fresh;
                    session.request("tasks/get", get, tool.quick()).await
                }
                Err(e) => Err(e),
            }
        }
        other => other,
    };
    let status = match read {
        Ok(status) => status,
        Err(UpstreamError::Rpc(e)) => return Err(ToolError::Rpc(e)),
        Err(e) if f.failures + 1 >= MAX_FOLLOW_FAILURES => {
            return Err(tool.error(format!(
                "The upstream server {:?} could not be reached about its task {} {MAX_FOLLOW_FAILURES} times in a row: {e}",
                tool.upstream.name, f.task
            )));
        }
        Err(_) => {
            f.failures += 1;
            return Ok(f.again(&session, None));
        }
    };
    f.failures = 0;
    let message = status.get("statusMessage").and_then(Value::as_str);
    match status.get("status").and_then(Value::as_str) {
        Some("working") => Ok(f.again(&session, message)),
        Some("completed" | "failed") if session.is_modern() => ended(tool, &status),
        Some("completed" | "failed") => {
            let outcome = session
                .request(
                    "tasks/result",
                    client::task_params(&f.task, None),
                    tool.call,
                )
                .await;
            session.close(tool.quick()).await;
            finish(tool, outcome)
        }
        Some("cancelled") => Err(tool.error(format!(
            "The upstream server {:?} cancelled its task {}{}",
            tool.upstream.name,
            f.task,
            message.map(|m| format!(": {m}")).unwrap_or_default()
        ))),
        Some("input_required") if session.is_modern() => {
            asked(tool, call, session, f, &status).await
        }
        Some("input_required") => {
            let _ = session
                .request(
                    "tasks/cancel",
                    client::task_params(&f.task, None),
                    tool.quick(),
                )
                .await;
            Err(tool.error(format!(
                "The upstream tool {:?} of {:?} asked for input on its 2025-11-25 task, which the gateway does not relay (docs/gateway.md \"Limits\"); its task was cancelled",
                tool.name, tool.upstream.name
            )))
        }
        other => Err(tool.fail(&UpstreamError::Malformed(format!(
            "its task {} has the status {other:?}",
            f.task
        )))),
    }
}

/// A 2026-07-28 task that ended: its result or its error, carried in the task itself.
fn ended(tool: &UpstreamTool, status: &Value) -> Result<Step, ToolError> {
    match (status.get("result"), status.get("error")) {
        (Some(result), _) if status["status"] == "completed" => {
            let mut result = result.clone();
            if let Value::Object(object) = &mut result {
                object.remove("resultType");
            }
            finish(tool, Ok(result))
        }
        (_, Some(error)) => match serde_json::from_value::<ErrorObject>(error.clone()) {
            Ok(error) => Err(ToolError::Rpc(error)),
            Err(e) => Err(tool.fail(&UpstreamError::Malformed(format!(
                "its task's error is malformed: {e}"
            )))),
        },
        _ => Err(tool.fail(&UpstreamError::Malformed(
            "its ended task carries neither a result nor an error".into(),
        ))),
    }
}

/// The upstream task asks (`inputRequests`): what is not answered yet becomes this task's
/// questions; answers not sent yet go upstream with `tasks/update` (each key once: keys
/// are unique over a task's life, ext-tasks "Input Requests").
async fn asked(
    tool: &UpstreamTool,
    call: &Call,
    mut session: Session,
    mut f: Following,
    status: &Value,
) -> Result<Step, ToolError> {
    let requests = match status.get("inputRequests") {
        Some(Value::Object(requests)) if !requests.is_empty() => requests,
        _ => {
            return Ok(f.again(
                &session,
                status.get("statusMessage").and_then(Value::as_str),
            ));
        }
    };
    let unanswered: Map<String, Value> = requests
        .iter()
        .filter(|(key, _)| !call.answers.contains_key(*key))
        .map(|(key, request)| (key.clone(), request.clone()))
        .collect();
    if !unanswered.is_empty() {
        return Ok(Step::NeedInput(unanswered));
    }
    let mut responses = Map::new();
    for key in requests.keys().filter(|key| !f.sent.contains(key)) {
        responses.insert(key.clone(), call.answers[key].clone());
    }
    if !responses.is_empty() {
        let keys: Vec<String> = responses.keys().cloned().collect();
        let update = client::task_params(&f.task, Some(&responses));
        session
            .request("tasks/update", update, tool.quick())
            .await
            .map_err(|e| tool.fail(&e))?;
        f.sent.extend(keys);
    }
    Ok(f.again(&session, Some("Input sent upstream")))
}
