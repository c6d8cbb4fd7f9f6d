//! The 2025-11-25 era, natively: which requests are legacy, `initialize` negotiation,
//! result and task shapes, logging levels, and task-augmented calls. What `tasks/result`
//! makes of a task, `tasks/list` pages and legacy HTTP statuses: tests/legacy_tasks.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::http::{Headers, HttpRequest};
use mcp_tasks_edge::legacy::Route;
use mcp_tasks_edge::legacy::{self, Session};
use mcp_tasks_edge::server::{Config, Server};
use serde_json::{Map, Value, json};

fn request(headers: &[(&str, &str)], body: Value) -> HttpRequest {
    let mut h = Headers::from([("content-type", "application/json")]);
    for (n, v) in headers {
        h.push(n, v);
    }
    HttpRequest {
        method: "POST".into(),
        path: "/mcp".into(),
        headers: h,
        body: serde_json::to_vec(&body).unwrap(),
    }
}

fn initialize(version: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": version, "capabilities": { "elicitation": {} }, "clientInfo": { "name": "c", "version": "1" } } })
}

#[test]
fn legacy_requests_are_initialize_or_carry_a_session() {
    let s = server();
    assert_eq!(
        legacy::route(&s, &request(&[], initialize("2025-11-25"))),
        Some(Route::New(Default::default()))
    );
    let id = "0123456789abcdef0123456789abcdef";
    let tools = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" });
    assert_eq!(
        legacy::route(&s, &request(&[("mcp-session-id", id)], tools.clone())),
        Some(Route::Existing(id.into(), Default::default()))
    );
    // A modern request is not legacy, even `initialize` with modern `_meta` (it is then
    // a removed method: -32601).
    assert_eq!(legacy::route(&s, &post("tools/list", json!({}))), None);
    let mut modern = initialize("2026-07-28");
    modern["params"]["_meta"] = meta(json!({}));
    assert_eq!(legacy::route(&s, &request(&[], modern)), None);
    // A session id this server never minted is 404 at once.
    let Some(Route::Refused(r)) =
        legacy::route(&s, &request(&[("mcp-session-id", "x y")], tools.clone()))
    else {
        panic!()
    };
    assert_eq!(r.status, 404);
    // A browser from a foreign origin: 403 as on the modern path.
    let Some(Route::Refused(r)) = legacy::route(
        &s,
        &request(
            &[("origin", "https://evil.example")],
            initialize("2025-11-25"),
        ),
    ) else {
        panic!()
    };
    assert_eq!(r.status, 403);
}

#[test]
fn a_modern_only_server_names_its_versions_to_legacy_clients() {
    let s = Server::new(Config {
        legacy_sessions: false,
        ..Config::default()
    });
    let Some(Route::Refused(r)) = legacy::route(&s, &request(&[], initialize("2025-06-18"))) else {
        panic!()
    };
    let b = body(&r);
    assert_eq!(b["error"]["code"], -32022);
    assert_eq!(
        b["error"]["data"],
        json!({ "supported": ["2026-07-28"], "requested": "2025-06-18" })
    );
}

