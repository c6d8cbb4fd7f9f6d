//! MCP 2026-07-28 protocol pieces: per-request `_meta`, request headers, input requests
//! (MRTR), `requestState`, and schema validation.

pub mod headers;
pub mod identity;
pub mod input;
pub mod meta;
pub mod params;
pub mod request_state;
pub mod schema;

use serde::Serialize;

/// `TextContent`: a content block of text.
#[derive(Serialize)]
pub struct TextContent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

impl<'a> TextContent<'a> {
    pub fn new(text: &'a str) -> Self {
        TextContent { kind: "text", text }
    }
}

/// `Implementation`: a server's (or client's) name and version.
#[derive(Serialize)]
pub struct Implementation<'a> {
    pub name: &'a str,
    pub version: &'a str,
}
