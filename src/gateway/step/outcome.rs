//! What a call's outcome becomes: the upstream's result, checked against what it
//! declared, or its error as it came.

use super::UpstreamTool;
use crate::gateway::client::UpstreamError;
use crate::host::HostError;
use crate::tools::{Step, ToolError};
use serde_json::Value;

/// The step a call's outcome ends with: the result checked against what the upstream
/// declared, or its error as it came.
pub(super) fn finish(
    tool: &UpstreamTool,
    outcome: Result<Value, UpstreamError>,
) -> Result<Step, ToolError> {
    let result = outcome.map_err(|e| match e {
        UpstreamError::Host(HostError::Timeout { ms, .. }) => tool.error(format!(
            "The upstream server {:?} did not answer the call of {:?} within {ms} ms (UPSTREAM_CALL_TIMEOUT_MS)",
            tool.upstream.name, tool.name
        )),
        other => tool.fail(&other),
    })?;
    check(tool, &result)?;
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
