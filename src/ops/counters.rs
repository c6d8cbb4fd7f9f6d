//! The ledger of what Cloudflare bills, kept by a bench build (the `bench-counters`
//! feature: src/cloudflare/bench.rs says what is counted and when; tests/bench/cost.mjs
//! reads it from `GET /__bench/counters`). Pure bookkeeping: the adapter decides that
//! something billable happened and reports it here; nothing in this module does I/O.

use crate::jsonrpc::{Empty, payload};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The Worker, as the counts name it (an object is named by its class).
pub const WORKER: &str = "Worker";

/// What an object is invoked for: a request, an alarm, a WebSocket message (each
/// counted), or another WebSocket event (close, error: counted apart, not billed as
/// requests, but invocations each with an execution log).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Invocation {
    Request,
    Alarm,
    WebSocketMessage,
    WebSocketEvent,
}

/// One class's counts.
#[derive(Debug, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub requests: u64,
    pub alarms: u64,
    pub websocket_messages: u64,
    pub websocket_events: u64,
    pub rows_read: u64,
    pub rows_written: u64,
    pub awake_ms: f64,
}

/// The counts of one wasm instance since its first count.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ledger {
    /// Drawn at the first count: a new value means the counts started again.
    instance: String,
    classes: BTreeMap<&'static str, Counts>,
    /// Structured log lines printed, whoever printed them.
    log_lines: u64,
}

/// The counts before any was made.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NoLedger {
    instance: (),
    classes: Empty,
    log_lines: u64,
}

impl Ledger {
    pub fn new(instance: String) -> Ledger {
        Ledger {
            instance,
            classes: BTreeMap::new(),
            log_lines: 0,
        }
    }

    /// The counts of `class` (the Worker or an object class), to add to.
    pub fn class(&mut self, class: &'static str) -> &mut Counts {
        self.classes.entry(class).or_default()
    }

    /// One invocation of `class` for `kind`.
    pub fn invoked(&mut self, class: &'static str, kind: Invocation) {
        let counts = self.class(class);
        match kind {
            Invocation::Request => counts.requests += 1,
            Invocation::Alarm => counts.alarms += 1,
            Invocation::WebSocketMessage => counts.websocket_messages += 1,
            Invocation::WebSocketEvent => counts.websocket_events += 1,
        }
    }

    /// A structured log line was printed.
    pub fn log_line(&mut self) {
        self.log_lines += 1;
    }
}

/// What crossed the wasm boundary and what the allocator did, since the wasm instance
/// started: calls into the instance (the Worker's and the objects' handlers, the JS glue's
/// `malloc`, callbacks of promises), calls out of it (every runtime API the Rust side
/// uses), and allocations (`alloc` and `realloc`) with their bytes.
#[derive(Debug, Default, Clone, Copy, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Wasm {
    pub calls_in: u64,
    pub calls_out: u64,
    pub allocations: u64,
    pub allocated_bytes: u64,
}

/// The counts as JSON: `{instance, classes: {class: {requests, alarms, ...}}, logLines,
/// wasm}`, `instance: null` and no class counted before the first count.
pub fn snapshot(ledger: Option<&Ledger>, wasm: Wasm) -> Value {
    let mut counts = match ledger {
        Some(ledger) => payload(ledger),
        None => payload(&NoLedger {
            instance: (),
            classes: Empty {},
            log_lines: 0,
        }),
    };
    counts["wasm"] = payload(&wasm);
    counts
}
