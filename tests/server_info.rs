//! This server's identity in every 2026-07-28 result's `_meta`
//! (`io.modelcontextprotocol/serverInfo`, schema `ResultMetaObject`: "Servers SHOULD
//! include this field on every response"), whichever way the result is built: a list
//! serialized once per isolate, a handler's value, a task object's reply spliced in
//! unparsed, a listen stream's end. Never twice, never over a result's own, never for a
//! 2025-11-25 session (that revision names the server in `initialize`).
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::object::{ID, Object};
use common::plan::{ALICE, body as rpc_body, opened};
use common::*;
use mcp_tasks_edge::jsonrpc::RequestId;
use mcp_tasks_edge::legacy::plan::{Decision, plan};
use mcp_tasks_edge::mcp::identity::{MetaFirst, entry, stamped};
use mcp_tasks_edge::server::{Action, Config, Server};
use mcp_tasks_edge::tasks::protocol::ObjectRequest;
use serde_json::{Value, json};

const KEY: &str = "io.modelcontextprotocol/serverInfo";

fn named() -> Server {
    Server::new(Config {
        fixtures: true,
        server_name: "weather-edge".into(),
        server_version: "4.2.0".into(),
        request_state_secret: Some(b"native-test-secret-0123456789".to_vec()),
        ..Config::default()
    })
}

/// The response's result, after checking that its bytes name a server exactly once.
fn result_of(bytes: &[u8]) -> Value {
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    assert_eq!(text.matches(KEY).count(), 1, "{text}");
    let message: Value = serde_json::from_str(&text).unwrap();
    message["result"].clone()
}

fn identity(result: &Value) -> &Value {
    &result["_meta"][KEY]
}

