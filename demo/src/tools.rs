//! The demo tools, one file each.

mod elicitation;
mod fetch_url;
mod http_job;
mod process_batch;
mod publish_report;
mod support;

pub use fetch_url::{FetchArgs, fetch_url};
pub use http_job::{JobArgs, http_job};

use mcp_tasks_edge::prelude::*;

/// Every demo tool, in `tools/list` order.
pub fn all() -> Vec<Tool> {
    vec![
        Tool::new(
            "echo",
            "Returns the given text unchanged. A synchronous tool: it never creates a task.",
        )
        .title("Echo")
        .run(echo),
        elicitation::hello_world(),
        elicitation::approve_release(),
        process_batch::tool(),
        publish_report::tool(),
        elicitation::read_the_spec(),
        fetch_url::tool(),
        http_job::tool(),
    ]
}

/// Arguments of `echo`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// Text to echo back
    pub text: String,
}

async fn echo(call: Call<EchoArgs>, _host: Host) -> Result<Step, ToolError> {
    Ok(Step::text(call.args.text))
}
