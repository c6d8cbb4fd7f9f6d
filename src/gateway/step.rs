//! The step of an upstream tool (docs/gateway.md "What is durable"): where the call is
//! made, what the task stores before it, and what an interrupted call becomes.
//!
//! ```text
//! checkpoint   where        what the step does
//! (none)       Worker       opens a session; upstream with tasks: creates its task → Following
//!                           repeatable tool: calls, within UPSTREAM_INLINE_MS → the result,
//!                             or (too slow) cancels that call upstream → Start
//!                           otherwise → Calling (the task object makes the call)
//! Start        task object  opens a session → Calling (stored before anything is sent)
//! Calling      task object  attempt 1: calls and holds the call → the result; a later
//!                           attempt (the call was interrupted): a repeatable tool opens a
//!                           new session → Calling again; any other tool fails, saying why
//! Following    task object  tasks/get → working: again after its pollInterval; ended:
//!                           tasks/result → the result
//! ```
//!
//! "Repeatable" is `idempotentHint: true` or `readOnlyHint: true` in the upstream's own
//! annotations: calling such a tool again changes nothing that the first call did not.

use super::Upstream;
use super::client::{Bounds, Session, UpstreamError};
use crate::host::{Host, HostError};
use crate::jsonrpc::{ErrorCode, ErrorObject};
use crate::mcp::schema::Schema;
use crate::tools::{Call, Step, ToolError};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::rc::Rc;
use std::time::Duration;

mod follow;
mod outcome;

use follow::follow;
use outcome::finish;

/// What a step knows of the upstream tool it calls.
#[derive(Debug)]
pub struct UpstreamTool {
    pub upstream: Rc<Upstream>,
    /// The tool's name upstream (unprefixed).
    pub name: String,
    /// Calling it again changes nothing (its `idempotentHint` or `readOnlyHint`).
    pub repeatable: bool,
    /// The upstream runs its calls as tasks.
    pub tasks: bool,
    /// Its compiled `outputSchema`, which a result's `structuredContent` must match.
    pub output: Option<Schema>,
    /// The bounds of one held call (`UPSTREAM_CALL_TIMEOUT_MS`, `UPSTREAM_MAX_BYTES`).
    pub call: Bounds,
    /// How long the Worker waits on a repeatable call (`UPSTREAM_INLINE_MS`).
    pub inline_ms: u64,
}

/// What the task stores between steps (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "phase",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Checkpoint {
    Start,
    Calling {
        session: Option<String>,
        version: String,
        request: u64,
    },
    Following {
        session: Option<String>,
        version: String,
        task: String,
        interval_ms: u64,
        #[serde(default)]
        failures: u32,
    },
}

impl UpstreamTool {
    fn fail(&self, why: &UpstreamError) -> ToolError {
        ToolError::Rpc(why.to_wire(&self.upstream.name))
    }

    fn error(&self, message: String) -> ToolError {
        ToolError::Rpc(ErrorObject {
            code: ErrorCode::INTERNAL_ERROR,
            message,
            data: None,
        })
    }

    /// The short bounds of the requests around a call (initialize, tasks/get, cancel).
    fn quick(&self) -> Bounds {
        Bounds {
            timeout_ms: self.call.timeout_ms.min(30_000),
            ..self.call
        }
    }
}

/// One step of an upstream tool (see the module docs).
pub async fn run(tool: Rc<UpstreamTool>, call: Call, host: Host) -> Result<Step, ToolError> {
    match call.checkpoint::<Checkpoint>()? {
        None if call.task_id.is_none() => first(&tool, &call, &host).await,
        None | Some(Checkpoint::Start) => {
            let session = Session::open(&host, &tool.upstream, tool.quick())
                .await
                .map_err(|e| tool.fail(&e))?;
            begin(&tool, &call, session).await
        }
        Some(Checkpoint::Calling {
            session,
            version,
            request,
        }) => {
            if call.attempt > 1 && !tool.repeatable {
                return Err(tool.error(format!(
                    "The call of {:?} on the upstream server {:?} was interrupted (the gateway restarted while it ran) and was not made again: the tool is not marked idempotentHint or readOnlyHint, so calling it twice could repeat its effects. Whether the first call took effect is unknown.",
                    tool.name, tool.upstream.name
                )));
            }
            if call.attempt > 1 {
                // Called again on a session of its own, stored first: the interrupted
                // call's id may still be in use upstream, and a cancel must reach this one.
                let session = Session::open(&host, &tool.upstream, tool.quick())
                    .await
                    .map_err(|e| tool.fail(&e))?;
                return begin(&tool, &call, session).await;
            }
            let mut session = Session::resume(&host, &tool.upstream, session, &version)
                .map_err(|e| tool.fail(&e))?;
            session.skip_to(request);
            let outcome = match call_tool(&tool, &call, &mut session, tool.call).await {
                // The session ended before the call reached it: nothing ran; a new one.
                Err(UpstreamError::SessionGone) => {
                    session = Session::open(&host, &tool.upstream, tool.quick())
                        .await
                        .map_err(|e| tool.fail(&e))?;
                    call_tool(&tool, &call, &mut session, tool.call).await
                }
                other => other,
            };
            session.close(tool.quick()).await;
            finish(&tool, outcome)
        }
        Some(Checkpoint::Following {
            session,
            version,
            task,
            interval_ms,
            failures,
        }) => {
            let session = Session::resume(&host, &tool.upstream, session, &version)
                .map_err(|e| tool.fail(&e))?;
            follow(&tool, session, task, interval_ms, failures, &host).await
        }
    }
}

