//! Helpers the I/O tools share: `Retry-After`, HTML titles. (Which hosts they may reach
//! is the library's outbound policy, `FETCH_ALLOWED_HOSTS`, applied by `host.fetch`.)

use mcp_tasks_edge::prelude::*;
use std::time::Duration;

/// `Retry-After` in seconds (RFC 9110 §10.2.3), clamped to 1–60 s; 1 s when absent or
/// given as an HTTP date.
pub fn retry_after(answer: &Inbound) -> Duration {
    let seconds = answer
        .header("retry-after")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(1)
        .clamp(1, 60);
    Duration::from_secs(seconds)
}

/// The text of the first `<title>` element, whitespace collapsed and the common
/// entities decoded.
pub fn html_title(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    let lower = text.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    let raw = text[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let decoded = raw
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    (!decoded.is_empty()).then_some(decoded)
}

/// A short, printable excerpt of a body for error messages.
pub fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut short: String = text.chars().take(200).collect();
    if text.chars().count() > 200 {
        short.push('…');
    }
    short
}
