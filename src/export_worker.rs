//! [`export_worker!`](crate::export_worker): the one line of platform code in a server
//! author's crate.

/// Exports the Worker built on `server` (a `fn() -> Server`): its fetch handler and the
/// Durable Object classes `TaskObject`, `SessionObject` and `PrincipalObject` that
/// wrangler.toml binds. One line in the author's crate:
///
/// ```
/// use mcp_tasks_edge::prelude::*;
///
/// pub fn server() -> Server {
///     Server::builder("my-mcp").build()
/// }
///
/// mcp_tasks_edge::export_worker!(server);
/// ```
///
/// A macro, because the platform needs the exports themselves (`#[wasm_bindgen]`
/// items) in the final crate; each one only hands its arguments to
/// `mcp_tasks_edge::cloudflare`, which runs it under the panic guard (a crashed
/// instance answers -32603, a crashed task step is retried). The exports exist in wasm32
/// builds with the `cloudflare` feature; elsewhere (native tests) the line only checks
/// that `server` has the right type.
#[macro_export]
macro_rules! export_worker {
    ($server:path) => {
        const _: fn() -> $crate::server::Server = $server;
        $crate::__export_worker_items!($server);
    };
}

/// Without the `cloudflare` feature there is nothing to export (native `cargo test` of
/// the author's crate). With it, src/cloudflare/export_items.rs defines the exports.
#[cfg(not(feature = "cloudflare"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __export_worker_items {
    ($server:path) => {};
}