/// The first step, in the Worker.
async fn first(tool: &UpstreamTool, call: &Call, host: &Host) -> Result<Step, ToolError> {
    let mut session = Session::open(host, &tool.upstream, tool.quick())
        .await
        .map_err(|e| tool.fail(&e))?;
    if tool.tasks || !tool.repeatable || tool.inline_ms == 0 {
        return begin(tool, call, session).await;
    }
    let inline = Bounds {
        timeout_ms: tool.inline_ms,
        ..tool.call
    };
    let request = session.peek_id();
    match call_tool(tool, call, &mut session, inline).await {
        Err(UpstreamError::Host(HostError::Timeout { .. })) => {
            // Too slow for the Worker: the task object calls again (the tool is
            // repeatable); this call is cancelled upstream so its work stops.
            cancel_call(tool, &session, request).await;
            Ok(Step::wait(Duration::from_millis(1)).checkpoint(Checkpoint::Start))
        }
        outcome => {
            session.close(tool.quick()).await;
            finish(tool, outcome)
        }
    }
}

/// What follows an open session: an upstream task (followed by id), or "Calling" stored
/// before the call is made.
async fn begin(tool: &UpstreamTool, call: &Call, mut session: Session) -> Result<Step, ToolError> {
    if tool.tasks {
        let params = json!({ "name": tool.name, "arguments": call.arguments, "task": {} });
        let (result, _) = session
            .request("tools/call", params, tool.quick())
            .await
            .map_err(|e| tool.fail(&e))?;
        let task = result
            .get("task")
            .and_then(|t| t.as_object())
            .ok_or_else(|| {
                tool.fail(&UpstreamError::Malformed(
                    "it answered a task-augmented tools/call without a task".into(),
                ))
            })?;
        let id = task
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if id.is_empty() {
            return Err(tool.fail(&UpstreamError::Malformed("its task has no taskId".into())));
        }
        let interval_ms = task
            .get("pollInterval")
            .and_then(Value::as_u64)
            .unwrap_or(1000)
            .clamp(100, 60_000);
        let checkpoint = Checkpoint::Following {
            session: session.id.clone(),
            version: session.version.clone(),
            task: id.to_owned(),
            interval_ms,
            failures: 0,
        };
        let mut step = Step::wait(Duration::from_millis(interval_ms)).checkpoint(checkpoint);
        if let Some(message) = task.get("statusMessage").and_then(Value::as_str) {
            step = step.message(message);
        }
        return Ok(step);
    }
    let checkpoint = Checkpoint::Calling {
        session: session.id.clone(),
        version: session.version.clone(),
        request: session.peek_id(),
    };
    // 1 ms, not 0: a job's first step must leave the Worker (`server::drive`).
    Ok(Step::wait(Duration::from_millis(1)).checkpoint(checkpoint))
}

/// `tools/call` on `session`; progress the upstream reports goes to the call's progress.
async fn call_tool(
    tool: &UpstreamTool,
    call: &Call,
    session: &mut Session,
    bounds: Bounds,
) -> Result<Value, UpstreamError> {
    let token = call.task_id.clone().unwrap_or_else(|| "gateway".into());
    let params = json!({
        "name": tool.name,
        "arguments": call.arguments,
        "_meta": { "progressToken": token },
    });
    let (result, exchange) = session.request("tools/call", params, bounds).await?;
    for (method, params) in &exchange.notifications {
        if method == "notifications/progress"
            && let Some(progress) = params.get("progress").and_then(Value::as_f64)
        {
            let total = params.get("total").and_then(Value::as_f64);
            call.progress(
                progress,
                total,
                params.get("message").and_then(Value::as_str),
            );
        }
    }
    Ok(result)
}

/// Tells the upstream a call is cancelled (`notifications/cancelled`) and ends its session.
async fn cancel_call(tool: &UpstreamTool, session: &Session, request: u64) {
    let params = json!({ "requestId": request, "reason": "cancelled by the gateway's caller" });
    let _ = session
        .notify("notifications/cancelled", params, tool.quick())
        .await;
    session.close(tool.quick()).await;
}

/// The cancel hook: the upstream's call or task is cancelled too, best effort.
pub async fn cancelled(tool: Rc<UpstreamTool>, call: Call, host: Host) {
    match call.checkpoint::<Checkpoint>() {
        Ok(Some(Checkpoint::Calling {
            session,
            version,
            request,
        })) => {
            if let Ok(session) = Session::resume(&host, &tool.upstream, session, &version) {
                cancel_call(&tool, &session, request).await;
            }
        }
        Ok(Some(Checkpoint::Following {
            session,
            version,
            task,
            ..
        })) => {
            if let Ok(mut session) = Session::resume(&host, &tool.upstream, session, &version) {
                let _ = session
                    .request("tasks/cancel", json!({ "taskId": task }), tool.quick())
                    .await;
            }
        }
        _ => {}
    }
}
