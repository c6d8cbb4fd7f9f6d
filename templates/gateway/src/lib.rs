//! A gateway: this Worker offers the tools of the MCP servers that `UPSTREAMS` lists in
//! wrangler.toml (docs/gateway.md), with tasks, jobs, quotas and logs. It has no tools of
//! its own; add some with `.tool(…)` (docs/authoring.md) and they are listed beside the
//! upstreams'.

use mcp_tasks_edge::prelude::*;

pub fn server() -> Server {
    Server::builder("my-gateway")
        .instructions("Tools of other MCP servers: slow ones run as tasks, or as jobs with a handle for hosts without tasks.")
        .build()
}

mcp_tasks_edge::export_worker!(server);