#[test]
fn every_kind_of_modern_result_names_the_server() {
    let s = named();
    let me = json!({ "name": "weather-edge", "version": "4.2.0" });
    // Lists serialized once per isolate; discover's is the only `_meta` it has.
    for method in [
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
    ] {
        let result = result_of(&respond(&s, &post(method, json!({}))).body);
        assert_eq!(identity(&result), &me, "{method}");
        assert_eq!(result["_meta"].as_object().unwrap().len(), 1, "{method}");
    }
    // A handler's value (an inline call).
    let call = post(
        "tools/call",
        json!({ "name": "greet", "arguments": { "name": "Ada" } }),
    );
    let result = result_of(&respond(&s, &call).body);
    assert_eq!(identity(&result), &me);
    assert_eq!(result["resultType"], "complete");
    // A task object's reply, whose own `_meta` (this server's facts about the task) is kept.
    let call = post(
        "tools/call",
        json!({ "name": "slow_compute", "arguments": { "seconds": 1 } }),
    );
    let Action::CreateTask { mut record, .. } = run_action(&s, s.handle(&call, &ctx())) else {
        panic!("expected a task")
    };
    record.assign_id(ID.into());
    let mut o = Object::new(s.registry.clone(), s.limits());
    o.request(ObjectRequest::Create { record }, "anonymous", NOW);
    o.tick(NOW + 1000);
    let get = post("tasks/get", json!({ "taskId": ID }));
    let reply = o.request(
        ObjectRequest::Get { task_id: ID.into() },
        "anonymous",
        NOW + 1001,
    );
    let (status, bytes) = reply.encode();
    assert!(
        bytes.starts_with(br#"{"_meta":{"#),
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    let envelope = s.envelope_for(&get);
    let response = s.object_response(&RequestId::Number(1), status, &bytes, &envelope);
    let result = result_of(&response.body);
    assert_eq!(identity(&result), &me);
    assert_eq!(
        result["_meta"]["mcp-tasks-edge/task"]["tool"],
        "slow_compute"
    );
    assert_eq!(result["status"], "completed");
    // The end of a listen stream.
    let listen = listen_of(&s, json!({ "taskIds": [ID] }));
    let closed = String::from_utf8(listen.closed()).unwrap();
    let data = closed.strip_prefix("data: ").unwrap().trim_end();
    let result = result_of(data.as_bytes());
    assert_eq!(identity(&result), &me);
    assert_eq!(result["_meta"]["io.modelcontextprotocol/subscriptionId"], 1);
}

#[test]
fn errors_and_legacy_sessions_carry_no_identity() {
    let s = named();
    // An error has no result to carry it.
    let refused = respond(&s, &post("tools/call", json!({ "name": "nope" })));
    assert!(body(&refused).get("error").is_some());
    assert!(!String::from_utf8_lossy(&refused.body).contains(KEY));
    // A 2025-11-25 session: its initialize names the server; its results do not.
    let session = opened(&s, ALICE);
    let list = rpc_body("tools/list", json!({}));
    let Decision::Reply { body, .. } = plan(&s, Some(session), incoming("POST", ALICE, &list), NOW)
    else {
        panic!("expected a reply")
    };
    assert!(!String::from_utf8_lossy(&body).contains(KEY));
    let reply = Object::new(s.registry.clone(), s.limits()).request(
        ObjectRequest::Get { task_id: ID.into() },
        "anonymous",
        NOW,
    );
    let (status, bytes) = reply.encode();
    let legacy = s.object_response(&RequestId::Number(1), status, &bytes, &Default::default());
    assert!(!String::from_utf8_lossy(&legacy.body).contains(KEY));
}

#[test]
fn a_result_that_names_a_server_itself_keeps_it() {
    let s = named();
    let envelope = s.envelope_for(&post("tools/list", json!({})));
    let own = json!({ "_meta": { KEY: { "name": "its-own", "version": "9" }, "x": 1 }, "resultType": "complete" });
    let result = result_of(&envelope.result_body(&RequestId::Number(3), &own));
    assert_eq!(identity(&result)["name"], "its-own");
    // A `_meta` without it gains it beside its own keys.
    let other = json!({ "_meta": { "x": 1 }, "resultType": "complete" });
    let result = result_of(&envelope.result_body(&RequestId::Number(3), &other));
    assert_eq!(result["_meta"]["x"], 1);
    assert_eq!(identity(&result)["name"], "weather-edge");
}

/// The byte splice, on each shape a result's start can take.
#[test]
fn the_stamp_goes_into_the_first_meta_or_a_new_one() {
    let mark = entry("s", "1");
    assert_eq!(
        String::from_utf8(mark.clone()).unwrap(),
        r#""io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}"#
    );
    let stamped = |raw: &str| match stamped(raw.as_bytes(), &mark) {
        Some(parts) => String::from_utf8(parts.concat()).unwrap(),
        None => raw.to_owned(),
    };
    let m = r#"{"name":"s","version":"1"}"#;
    assert_eq!(stamped("{}"), format!(r#"{{"_meta":{{"{KEY}":{m}}}}}"#));
    assert_eq!(
        stamped(r#"{"a":1}"#),
        format!(r#"{{"_meta":{{"{KEY}":{m}}},"a":1}}"#)
    );
    assert_eq!(
        stamped(r#"{"_meta":{},"a":1}"#),
        format!(r#"{{"_meta":{{"{KEY}":{m}}},"a":1}}"#)
    );
    assert_eq!(
        stamped(r#"{"_meta":{"b":2},"a":1}"#),
        format!(r#"{{"_meta":{{"{KEY}":{m},"b":2}},"a":1}}"#)
    );
    // Not an object, or a `_meta` that is none: left alone.
    assert_eq!(
        stamped(r#"{"_meta":null,"a":1}"#),
        r#"{"_meta":null,"a":1}"#
    );
    assert_eq!(stamped("[1]"), "[1]");
    assert_eq!(stamped("7"), "7");
    // Every stamped shape parses, with nothing lost.
    for raw in [
        "{}",
        r#"{"a":1}"#,
        r#"{"_meta":{},"a":1}"#,
        r#"{"_meta":{"b":2},"a":1}"#,
    ] {
        let value: Value = serde_json::from_str(&stamped(raw)).unwrap();
        assert_eq!(value["_meta"][KEY]["name"], "s", "{raw}");
    }
}

/// `_meta` is written first whatever the keys sort before it; everything else is kept.
#[test]
fn meta_first_puts_meta_first() {
    let value = json!({ "Zed": 1, "9": 2, "_meta": { "k": true }, "a": [1] });
    let bytes = serde_json::to_vec(&MetaFirst(&value)).unwrap();
    assert!(bytes.starts_with(br#"{"_meta":{"k":true},"#));
    assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), value);
    let plain = json!({ "Zed": 1 });
    assert_eq!(
        serde_json::to_vec(&MetaFirst(&plain)).unwrap(),
        serde_json::to_vec(&plain).unwrap()
    );
}
