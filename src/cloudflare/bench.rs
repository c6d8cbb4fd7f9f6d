//! Counts of what Cloudflare bills, in a bench build only (the `bench-counters` feature;
//! tests/bench/cost.mjs reads them). Without the feature every item here is empty and
//! inlined away: the normal build does not count, store or route anything.
//!
//! What is counted, per class (the Worker, `TaskObject`, `SessionObject`,
//! `PrincipalObject`), as <https://developers.cloudflare.com/durable-objects/platform/pricing>
//! bills it:
//! - `requests`: the Worker's fetches (but `GET /__bench/counters` itself), an object's
//!   fetches (every stub fetch, object-to-object ones included, counts at the callee);
//! - `alarms`: alarm invocations of an object;
//! - `websocketMessages`: messages an object receives (billed at 20:1 as requests);
//! - `websocketEvents`: the other WebSocket events an object handles (close, error);
//! - `rowsRead` / `rowsWritten`: the storage API's keys, one row each: a key asked by
//!   `get`/`get_multiple` (found or not), an entry `list` returns, a key `put` or deleted,
//!   `set_alarm` one row written (as tests/bench/prices.mjs's sources say; `delete_alarm`
//!   too, assumed alike), and `delete_all` one row written per key
//!   it deletes (counted by a `list` before it, in this build only and not itself counted);
//! - `awakeMs`: wall time an object instance has at least one invocation running (from an
//!   invocation's start to its end, overlapping ones merged): an approximation of the
//!   billed duration, which also runs while an object is idle but cannot hibernate. (workerd's
//!   `Date.now()` moves only across I/O: the time is the awaits', not CPU-only work's.)
//! - `logLines` (not per class): the structured log lines printed, each a billed event with
//!   Workers Logs, as is every invocation's own execution log.
//! - `wasm` (not billed, not per class): the calls across the wasm boundary each way
//!   (`bench/boundary.js`) and the allocations with their bytes (`bench/alloc.rs`), since
//!   the instance started (tests/bench/boundary.mjs).
//!
//! The counts live in this module's per-isolate global (the wasm instance's memory), where
//! the Worker and every object of this script add to them. That is sound under
//! `wrangler dev`, which runs the Worker and all its Durable Objects in one workerd
//! isolate: an object's eviction loses nothing. It is not on Cloudflare (many isolates,
//! many machines), and a crash (the wasm instance reinitialised) starts the counts again:
//! the route names the instance (`instance`, drawn at its first count) so a reader can tell.

/// The object classes, as the counts name them.
pub(crate) const TASK: &str = "TaskObject";
pub(crate) const SESSION: &str = "SessionObject";
pub(crate) const PRINCIPAL: &str = "PrincipalObject";
#[cfg(feature = "gateway")]
pub(crate) const UPSTREAM: &str = "UpstreamObject";

pub(crate) use crate::ops::counters::Invocation;

#[cfg(feature = "bench-counters")]
mod alloc;
#[cfg(feature = "bench-counters")]
mod on;
#[cfg(feature = "bench-counters")]
pub(crate) use on::*;

#[cfg(not(feature = "bench-counters"))]
mod off {
    use super::Invocation;
    use std::future::Future;
    use worker::{Storage, web_sys};

    #[inline(always)]
    pub(crate) fn rows_read(_class: &'static str, _rows: usize) {}

    #[inline(always)]
    pub(crate) fn log_line() {}

    #[inline(always)]
    pub(crate) fn rows_written(_class: &'static str, _rows: usize) {}

    #[inline(always)]
    pub(crate) async fn before_delete_all(_class: &'static str, _storage: &Storage) {}

    /// The Worker's request: nothing to answer or count.
    #[inline(always)]
    pub(crate) fn worker_request(_req: &web_sys::Request) -> Option<web_sys::Response> {
        None
    }

    /// An object instance's meter: nothing.
    #[derive(Clone, Copy, Default)]
    pub(crate) struct Meter;

    impl Meter {
        #[inline(always)]
        pub(crate) fn new(_class: &'static str) -> Self {
            Meter
        }

        #[inline(always)]
        pub(crate) fn run<F: Future>(&self, _kind: Invocation, work: F) -> F {
            work
        }
    }
}
#[cfg(not(feature = "bench-counters"))]
pub(crate) use off::*;
