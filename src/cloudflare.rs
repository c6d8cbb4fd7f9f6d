//! The Cloudflare adapter: the Worker's fetch entry and the task, session and principal
//! Durable Objects. It translates `worker` types to the core's plain HTTP values, performs
//! the I/O a [`crate::server::Action`] asks for, and nothing else.
//!
//! A server author's crate exports all of it with one line (docs/authoring.md):
//!
//! ```text
//! mcp_tasks_edge::export_worker!(server);
//! ```
//!
//! [`crate::export_worker!`] writes the `#[wasm_bindgen]` exports the platform needs in
//! the final crate (the `fetch` handler and the `TaskObject`, `SessionObject` and
//! `PrincipalObject` classes); they run [`fetch`], [`TaskRunner`], [`SessionRunner`] and
//! [`PrincipalRunner`] under the panic guard (`guard.js`). A crate that needs its own
//! entry (more routes, other objects) can call those four directly from `worker`'s
//! `#[event(fetch)]` and `#[durable_object]` items instead (without the guard).

mod auth;
mod bench;
mod creation;
mod effects;
mod entry;
mod exchange;
#[doc(hidden)]
pub mod export;
mod export_items;
mod host;
mod http;
mod js_api;
mod leave;
mod listen;
mod log;
mod mirror;
pub(crate) mod principal_object;
mod progress;
mod registry_object;
mod rpc;
mod session_object;
mod sockets;
mod sse;
mod stream;
mod task_object;
#[cfg(feature = "gateway")]
mod upstream_object;
mod upstreams;
mod watcher;

pub use entry::fetch;
pub use host::{WorkerHost, env};
pub use principal_object::{PRINCIPALS_BINDING, PrincipalRunner};
pub use session_object::SessionRunner;
pub use task_object::TaskRunner;
#[cfg(feature = "gateway")]
pub use upstream_object::UpstreamRunner;
#[cfg(feature = "gateway")]
pub use upstreams::WATCHERS_BINDING;

pub(crate) use creation::task_ended;
pub(crate) use http::{read_whole_body, to_worker_response};

use crate::server::Server;
use crate::tasks::calls::Class;
use crate::tasks::id;
use std::cell::OnceCell;
use std::rc::Rc;
use worker::{Date, Env};

/// The Durable Object binding names (wrangler.toml).
pub const TASKS_BINDING: &str = Class::Tasks.binding();
pub const SESSIONS_BINDING: &str = Class::Sessions.binding();

thread_local! {
    /// One server per isolate: configuration is fixed for the isolate's life.
    static SERVER: OnceCell<Result<Rc<Server>, (crate::error::McpError, String)>> = const { OnceCell::new() };
}

/// The isolate's server: the author's definition with the deployment's variables
/// applied, built on first use. A bad definition or variable is an error on every
/// request, saying what is wrong.
pub(crate) fn server(env: &Env, build: fn() -> Server) -> worker::Result<Rc<Server>> {
    built(env, build).map_err(|(_, why)| worker::Error::RustError(why))
}

/// [`server`], or the refusal a client gets instead (the variable to fix, not its value)
/// and the whole reason, for the log.
pub(crate) fn built(
    env: &Env,
    build: fn() -> Server,
) -> Result<Rc<Server>, (crate::error::McpError, String)> {
    SERVER.with(|cell| {
        let server = cell.get_or_init(|| {
            let var = |name: &str| env.var(name).ok().map(|v| v.to_string());
            build().deployed(var).map(Rc::new)
        });
        server.clone()
    })
}

/// A refusal of the core, or any other error, as the runtime's error (the guard logs it
/// and answers JSON-RPC -32603).
pub(crate) fn rust_error(e: impl std::fmt::Display) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

pub(crate) fn now_ms() -> u64 {
    Date::now().as_millis()
}

pub(crate) fn new_task_id() -> worker::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| worker::Error::RustError(format!("no randomness: {e}")))?;
    Ok(id::format(bytes))
}
