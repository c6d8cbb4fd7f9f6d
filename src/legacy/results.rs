//! Modern results as a 2025-11-25 client reads them.

use super::tasks::method_not_found;
use crate::error::McpError;
use crate::jsonrpc::{OneEntry, payload};
use crate::mcp::meta::RequestMeta;
use crate::server::{Server, jobs};
use crate::tools::TaskSupport;
use serde_json::{Map, Value};

/// A `tools/call` without `params.task` of a tool whose `taskSupport` is `required`:
/// -32601 (legacy tasks "Tool-Level Negotiation": servers MUST answer so). Such a call of
/// an `optional` tool that needs more time becomes a job (`server::jobs`).
pub fn needs_task(server: &Server, params: &Map<String, Value>) -> Option<McpError> {
    let name = params.get("name").and_then(Value::as_str)?;
    let tool = server.registry.get(name)?;
    (tool.task_support() == TaskSupport::Required).then(|| {
        method_not_found(format!(
            "The tool {name} only runs as a task (execution.taskSupport is \"required\"): call it with params.task"
        ))
    })
}

/// `tools/list` for a legacy client: each tool says whether it runs as a task
/// (2025-11-25 `execution.taskSupport`). A client without the Tasks extension (every
/// 2025-11-25 client, in practice) also gets the job handle tools, which never run as
/// tasks.
pub fn legacy_tools(server: &Server, meta: &RequestMeta) -> Value {
    let jobs = !jobs::declares_tasks(&meta.capabilities)
        && jobs::offered(&server.config, &server.registry);
    let mut tools: Vec<Value> = server
        .registry
        .tools()
        .iter()
        .map(|tool| {
            let mut definition = match jobs {
                true => jobs::listed_for_jobs(tool),
                false => tool.definition(),
            };
            let support = match tool.task_support() {
                TaskSupport::Forbidden => "forbidden",
                TaskSupport::Optional => "optional",
                TaskSupport::Required => "required",
            };
            definition["execution"] = payload(&OneEntry("taskSupport", support));
            definition
        })
        .collect();
    if jobs {
        tools.extend(
            jobs::definitions(&server.config)
                .into_iter()
                .map(|mut definition| {
                    // The handle tools answer at once: never as a task.
                    definition["execution"] = payload(&OneEntry("taskSupport", "forbidden"));
                    definition
                }),
        );
    }
    payload(&OneEntry("tools", tools))
}
