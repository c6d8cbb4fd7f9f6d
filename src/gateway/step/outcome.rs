//! What a call's answer becomes: a result, checked against what the upstream declared;
//! its error as it came; its task, followed from then on; its questions, asked.

use super::{Checkpoint, UpstreamTool};
use crate::gateway::client::{Session, UpstreamError};
use crate::host::HostError;
use crate::tools::{Call, Step, ToolError};
use serde_json::{Map, Value};
use std::time::Duration;

/// The step after a `tools/call`'s answer (see the module docs).
pub(super) fn answer(
    tool: &UpstreamTool,
    call: &Call,
    session: &Session,
    outcome: Result<Value, UpstreamError>,
) -> Result<Step, ToolError> {
    let Ok(mut result) = outcome else {
        return finish(tool, outcome);
    };
    let malformed = |why: &str| tool.fail(&UpstreamError::Malformed(why.to_owned()));
    if !session.is_modern() {
        // At 2025-11-25 a task comes as `{task: {…}}` when one was asked for.
        return match result.get("task").filter(|_| tool.upstream_task(call)) {
            Some(task) => {
                following(session, task).ok_or_else(|| malformed("its task has no taskId"))
            }
            None => finish(tool, Ok(result)),
        };
    }
    let kind = result
        .get("resultType")
        .and_then(Value::as_str)
        .unwrap_or("complete")
        .to_owned();
    match kind.as_str() {
        "complete" => {
            if let Value::Object(object) = &mut result {
                object.remove("resultType");
            }
            finish(tool, Ok(result))
        }
        "task" => following(session, &result).ok_or_else(|| malformed("its task has no taskId")),
        "input_required" => {
            let requests = match result.get("inputRequests") {
                Some(Value::Object(requests)) => requests.clone(),
                None | Some(Value::Null) => Map::new(),
                Some(_) => return Err(malformed("its inputRequests is not an object")),
            };
            let state = result
                .get("requestState")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if requests.is_empty() && state.is_none() {
                return Err(malformed(
                    "it asked for input with neither inputRequests nor requestState",
                ));
            }
            let checkpoint = Checkpoint::Asking {
                version: session.version.clone(),
                requests: requests.clone(),
                state,
                round: call.round,
            };
            // Asked with the state that answers them: by MRTR before any task (the caller's
            // own round), or as the task's questions. State alone: the call again at once.
            let checkpoint =
                serde_json::to_value(checkpoint).map_err(|e| tool.error(e.to_string()))?;
            Ok(match requests.is_empty() {
                false => Step::NeedInputAt {
                    requests,
                    checkpoint,
                },
                true => Step::next().checkpoint(checkpoint),
            })
        }
        other => Err(malformed(&format!(
            "it answered a tools/call with resultType {other:?}"
        ))),
    }
}

/// The step that follows the upstream task `task` (a `Task`: taskId, status, poll
/// interval, message) from its next read on.
pub(super) fn following(session: &Session, task: &Value) -> Option<Step> {
    let id = task
        .get("taskId")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())?;
    let interval = task
        .get("pollIntervalMs")
        .or_else(|| task.get("pollInterval"))
        .and_then(Value::as_u64)
        .unwrap_or(1000)
        .clamp(100, 60_000);
    let checkpoint = Checkpoint::Following {
        session: session.id.clone(),
        version: session.version.clone(),
        task: id.to_owned(),
        interval_ms: interval,
        failures: 0,
        sent: Vec::new(),
    };
    let step = Step::wait(Duration::from_millis(interval)).checkpoint(checkpoint);
    Some(match task.get("statusMessage").and_then(Value::as_str) {
        Some(message) => step.message(message),
        None => step,
    })
}

/// The `_meta` keys of an upstream's result that speak of the upstream, not of the host's
/// response: the server software that produced it (schema 2026-07-28 `ResultMetaObject`;
/// the host's response comes from this server) and the upstream's own task (this server's
/// task is another).
const UPSTREAM_OWN_META: [&str; 2] = [
    crate::mcp::meta::KEY_SERVER_INFO,
    "io.modelcontextprotocol/related-task",
];

/// The step a call's outcome ends with: the result checked against what the upstream
/// declared, without the upstream's own `_meta` keys, or its error as it came.
pub(super) fn finish(
    tool: &UpstreamTool,
    outcome: Result<Value, UpstreamError>,
) -> Result<Step, ToolError> {
    let mut result = outcome.map_err(|e| match e {
        UpstreamError::Host(HostError::Timeout { ms, .. }) => tool.error(format!(
            "The upstream server {:?} did not answer the call of {:?} within {ms} ms (UPSTREAM_CALL_TIMEOUT_MS)",
            tool.upstream.name, tool.name
        )),
        other => tool.fail(&other),
    })?;
    check(tool, &result)?;
    if let Value::Object(object) = &mut result
        && let Some(Value::Object(meta)) = object.get_mut("_meta")
    {
        for key in UPSTREAM_OWN_META {
            meta.remove(key);
        }
        if meta.is_empty() {
            object.remove("_meta");
        }
    }
    Ok(Step::complete(result))
}

/// A `CallToolResult` as the upstream declared it: `content`, and `structuredContent`
/// that matches its `outputSchema` unless the result is an error.
fn check(tool: &UpstreamTool, result: &Value) -> Result<(), ToolError> {
    let bad = |why: String| {
        tool.error(format!(
            "The upstream tool {:?} of {:?} returned an invalid result: {why}",
            tool.name, tool.upstream.name
        ))
    };
    if !result.get("content").is_some_and(Value::is_array) {
        return Err(bad("no \"content\" array".into()));
    }
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    if let (Some(schema), false) = (&tool.output, is_error) {
        let structured = result
            .get("structuredContent")
            .ok_or_else(|| bad("no structuredContent, which its outputSchema requires".into()))?;
        schema.validate(structured).map_err(|why| {
            bad(format!(
                "its structuredContent does not match its outputSchema: {why}"
            ))
        })?;
    }
    Ok(())
}
