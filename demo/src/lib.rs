//! The demo server: the tools `make dev` serves, built on the `mcp-tasks-edge` library
//! exactly as a server author's own crate is (docs/authoring.md).
//!
//! [`server`] defines the server; the `entry` module holds the few lines the platform
//! needs in the final wasm: the fetch handler and the Durable Object types (tasks,
//! 2025-11-25 sessions, per-principal quotas), all delegating to the library.

pub mod about;
pub mod tools;

use mcp_tasks_edge::prelude::*;

/// The demo server's definition (built once per isolate).
pub fn server() -> Server {
    Server::builder("mcp-tasks-edge")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions(
            "Tools that take a while run as tasks (io.modelcontextprotocol/tasks): poll tasks/get, answer input_required tasks with tasks/update, stop them with tasks/cancel.",
        )
        .tools(tools::all())
        .resource(about::about())
        .prompt(about::try_a_task())
        .build()
}

#[cfg(target_arch = "wasm32")]
mod entry {
    use mcp_tasks_edge::cloudflare::{self, PrincipalRunner, SessionRunner, TaskRunner};
    use worker::{
        Context, DurableObject, Env, Error, Request, Response, Result, State, WebSocket,
        WebSocketIncomingMessage, durable_object, event, web_sys,
    };

    #[event(fetch)]
    async fn fetch(req: Request, env: Env, _ctx: Context) -> Result<web_sys::Response> {
        cloudflare::fetch(req, env, super::server).await
    }

    /// One object per task (wrangler.toml: binding `TASKS`, class `TaskObject`).
    #[durable_object]
    pub struct TaskObject(TaskRunner);

    impl DurableObject for TaskObject {
        fn new(state: State, env: Env) -> Self {
            TaskObject(TaskRunner::new(state, env, super::server))
        }

        async fn fetch(&self, req: Request) -> Result<Response> {
            self.0.fetch(req).await
        }

        async fn alarm(&self) -> Result<Response> {
            self.0.alarm().await
        }

        // The sockets of listen streams watching the task (pushed notifications).
        async fn websocket_message(
            &self,
            ws: WebSocket,
            message: WebSocketIncomingMessage,
        ) -> Result<()> {
            self.0.websocket_message(ws, message).await
        }

        async fn websocket_close(
            &self,
            ws: WebSocket,
            code: usize,
            reason: String,
            was_clean: bool,
        ) -> Result<()> {
            self.0.websocket_close(ws, code, reason, was_clean).await
        }

        async fn websocket_error(&self, ws: WebSocket, error: Error) -> Result<()> {
            self.0.websocket_error(ws, error).await
        }
    }

    /// One object per 2025-11-25 session (wrangler.toml: binding `SESSIONS`).
    #[durable_object]
    pub struct SessionObject(SessionRunner);

    impl DurableObject for SessionObject {
        fn new(state: State, env: Env) -> Self {
            SessionObject(SessionRunner::new(state, env, super::server))
        }

        async fn fetch(&self, req: Request) -> Result<Response> {
            self.0.fetch(req).await
        }

        // An idle session's expiry.
        async fn alarm(&self) -> Result<Response> {
            self.0.alarm().await
        }
    }

    /// One object per principal: its quota counters (wrangler.toml: binding
    /// `PRINCIPALS`, class `PrincipalObject`).
    #[durable_object]
    pub struct PrincipalObject(PrincipalRunner);

    impl DurableObject for PrincipalObject {
        fn new(state: State, env: Env) -> Self {
            PrincipalObject(PrincipalRunner::new(state, env))
        }

        async fn fetch(&self, req: Request) -> Result<Response> {
            self.0.fetch(req).await
        }

        // An abandoned principal's cleanup.
        async fn alarm(&self) -> Result<Response> {
            self.0.alarm().await
        }
    }
}
