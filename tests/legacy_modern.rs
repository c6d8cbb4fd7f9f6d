//! A 2025-11-25 session's requests for the modern handlers, before anything is performed
//! (`src/legacy/modern.rs`): a refusal is the session's JSON-RPC answer; a run is a call
//! its client may leave, a list is not; a job's handle is reached as the session reaches
//! a task's id, so another anonymous session's job is followed as any anonymous session,
//! and one this session cannot reach keeps the session's own principal (and is unknown).
#![cfg(feature = "fixtures")]

mod common;
use common::reach::{KEYED, MINE, THEIRS, world};
use common::{NOW, server};
use mcp_tasks_edge::auth::anonymous::ANY_SESSION;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::jsonrpc::{Request, RequestId};
use mcp_tasks_edge::legacy::modern::{Prepared, prepare};
use mcp_tasks_edge::server::Action;
use serde_json::{Value, json};

fn request(method: &str, params: Value) -> Request {
    let Value::Object(params) = params else {
        panic!("params are an object")
    };
    Request {
        id: RequestId::Number(7),
        method: method.into(),
        params,
    }
}

fn prepared(method: &str, params: Value) -> (Prepared, Vec<String>) {
    let mut objects = world();
    let session = objects.stored.clone();
    let rpc = request(method, params);
    let prepared = block_on(prepare(&mut objects, &server(), &rpc, &session, NOW));
    (prepared.expect("routed"), objects.sent)
}

fn job(handle: &str) -> (Prepared, Vec<String>) {
    let arguments = json!({ "job": handle, "waitSeconds": 0 });
    prepared(
        "tools/call",
        json!({ "name": "job_status", "arguments": arguments }),
    )
}

#[test]
fn a_refusal_is_the_sessions_json_rpc_answer() {
    let mut objects = world();
    let session = objects.stored.clone();
    let rpc = request("no/such/method", json!({}));
    let refused = block_on(prepare(&mut objects, &server(), &rpc, &session, NOW)).unwrap_err();
    let body: Value = serde_json::from_slice(&refused.body).unwrap();
    assert_eq!(
        (body["id"].clone(), body["error"]["code"].clone()),
        (json!(7), json!(-32601))
    );
    assert!(objects.sent.is_empty(), "nothing reached");
}

#[test]
fn a_run_may_be_left_and_a_list_may_not() {
    let session_principal = world().stored.principal;
    let call = json!({ "name": "slow_compute", "arguments": { "seconds": 1 } });
    let (run, sent) = prepared("tools/call", call);
    assert!(run.leavable, "{:?}", run.action);
    assert_eq!(run.ctx.principal, session_principal);
    assert!(sent.is_empty());
    let (list, _) = prepared("tools/list", json!({}));
    assert!(matches!(list.action, Action::Respond(_)) && !list.leavable);
}

#[test]
fn a_jobs_handle_is_reached_as_the_session_reaches_a_task() {
    let own = world().stored.principal;
    let (mine, sent) = job(MINE);
    assert!(matches!(mine.action, Action::Job(_)) && !mine.leavable);
    assert_eq!(
        (mine.ctx.principal.as_str(), sent),
        (own.as_str(), vec!["get as own".to_owned()])
    );
    let (theirs, _) = job(THEIRS);
    assert_eq!(
        theirs.ctx.principal, ANY_SESSION,
        "another anonymous session's job"
    );
    let (keyed, _) = job(KEYED);
    assert_eq!(
        keyed.ctx.principal, own,
        "unreachable: the session's own, then unknown"
    );
}

#[test]
fn a_jobs_handle_whose_session_storage_fails_is_refused_not_taken_for_unknown() {
    let mut objects = world();
    objects.storage_fails = true;
    let session = objects.stored.clone();
    let arguments = json!({ "job": THEIRS, "waitSeconds": 0 });
    let rpc = request(
        "tools/call",
        json!({ "name": "job_status", "arguments": arguments }),
    );
    let refused = block_on(prepare(&mut objects, &server(), &rpc, &session, NOW)).unwrap_err();
    let body: Value = serde_json::from_slice(&refused.body).unwrap();
    assert_eq!(body["error"]["code"], json!(-32603), "{body}");
}