#[test]
fn initialize_negotiates_a_legacy_version() {
    let s = server();
    let params = |v: &str| initialize(v)["params"].as_object().unwrap().clone();
    let (result, session) =
        legacy::initialize(&s, &params("2025-06-18"), "id", "anonymous", NOW).unwrap();
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert_eq!(
        session.capabilities,
        json!({ "elicitation": {} }).as_object().unwrap().clone()
    );
    let (result, _) =
        legacy::initialize(&s, &params("1999-01-01"), "id", "anonymous", NOW).unwrap();
    assert_eq!(result["protocolVersion"], "2025-11-25");
    let capabilities = &result["capabilities"];
    assert_eq!(
        capabilities["tasks"]["requests"]["tools"]["call"],
        json!({})
    );
    assert_eq!(capabilities["resources"]["subscribe"], true);
    assert!(capabilities.get("logging").is_some() && capabilities.get("completions").is_some());
    // Typed params: a param that does not fit is -32602 naming the field.
    for (params, message) in [
        (
            json!({ "capabilities": {} }),
            "params: missing field `protocolVersion`",
        ),
        (
            json!({ "protocolVersion": 2025 }),
            "params.protocolVersion: invalid type: integer `2025`, expected a string",
        ),
        (
            json!({ "protocolVersion": "2025-11-25", "capabilities": [] }),
            "params.capabilities: invalid type: sequence, expected a map",
        ),
        (
            json!({ "protocolVersion": "2025-11-25", "capabilities": null }),
            "params.capabilities: invalid type: null, expected a map",
        ),
    ] {
        let bad: Map<String, Value> = params.as_object().unwrap().clone();
        let Err(error) = legacy::initialize(&s, &bad, "id", "anonymous", NOW) else {
            panic!("{params} must be refused")
        };
        let error = error.to_wire();
        assert_eq!((error.code.0, error.message.as_str()), (-32602, message));
    }
    // Without capabilities or clientInfo: none.
    let bare = json!({ "protocolVersion": "2025-11-25" });
    let (_, session) =
        legacy::initialize(&s, bare.as_object().unwrap(), "id", "anonymous", NOW).unwrap();
    assert_eq!(
        (session.capabilities, session.client_info),
        (Map::new(), Value::Null)
    );
}

#[test]
fn results_and_tasks_take_the_legacy_shape() {
    assert_eq!(
        legacy::legacy_result(
            json!({ "resultType": "complete", "ttlMs": 0, "cacheScope": "public", "tools": [] })
        ),
        json!({ "tools": [] })
    );
    let detailed = json!({ "taskId": "t", "status": "completed", "result": { "content": [] }, "statusMessage": "done",
        "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": null, "pollIntervalMs": 1000, "resultType": "complete" });
    assert_eq!(
        legacy::legacy_task(&detailed),
        json!({ "taskId": "t", "status": "completed", "statusMessage": "done", "createdAt": "a",
                "lastUpdatedAt": "b", "ttl": null, "pollInterval": 1000 })
    );
    // An isError result completes a modern task; a legacy client reads it as failed.
    let tool_error = json!({ "taskId": "t", "status": "completed", "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": 1,
        "result": { "content": [{ "type": "text", "text": "boom" }], "isError": true } });
    let legacy_view = legacy::legacy_task(&tool_error);
    assert_eq!(
        (
            legacy_view["status"].as_str(),
            legacy_view["statusMessage"].as_str()
        ),
        (Some("failed"), Some("The tool reported an error: boom"))
    );
    let meta = |caps: Value| mcp_tasks_edge::mcp::meta::RequestMeta {
        protocol_version: "2026-07-28".into(),
        capabilities: mcp_tasks_edge::mcp::meta::ClientCapabilities(
            caps.as_object().unwrap().clone(),
        ),
        client_info: None,
    };
    // Each tool's support as registered, and the job handle tools (a 2025-11-25 client
    // never declares the Tasks extension), which never run as tasks.
    let tools = legacy::legacy_tools(&server(), &meta(json!({ "tasks": {} })));
    let names = |tools: &Value| -> Vec<String> {
        tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let find = |name: &str| {
        tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(find("greet")["execution"]["taskSupport"], "forbidden");
    assert_eq!(find("slow_compute")["execution"]["taskSupport"], "optional");
    assert_eq!(
        find("confirm_delete")["execution"]["taskSupport"],
        "required"
    );
    assert_eq!(find("job_status")["execution"]["taskSupport"], "forbidden");
    let listed = names(&tools);
    assert_eq!(
        listed[listed.len() - 3..],
        ["job_status", "job_answer", "job_cancel"]
    );
    // A client with the extension (unusual at 2025-11-25) uses tasks, not jobs.
    let extension = json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } });
    let with_tasks = legacy::legacy_tools(&server(), &meta(extension));
    assert!(!names(&with_tasks).contains(&"job_status".to_owned()));
}

