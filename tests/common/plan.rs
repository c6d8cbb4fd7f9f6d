//! What the 2025-11-25 planner tests share (tests/legacy_plan.rs,
//! tests/legacy_plan_owner.rs): a session's owner, request bodies, a session opened as the
//! object would open it, and the error code of a reply.

use super::{NOW, incoming};
use mcp_tasks_edge::legacy::Session;
use mcp_tasks_edge::legacy::plan::{Decision, plan};
use mcp_tasks_edge::server::Server;
use serde_json::{Value, json};

pub const ALICE: &str = "key:alice";

pub fn body(method: &str, params: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params }))
        .unwrap()
}

/// A session opened by `caller` (through `initialize`, as the object would).
pub fn opened(s: &Server, caller: &str) -> Session {
    let init = body(
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } }),
    );
    match plan(s, None, incoming("POST", caller, &init), NOW) {
        Decision::Initialize { session, .. } => *session,
        other => panic!("{other:?}"),
    }
}

pub fn error_code(decision: &Decision) -> i64 {
    let Decision::Reply { body, .. } = decision else {
        panic!("{decision:?}")
    };
    let v: Value = serde_json::from_slice(body).unwrap();
    v["error"]["code"].as_i64().unwrap()
}
