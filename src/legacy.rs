//! The 2025-11-25 era on the same endpoint (spec-2026-07-28 basic/versioning "Backward
//! Compatibility"): `initialize` and `Mcp-Session-Id` sessions, server→client requests on
//! response streams, logging, resource subscriptions, and the legacy experimental tasks
//! on the same task objects. Everything of this era is here: the decisions are pure
//! ([`plan`]), and the session object's runner ([`object`], with [`result_loop`]) performs
//! them in one order on any platform, which the Cloudflare object
//! (`cloudflare::session_object`) and the native tests implement. This module uses the
//! modern core (`server`); the core never uses it.
//!
//! # Format
//!
//! ```text
//! POST /mcp {"method":"initialize","params":{"protocolVersion":"2025-11-25",...}}
//!   → 200 {"result":{"protocolVersion":"2025-11-25","capabilities":{...},"serverInfo":{...}}}
//!     Mcp-Session-Id: 3f0c…                         (32 hex digits, CSPRNG, drawn by the server)
//! POST /mcp  Mcp-Session-Id: 3f0c…  {"method":"tools/call",...}
//!   → 200 text/event-stream: notifications/progress, notifications/message,
//!     server→client requests (elicitation/create, sampling/createMessage, roots/list),
//!     then the response
//! POST /mcp  Mcp-Session-Id: 3f0c…  {"id":"9c1e…","result":{...}}   (an answer) → 202
//! GET  /mcp  Mcp-Session-Id: 3f0c…   → text/event-stream (notifications/resources/updated)
//! DELETE /mcp Mcp-Session-Id: 3f0c…  → 204; the session is gone (404 afterwards)
//! ```
//!
//! Every request on a session is checked against the principal that opened it; any other
//! principal gets the 404 of an unknown session ([`plan`]).

pub mod asking;
mod heads;
pub mod in_flight;
pub mod memory;
pub mod modern;
pub mod notices;
pub mod object;
pub mod plan;
pub mod questions;
pub mod reach;
pub mod replay;
pub mod result_loop;
mod results;
pub mod resumable;
mod route;
mod session;
pub mod subscribers;
pub mod task_ops;
pub mod tasks;
pub mod turn;

pub use crate::server::era::{legacy_body, legacy_result};
pub use heads::Heads;
pub use plan::{Decision, Incoming, TaskOp};
pub use questions::Questions;
pub use results::{legacy_tools, needs_task};
pub use route::{Route, route};
pub use session::{MAX_REACHED, Reach, Session, capabilities_of, initialize};
pub use tasks::{
    RELATED_TASK, ResultStep, legacy_task, result_step, still_asking, task_params, task_record,
    task_result,
};

/// The header naming a session.
pub const SESSION_HEADER: &str = "mcp-session-id";
/// The versions this server speaks in the legacy era, newest first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The modern version every legacy request is translated to.
pub const MODERN: &str = "2026-07-28";
