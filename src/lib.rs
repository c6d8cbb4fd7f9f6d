//! # mcp-tasks-edge
//!
//! An MCP server for protocol revision 2026-07-28 with the Tasks extension
//! (`io.modelcontextprotocol/tasks`, SEP-2663), built for Cloudflare Workers: a stateless
//! request handler compiled to wasm, and one Durable Object per task.
//!
//! ## Map
//!
//! | module | what |
//! |---|---|
//! | [`jsonrpc`] | envelope parsing, ids, error objects and codes |
//! | [`error`] | the domain error enum and its one mapping to the wire and HTTP |
//! | [`http`] | plain HTTP request/response values the adapters translate |
//! | [`mcp`] | `_meta`, request headers, MRTR input requests, `requestState`, schema checks |
//! | [`tasks`] | task wire types, the state machine, the stored record, the object's behaviour |
//! | [`tools`] | the step-function tool API, demo tools and conformance fixtures |
//! | [`server`] | pure dispatch: an HTTP request in, an [`server::Action`] out |
//! | `cloudflare` | (feature `cloudflare`) the Worker entry and the `TaskObject` Durable Object |
//! | `browser` | (feature `browser`) the `McpClient` JS bindings |
//!
//! ## Invariants
//!
//! 1. **The core is pure.** Everything outside `cloudflare` and `browser` does no I/O and
//!    reads no clock or RNG: the time and new ids are arguments. It builds and tests
//!    natively with `cargo test` and no features.
//! 2. **Only the Cloudflare adapter knows `worker`; only the browser adapter knows
//!    `web_sys`.** Features gate them, so a stray import in the core fails to compile.
//! 3. **Task status changes in one place**: [`tasks::machine::apply`]. The Durable Object
//!    only loads, applies (through [`tasks::object`]) and stores.
//! 4. **Storage is the source of truth.** The TaskObject keeps nothing in memory that it
//!    cannot rebuild from storage; a step's checkpoint is stored before the next one runs.
//! 5. **Errors map to the wire in one place**: [`error::McpError::to_wire`] and
//!    [`error::McpError::http_status`].

pub mod error;
pub mod http;
pub mod jsonrpc;
pub mod mcp;
pub mod server;
pub mod tasks;
pub mod time;
pub mod tools;

#[cfg(feature = "cloudflare")]
mod cloudflare;

#[cfg(feature = "browser")]
pub mod browser;
