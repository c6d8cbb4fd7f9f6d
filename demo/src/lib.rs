//! The demo server: the tools `make dev` serves, built on the `mcp-tasks-edge` library
//! exactly as a server author's own crate is (docs/authoring.md).
//!
//! [`server`] defines the server; one line exports it to the platform: the fetch
//! handler and the Durable Object classes (tasks, 2025-11-25 sessions, per-principal
//! quotas), all in the library.

pub mod about;
pub mod tools;

use mcp_tasks_edge::prelude::*;

/// The demo server's definition (built once per isolate).
pub fn server() -> Server {
    Server::builder("mcp-tasks-edge")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions(
            "Tools that take a while run as tasks for clients that declare io.modelcontextprotocol/tasks: poll tasks/get, answer input_required tasks with tasks/update, stop them with tasks/cancel. For other clients a long call answers with a job handle: read the job with job_status (waitSeconds to wait for its end), answer its questions with job_answer, stop it with job_cancel.",
        )
        .tools(tools::all())
        .resource(about::about())
        .prompt(about::try_a_task())
        .build()
}

mcp_tasks_edge::export_worker!(server);
