//! A listen stream's slot in its principal's ledger (`src/server/slot.rs`), on a ledger
//! that records each request: none without the quota; a full quota refuses the stream;
//! a renewal only when `RENEW_MS` has passed; the slot given back at
//! the end; a renewal or release the ledger fails is a log line, not a silence.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::jsonrpc;
use mcp_tasks_edge::ops::log::{Line, LogSettings};
use mcp_tasks_edge::quota::{LedgerRequest, Quotas, RENEW_MS};
use mcp_tasks_edge::server::slot::{Ledgers, StreamSlot};
use std::cell::{Cell, RefCell};

/// Records "op principal" per request; refuses every request while `refusing`.
#[derive(Default)]
struct Ledger {
    asked: RefCell<Vec<String>>,
    refusing: Cell<bool>,
}

impl Ledgers for Ledger {
    async fn ledger(&self, principal: &str, request: &LedgerRequest) -> Result<(), McpError> {
        let op = jsonrpc::payload(request)["op"].as_str().unwrap().to_owned();
        self.asked.borrow_mut().push(format!("{op} {principal}"));
        match self.refusing.get() {
            true => Err(McpError::TooManyRequests {
                limit: "QUOTA_LISTEN_STREAMS",
                max: 10,
                retry_after_s: 5,
            }),
            false => Ok(()),
        }
    }
}

fn text(line: Option<Line>) -> String {
    line.expect("a log line")
        .render(&LogSettings::default())
        .unwrap()
}

fn acquire(l: &Ledger, quotas: Quotas) -> Result<Option<StreamSlot>, McpError> {
    block_on(StreamSlot::acquire(
        l,
        quotas,
        "key:alice",
        "s1".into(),
        1_000,
    ))
}

#[test]
fn without_the_quota_no_slot_is_taken() {
    let l = Ledger::default();
    let quotas = Quotas {
        listen_streams: None,
        ..Quotas::default()
    };
    assert!(acquire(&l, quotas).unwrap().is_none());
    assert!(l.asked.borrow().is_empty());
}

#[test]
fn a_full_quota_refuses_the_stream() {
    let l = Ledger::default();
    l.refusing.set(true);
    let error = acquire(&l, Quotas::default()).unwrap_err();
    assert_eq!(error.http_status(), 429);
    assert!(error.to_wire().message.contains("QUOTA_LISTEN_STREAMS"));
}

#[test]
fn a_slot_is_renewed_when_due_and_given_back_and_failures_are_logged() {
    let l = Ledger::default();
    let slot = acquire(&l, Quotas::default()).unwrap().expect("a slot");
    assert!(block_on(slot.keep(&l, 1_000 + RENEW_MS - 1)).is_none());
    assert_eq!(l.asked.borrow().len(), 1, "not due yet");
    assert!(block_on(slot.keep(&l, 1_000 + RENEW_MS)).is_none());
    l.refusing.set(true);
    let failed = block_on(slot.keep(&l, 1_000 + 2 * RENEW_MS));
    assert!(text(failed).contains("could not renew"), "logged");
    let failed = block_on(slot.release(&l));
    assert!(text(failed).contains("could not release"), "logged");
    let asked = l.asked.borrow().clone();
    let each = |op: &str| format!("{op} key:alice");
    let expected = [
        each("acquireStream"),
        each("acquireStream"),
        each("acquireStream"),
        each("releaseStream"),
    ];
    assert_eq!(asked, expected);
}
