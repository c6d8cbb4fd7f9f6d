//! An MCP server of your own tools, on the mcp-tasks-edge library, for Cloudflare Workers.
//!
//! [`server`] says what the server offers; the last line exports it to the platform (the
//! Worker's fetch handler and the Durable Objects wrangler.toml binds).

pub mod approve;
pub mod check_links;
pub mod decisions;
pub mod word_count;

use mcp_tasks_edge::prelude::*;

/// The server: its name and tools (built once per isolate).
pub fn server() -> Server {
    Server::builder("my-mcp")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(word_count::tool())
        .tool(check_links::tool())
        .tool(approve::tool())
        .tool(decisions::tool())
        .build()
}

mcp_tasks_edge::export_worker!(server);
