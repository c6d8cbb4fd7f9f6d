//! The bench build's ledger (`ops::counters`): what `GET /__bench/counters` answers, each
//! invocation kind in its own column (tests/bench/cost.mjs reads these names).

use mcp_tasks_edge::jsonrpc::payload;
use mcp_tasks_edge::ops::counters::{Counts, Invocation, Ledger, WORKER, Wasm, snapshot};
use serde_json::json;

#[test]
fn each_invocation_kind_counts_in_its_own_column() {
    let mut ledger = Ledger::new("i".into());
    for kind in [
        Invocation::Request,
        Invocation::Request,
        Invocation::Alarm,
        Invocation::WebSocketMessage,
        Invocation::WebSocketEvent,
    ] {
        ledger.invoked("TaskObject", kind);
    }
    ledger.invoked(WORKER, Invocation::Request);
    ledger.class("TaskObject").rows_written += 3;
    ledger.log_line();
    let task = Counts {
        requests: 2,
        alarms: 1,
        websocket_messages: 1,
        websocket_events: 1,
        rows_read: 0,
        rows_written: 3,
        awake_ms: 0.0,
    };
    let wasm = Wasm {
        calls_in: 5,
        calls_out: 7,
        allocations: 11,
        allocated_bytes: 1024,
    };
    assert_eq!(
        snapshot(Some(&ledger), wasm),
        json!({"instance": "i", "logLines": 1, "classes": {
            "TaskObject": payload(&task),
            "Worker": payload(&Counts { requests: 1, ..Counts::default() }),
        }, "wasm": {"callsIn": 5, "callsOut": 7, "allocations": 11, "allocatedBytes": 1024}})
    );
}

#[test]
fn before_any_count_the_snapshot_is_empty() {
    assert_eq!(
        snapshot(None, Wasm::default()),
        json!({"instance": null, "classes": {}, "logLines": 0,
            "wasm": {"callsIn": 0, "callsOut": 0, "allocations": 0, "allocatedBytes": 0}})
    );
}
