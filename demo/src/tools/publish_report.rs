//! `publish_report`: works a while, then asks. Renders a report page by page (one step a
//! page, each `delayMs` apart), then asks whether to publish it: a question late in a run,
//! as a real report tool asks. Declared with `Tool::asks`, so a call that would become a
//! task of a client that cannot be asked is refused before the first page, not at the
//! question with its pages thrown away.

use mcp_tasks_edge::prelude::*;

pub fn tool() -> Tool {
    Tool::new(
        "publish_report",
        "Renders a report page by page, then asks whether to publish it (always, at the end). Needs a client that declares elicitation to run as a task; without the Tasks extension it runs as a job whose question job_answer answers.",
    )
    .title("Publish a report (asks at the end)")
    .task(TaskSupport::Optional)
    .asks()
    .run(publish)
}

/// Arguments of `publish_report`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Report {
    /// Pages to render
    #[schemars(range(min = 1, max = 100))]
    pages: u32,
    /// Milliseconds between pages
    #[serde(default = "default_delay")]
    #[schemars(range(min = 0, max = 60000))]
    delay_ms: u64,
}

fn default_delay() -> u64 {
    1000
}

/// What it asks once the pages are rendered.
#[derive(Deserialize, JsonSchema)]
struct Publish {
    /// Publish the report now?
    publish: bool,
}

async fn publish(call: Call<Report>, _host: Host) -> Result<Step, ToolError> {
    let rendered = call.checkpoint::<u32>()?.unwrap_or(0);
    let pages = call.args.pages;
    if rendered < pages {
        let done = rendered + 1;
        let wait = if done < pages { call.args.delay_ms } else { 0 };
        return Ok(Step::wait(Duration::from_millis(wait))
            .checkpoint(done)
            .message(format!("Rendered page {done}/{pages}")));
    }
    let message = format!("{pages} pages are rendered. Publish the report?");
    Ok(match call.ask::<Publish>("publish", &message)? {
        Answer::Accept(Publish { publish: true }) => {
            Step::text(format!("Published {pages} pages."))
        }
        _ => Step::text(format!("Kept {pages} pages as a draft.")),
    })
}
