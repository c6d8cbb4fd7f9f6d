//! Following an upstream task by its id (the `Following` phase): one `tasks/get` a step,
//! again after the upstream's `pollInterval` while it works, `tasks/result` once it ended.
//! A restart of the gateway between two reads repeats no upstream work.

use super::outcome::finish;
use super::{Checkpoint, UpstreamTool};
use crate::gateway::client::{Session, UpstreamError};
use crate::host::Host;
use crate::tools::{Step, ToolError};
use serde_json::{Value, json};
use std::time::Duration;

/// Failed reads of an upstream task in a row before the task fails.
const MAX_FOLLOW_FAILURES: u32 = 10;

/// One read of the upstream task: the next step.
pub(super) async fn follow(
    tool: &UpstreamTool,
    mut session: Session,
    task: String,
    interval_ms: u64,
    failures: u32,
    host: &Host,
) -> Result<Step, ToolError> {
    let read = match session
        .request("tasks/get", json!({ "taskId": task }), tool.quick())
        .await
    {
        Err(UpstreamError::SessionGone) => {
            match Session::open(host, &tool.upstream, tool.quick()).await {
                Ok(fresh) => {
                    session = fresh;
                    session
                        .request("tasks/get", json!({ "taskId": task }), tool.quick())
                        .await
                }
                Err(e) => Err(e),
            }
        }
        other => other,
    };
    let again = |failures: u32, session: &Session, message: Option<&str>| {
        let checkpoint = Checkpoint::Following {
            session: session.id.clone(),
            version: session.version.clone(),
            task: task.clone(),
            interval_ms,
            failures,
        };
        let step = Step::wait(Duration::from_millis(interval_ms)).checkpoint(checkpoint);
        match message {
            Some(m) => step.message(m),
            None => step,
        }
    };
    let status = match read {
        Ok((status, _)) => status,
        Err(UpstreamError::Rpc(e)) => return Err(ToolError::Rpc(e)),
        Err(e) if failures + 1 >= MAX_FOLLOW_FAILURES => {
            return Err(tool.error(format!(
                "The upstream server {:?} could not be reached about its task {task} {MAX_FOLLOW_FAILURES} times in a row: {e}",
                tool.upstream.name
            )));
        }
        Err(_) => return Ok(again(failures + 1, &session, None)),
    };
    let message = status.get("statusMessage").and_then(Value::as_str);
    match status.get("status").and_then(Value::as_str) {
        Some("working") => Ok(again(0, &session, message)),
        Some("completed" | "failed") => {
            let outcome = session
                .request("tasks/result", json!({ "taskId": task }), tool.call)
                .await
                .map(|(r, _)| r);
            session.close(tool.quick()).await;
            finish(
                tool,
                outcome.map(|mut result| {
                    // Its related-task marker names the upstream's task, not this server's.
                    if let Some(Value::Object(meta)) = result.get_mut("_meta") {
                        meta.remove("io.modelcontextprotocol/related-task");
                    }
                    result
                }),
            )
        }
        Some("cancelled") => Err(tool.error(format!(
            "The upstream server {:?} cancelled its task {task}{}",
            tool.upstream.name,
            message.map(|m| format!(": {m}")).unwrap_or_default()
        ))),
        Some("input_required") => {
            let _ = session
                .request("tasks/cancel", json!({ "taskId": task }), tool.quick())
                .await;
            Err(tool.error(format!(
                "The upstream tool {:?} of {:?} asked for input, which the gateway does not relay yet (docs/gateway.md \"Limits\"); its task was cancelled",
                tool.name, tool.upstream.name
            )))
        }
        other => Err(tool.fail(&UpstreamError::Malformed(format!(
            "its task {task} has the status {other:?}"
        )))),
    }
}
