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
//! | [`jsonrpc`] | envelope parsing, ids, error objects and codes, reading tagged internal messages |
//! | [`error`] | the domain error enum and its one mapping to the wire and HTTP |
//! | [`http`] | plain HTTP request/response values the adapters translate |
//! | [`mcp`] | `_meta`, request headers, MRTR input requests, `requestState`, schema checks |
//! | [`tasks`] | task wire types, the state machine, the stored record, the object's behaviour |
//! | [`host`] | what a step reaches: outbound HTTP, vars, secrets, KV, D1 (and a fake for tests) |
//! | [`tools`] | the tool API ([`tools::Tool`], [`tools::Step`], [`tools::Call`]) |
//! | `fixtures` | (feature `fixtures`) the conformance suite's tools, resources and prompts |
//! | `gateway` | (feature `gateway`) this server in front of existing MCP servers: their tools as tools of its own |
//! | [`catalog`] | resources, resource templates, prompts and completions |
//! | [`legacy`] | the 2025-11-25 era: sessions, result and legacy task shapes |
//! | [`auth`] | who is calling: OAuth resource server (PRM, JWT claims, challenges), API keys, anonymous |
//! | [`pairs`] | [`pairs::Pairs`], a small map as a sorted list, serialized as a `BTreeMap` is |
//! | [`concurrent`] | single-threaded joins and a many-producers queue, without an executor's code |
//! | [`quota`] | per-principal quotas: the ledger a principal's Durable Object keeps |
//! | [`server`] | pure dispatch: an HTTP request in, an [`server::Action`] out |
//! | [`objects`] | what the Durable Objects do, generic over their platform: load, decide, write once, then the effects |
//! | [`ops`] | operating it: the structured log vocabulary and format, the operator's requests |
//! | [`time`] | timestamps formatted from the "now" the caller passes (no clock) |
//! | `cloudflare` | (feature `cloudflare`) the Worker entry and the task, session and principal Durable Objects, for the author's crate to export |
//! | `browser` | (feature `browser`) the `McpClient` JS bindings |
//!
//! ## Invariants
//!
//! (docs/architecture.md has them with the map, the request flow and the task flow.)
//!
//! 1. **The core is pure.** Everything outside `cloudflare` and `browser` does no I/O and
//!    reads no clock or RNG: the time and new ids are arguments, and a tool step reaches
//!    the platform only through the [`host::Host`] it is given (the adapter's, or a fake);
//!    an object's runner ([`objects`], [`legacy::object`]) only through its platform trait.
//!    It builds and tests natively with `cargo test` and no features.
//! 2. **Only the Cloudflare adapter knows `worker`; only the browser adapter knows
//!    `web_sys`.** Features gate them, so a stray import in the core fails to compile.
//! 3. **Task status changes in one place**: [`tasks::machine::apply`]. Every Durable
//!    Object only loads, asks a pure planner ([`tasks::object`], [`legacy::plan`],
//!    [`quota::plan`]), applies and stores.
//! 4. **Storage is the source of truth.** The TaskObject keeps nothing in memory that it
//!    cannot rebuild from storage; a step's checkpoint is stored before the next one runs.
//! 5. **Errors map to the wire in one place**: [`error::McpError::to_wire`] and
//!    [`error::McpError::http_status`].

mod export_worker;

pub mod auth;
pub mod catalog;
pub mod concurrent;
pub mod error;
#[cfg(feature = "fixtures")]
pub mod fixtures;
#[cfg(feature = "gateway")]
pub mod gateway;
pub mod host;
pub mod http;
pub mod jsonrpc;
pub mod legacy;
pub mod mcp;
pub mod objects;
pub mod ops;
pub mod pairs;
pub mod quota;
pub mod server;
pub mod tasks;
pub mod time;
pub mod tools;
pub mod uri;
pub mod vars;

#[cfg(feature = "cloudflare")]
pub mod cloudflare;

/// Everything a server author needs in one `use mcp_tasks_edge::prelude::*;`.
pub mod prelude {
    pub use crate::host::{Host, HostError, Inbound, Outbound, get, post};
    pub use crate::mcp::input::{Elicited, elicit_form, elicit_url, list_roots, sample_text};
    pub use crate::server::{Config, Server, ServerBuilder};
    pub use crate::tools::{
        Annotations, Answer, Call, IntoStep, Output, Step, StepResult, TaskSupport, Tool,
        ToolError, error_result, text, text_result,
    };
    pub use schemars::{self, JsonSchema};
    pub use serde::{self, Deserialize, Serialize};
    pub use serde_json::{self, Map, Value, json};
    pub use std::time::Duration;
}

#[cfg(feature = "browser")]
pub mod browser;