#[test]
fn task_params_and_levels_are_checked() {
    let params = |v: Value| v.as_object().unwrap().clone();
    assert_eq!(legacy::task_params(&params(json!({}))), Ok(None));
    assert_eq!(
        legacy::task_params(&params(json!({ "task": {} }))),
        Ok(Some(None))
    );
    assert_eq!(
        legacy::task_params(&params(json!({ "task": { "ttl": 5000 } }))),
        Ok(Some(Some(5000)))
    );
    assert!(legacy::task_params(&params(json!({ "task": { "ttl": -1 } }))).is_err());
    assert!(legacy::task_params(&params(json!({ "task": 3 }))).is_err());
    assert!(
        mcp_tasks_edge::mcp::params::parse::<mcp_tasks_edge::mcp::params::SetLevelParams>(&params(
            json!({ "level": "loud" })
        ))
        .is_err()
    );
    let mut session: Session = serde_json::from_value(
        json!({ "id": "s", "principal": "p", "protocolVersion": "2025-11-25",
        "capabilities": {}, "createdAtMs": 0, "lastSeenMs": 0 }),
    )
    .unwrap();
    assert!(session.logs("debug"));
    session.log_level = Some(mcp_tasks_edge::mcp::params::LoggingLevel::Warning);
    assert!(!session.logs("info") && session.logs("error"));
}

#[test]
fn task_augmented_calls_check_the_tool_like_tools_call() {
    use mcp_tasks_edge::legacy::task_record as legacy_task_record;
    let s = server();
    let session_meta = |caps: Value| mcp_tasks_edge::mcp::meta::RequestMeta {
        protocol_version: "2026-07-28".into(),
        capabilities: mcp_tasks_edge::mcp::meta::ClientCapabilities(
            caps.as_object().unwrap().clone(),
        ),
        client_info: None,
    };
    let params = |v: Value| v.as_object().unwrap().clone();
    let record = legacy_task_record(
        &s,
        &params(json!({ "name": "confirm_delete", "arguments": { "filename": "a" } })),
        &session_meta(json!({ "elicitation": {} })),
        &ctx(),
        Some(5000),
    )
    .unwrap();
    assert_eq!(
        (
            record.ttl_ms(),
            record.next_step_at_ms(),
            record.checkpoint().clone()
        ),
        (Some(5000), Some(NOW), Value::Null)
    );
    let forbidden = legacy_task_record(
        &s,
        &params(json!({ "name": "greet", "arguments": { "name": "x" } })),
        &session_meta(json!({})),
        &ctx(),
        None,
    )
    .unwrap_err();
    assert_eq!(forbidden.to_wire().code.0, -32601);
    let required = legacy::needs_task(&s, &params(json!({ "name": "confirm_delete" }))).unwrap();
    assert_eq!(required.to_wire().code.0, -32601);
    assert!(legacy::needs_task(&s, &params(json!({ "name": "greet" }))).is_none());
    for bad in [
        json!({ "name": "confirm_delete", "arguments": {} }), // invalid arguments
        json!({ "name": "nope" }),
    ] {
        let e = legacy_task_record(
            &s,
            &params(bad.clone()),
            &session_meta(json!({})),
            &ctx(),
            None,
        )
        .unwrap_err();
        assert_eq!(e.to_wire().code.0, -32602, "{bad}");
    }
}

#[test]
fn a_modern_answer_is_reshaped_for_the_session_and_a_broken_one_is_said_to_be() {
    let modern = br#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}"#;
    let shaped: Value = serde_json::from_slice(&legacy::legacy_body(modern)).unwrap();
    assert_eq!(shaped["id"], 3);
    assert!(shaped["result"].get("resultType").is_none(), "{shaped}");
    assert_eq!(shaped["result"]["content"], json!([]));
    // The core's bytes always parse; if they ever did not, the session says so.
    let broken: Value = serde_json::from_slice(&legacy::legacy_body(b"{oops")).unwrap();
    assert_eq!(broken["error"]["code"], -32603);
    assert!(
        broken["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not JSON")
    );
}
