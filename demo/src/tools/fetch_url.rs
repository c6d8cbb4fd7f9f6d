//! `fetch_url`: GET a URL and describe the answer (status, type, size, HTML title).

use super::support::html_title;
use mcp_tasks_edge::prelude::*;

/// Arguments of `fetch_url`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchArgs {
    /// The http(s) URL to GET; its host must be in the server's FETCH_ALLOWED_HOSTS.
    pub url: String,
}

pub fn tool() -> Tool {
    Tool::new(
        "fetch_url",
        "GETs a URL and reports the HTTP status, content type, size in bytes and the HTML <title>. Only hosts the server allows (FETCH_ALLOWED_HOSTS) can be fetched.",
    )
    .title("Fetch a URL")
    .annotations(Annotations::new().read_only().open_world(true))
    .run(fetch_url)
}

/// What `fetch_url` reports (`structuredContent`; the `outputSchema` is derived).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Fetched {
    pub status: u16,
    pub content_type: String,
    pub bytes: usize,
    /// The HTML `<title>`, if the page has one
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

pub async fn fetch_url(call: Call<FetchArgs>, host: Host) -> Result<Output<Fetched>, ToolError> {
    let url = &call.args.url;
    // The outbound policy refuses a host it does not allow before any connection, and
    // checks every redirect the same way.
    let answer = host
        .fetch(get(url.as_str()))
        .await
        .map_err(|e| ToolError::message(format!("Could not fetch {url}: {e}")))?;
    let content_type = answer.header("content-type").unwrap_or("").to_owned();
    let title = html_title(&answer.body);
    let bytes = answer.body.len();
    let mut summary = format!(
        "HTTP {} from {url}: {}, {bytes} bytes",
        answer.status,
        if content_type.is_empty() {
            "no content type"
        } else {
            &content_type
        }
    );
    if let Some(title) = &title {
        summary.push_str(&format!(", title \"{title}\""));
    }
    let fetched = Fetched {
        status: answer.status,
        content_type,
        bytes,
        title,
    };
    Ok(Output::Summary(fetched, summary))
}
