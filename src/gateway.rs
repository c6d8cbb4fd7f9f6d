//! The gateway: this server in front of MCP servers that exist ("upstreams"), unchanged,
//! so that every host gets their tools with tasks, jobs, quotas, logs and the console
//! (docs/gateway.md).
//!
//! An upstream tool is a [`Tool`](crate::tools::Tool) like any other: its definition is
//! the upstream's (fetched, bounded and validated by [`catalog`]), and its step calls the
//! upstream ([`step`]) through the [`Host`](crate::host::Host), so the outbound policy,
//! the bounds on answers, tasks, jobs, quotas and logs need nothing new. The gateway speaks
//! to each upstream in its own era ([`client`]: 2026-07-28 where `server/discover` says so,
//! else 2025-11-25). What a step does depends on where it runs and on what the upstream
//! offers:
//!
//! ```text
//! in the Worker (first step)   upstream with tasks: the call (its answer is a task, a result
//!                              or questions); repeatable tool: the call, within
//!                              UPSTREAM_INLINE_MS; anything else: straight to the task object
//! in the task object           an upstream task followed by id (poll at its interval): a
//!                              restart repeats nothing; a synchronous call: "calling" stored,
//!                              then the call held; one interrupted mid-way is made again only
//!                              for a repeatable tool, else the task fails saying why
//! either                       the upstream's questions (MRTR, or in its task) are the
//!                              call's or the task's; the answers go back upstream
//! ```
//!
//! Credentials never cross: the host's stay at the gateway, the upstream gets the
//! gateway's own (a secret named in the configuration).

pub mod catalog;
pub mod client;
mod config;
pub mod sse;
pub mod step;
pub mod watch;

pub use config::{Settings, Upstream};
