//! The demo's resource and prompt, registered like its tools.

use mcp_tasks_edge::catalog::{Prompt, Resource, complete_from, text_contents};
use mcp_tasks_edge::prelude::*;

pub const ABOUT_URI: &str = "mcp-tasks://server/about";

/// What this server offers, generated from its own tool list.
pub fn about() -> Resource {
    Resource::new(ABOUT_URI, "about")
        .title("About this server")
        .description("What this server offers and how its tasks work.")
        .mime_type("text/markdown")
        .read(|read, _host| async move {
            let mut text = String::from(
                "# MCP Tasks on the edge\n\nEvery long-running tool call becomes a task held by its own Durable Object.\n\n## Tools\n\n",
            );
            for tool in super::tools::all() {
                let definition = tool.definition();
                let description = definition["description"].as_str().unwrap_or_default();
                text.push_str(&format!("- `{}`: {description}\n", tool.name()));
            }
            Ok(vec![text_contents(&read.uri, "text/markdown", text)])
        })
}

/// A prompt that asks the model to run a tool as a task and report.
pub fn try_a_task() -> Prompt {
    Prompt::new(
        "try_a_task",
        "Asks the model to run one of the demo tools as a task and describe what happened.",
    )
    .title("Try a task")
    .argument("tool", "The tool to try", false)
    .complete(
        "tool",
        complete_from(&["process_batch", "hello_world", "http_job", "fetch_url"]),
    )
    .sync(render)
}

fn render(call: &Call) -> Step {
    let tool = call.str_arg("tool").unwrap_or("process_batch");
    Step::complete(
        json!({ "messages": [{ "role": "user", "content": { "type": "text",
        "text": format!("Call the tool {tool} (as a task if it becomes one), follow it with tasks/get until it ends, and tell me what each status meant.") } }] }),
    )
}
