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
    .output_schema(json!({
        "type": "object",
        "properties": {
            "status": { "type": "integer" },
            "contentType": { "type": "string" },
            "bytes": { "type": "integer" },
            "title": { "type": "string" }
        },
        "required": ["status", "contentType", "bytes"]
    }))
    .annotations(json!({ "readOnlyHint": true, "openWorldHint": true }))
    .run(fetch_url)
}

pub async fn fetch_url(call: Call<FetchArgs>, host: Host) -> Result<Step, ToolError> {
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
    let mut structured =
        json!({ "status": answer.status, "contentType": content_type, "bytes": bytes });
    if let Some(title) = title {
        summary.push_str(&format!(", title \"{title}\""));
        structured["title"] = title.into();
    }
    Ok(Step::complete(json!({
        "content": [text(summary)],
        "structuredContent": structured,
        "isError": false
    })))
}
