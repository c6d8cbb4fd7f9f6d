//! `check_links`: a long tool. Each step GETs one URL through `host.fetch` (the
//! library's outbound policy: only hosts in FETCH_ALLOWED_HOSTS), stores what it found in
//! the checkpoint and reports progress. With the Tasks extension the call is a task: its
//! `statusMessage` shows the progress, and `tasks/cancel` stops it between any two URLs
//! (each wait is an alarm, not a sleep). A step may run twice if its instance dies
//! mid-step; a GET is safe to repeat.

use mcp_tasks_edge::prelude::*;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Args {
    /// The http(s) URLs to check, in order
    #[schemars(length(min = 1, max = 20))]
    pub urls: Vec<String>,
    /// Milliseconds to wait between two requests (be polite to the servers)
    #[serde(default)]
    #[schemars(range(max = 10000))]
    pub delay_ms: u64,
}

/// What one URL answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Link {
    pub url: String,
    /// The HTTP status, if the request got an answer
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Whether the link works: a 2xx answer
    pub ok: bool,
    /// Why there was no answer (refused by the outbound policy, network error, timeout)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The result: every link, and how many are broken.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    pub links: Vec<Link>,
    pub broken: usize,
}

pub fn tool() -> Tool {
    Tool::new(
        "check_links",
        "Checks that each URL answers (GET, redirects followed), one URL at a time, reporting progress. Runs as a task for clients with the Tasks extension; cancel it at any point.",
    )
    .title("Check links")
    .annotations(Annotations::new().read_only().open_world(true))
    .task(TaskSupport::Optional)
    .ttl(Duration::from_secs(3600))
    .run(check_links)
}

pub async fn check_links(call: Call<Args>, host: Host) -> Result<Output<Report>, ToolError> {
    // The links checked so far: the checkpoint the previous step stored.
    let mut links: Vec<Link> = call.checkpoint()?.unwrap_or_default();
    let urls = &call.args.urls;
    if let Some(url) = urls.get(links.len()) {
        let request = get(url.as_str()).timeout(Duration::from_secs(10));
        links.push(match host.fetch(request).await {
            Ok(answer) => Link {
                url: url.clone(),
                status: Some(answer.status),
                ok: (200..300).contains(&answer.status),
                error: None,
            },
            Err(e) => Link {
                url: url.clone(),
                status: None,
                ok: false,
                error: Some(e.to_string()),
            },
        });
        let (done, total) = (links.len(), urls.len());
        // Inside a task this becomes its statusMessage ("1/3: checked https://…").
        call.progress(
            done as f64,
            Some(total as f64),
            Some(&format!("checked {url}")),
        );
        if done < total {
            return Ok(Step::wait(Duration::from_millis(call.args.delay_ms))
                .checkpoint(links)
                .into());
        }
    }
    let broken = links.iter().filter(|link| !link.ok).count();
    Ok(Output::Done(Report { links, broken }))
}
