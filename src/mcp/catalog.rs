//! Prompts and resources. The server is about tools and tasks; it offers one readable
//! resource describing itself, and (with fixtures on) the prompt the MRTR conformance
//! scenario needs, so `prompts/*` and `resources/*` are real, not stubs.

use crate::tools::Registry;
use serde_json::{Value, json};

pub const FIXTURE_PROMPT: &str = "test_input_required_result_prompt";
pub const ABOUT_URI: &str = "mcp-tasks://server/about";

pub fn prompts(fixtures: bool) -> Vec<Value> {
    if !fixtures {
        return Vec::new();
    }
    vec![json!({
        "name": FIXTURE_PROMPT,
        "description": "A prompt that asks the user for context (MRTR) before it renders.",
        "arguments": []
    })]
}

pub fn resources() -> Vec<Value> {
    vec![json!({
        "uri": ABOUT_URI,
        "name": "about",
        "title": "About this server",
        "description": "What this server offers and how its tasks work.",
        "mimeType": "text/markdown"
    })]
}

/// The contents of a resource, or `None` for an unknown URI.
pub fn read(registry: &Registry, uri: &str) -> Option<Value> {
    if uri != ABOUT_URI {
        return None;
    }
    let mut text = String::from(
        "# MCP Tasks on the edge\n\nEvery long-running tool call becomes a task held by its own Durable Object.\n\n## Tools\n\n",
    );
    for tool in registry.definitions() {
        let name = tool["name"].as_str().unwrap_or_default();
        let description = tool["description"].as_str().unwrap_or_default();
        text.push_str(&format!("- `{name}`: {description}\n"));
    }
    Some(json!({ "uri": ABOUT_URI, "mimeType": "text/markdown", "text": text }))
}
