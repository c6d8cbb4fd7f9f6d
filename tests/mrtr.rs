//! Multi round-trip requests (SEP-2322) through the pure server, and `requestState`
//! integrity: tampering, expiry, replay under another principal or for another request.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::mcp::request_state::{self, Binding, Carried};
use mcp_tasks_edge::server::{Action, Context};
use serde_json::{Map, Value, json};

const SECRET: &[u8] = b"native-test-secret-0123456789";

fn call(params: Value, ctx: &Context) -> (u16, Value) {
    let server = server();
    match run_action_at(
        &server,
        server.handle(&post("tools/call", params), ctx),
        ctx,
    ) {
        Action::Respond(r) => (r.status, body(&r)),
        other => panic!("unexpected {other:?}"),
    }
}

fn args() -> Map<String, Value> {
    json!({ "a": 1 }).as_object().unwrap().clone()
}

fn carried() -> Carried {
    Carried {
        rounds: 1,
        answers: json!({ "k": { "action": "decline" } })
            .as_object()
            .unwrap()
            .clone(),
        checkpoint: json!({ "step": 2 }),
        pending: Map::new(),
        job: None,
    }
}

#[test]
fn seal_open_round_trip() {
    let binding = Binding {
        principal: "anonymous",
        request: "tools/call t",
        arguments: &args(),
    };
    let state = request_state::seal(SECRET, binding, &carried(), NOW + 1000);
    assert_eq!(
        request_state::open(SECRET, binding, &state, NOW).unwrap(),
        carried()
    );
    assert!(
        state.len() < 300,
        "state should stay small: {} bytes",
        state.len()
    );
}

#[test]
fn tampering_is_rejected() {
    let binding = Binding {
        principal: "anonymous",
        request: "tools/call t",
        arguments: &args(),
    };
    let state = request_state::seal(SECRET, binding, &carried(), NOW + 1000);
    let (body_part, sig) = state.split_once('.').unwrap();
    let mut flipped = body_part.to_owned().into_bytes();
    flipped[5] = if flipped[5] == b'A' { b'B' } else { b'A' };
    let cases = [
        format!("{state}-TAMPERED"),
        format!("{}.{sig}", String::from_utf8(flipped).unwrap()),
        format!("{body_part}.{}", &sig[..sig.len() - 2]),
        "garbage".to_owned(),
        String::new(),
    ];
    for bad in cases {
        let e = request_state::open(SECRET, binding, &bad, NOW).unwrap_err();
        assert_eq!(e.to_wire().code.0, -32602, "{bad}");
    }
    // Another server key.
    assert!(request_state::open(b"another-secret-0123456789", binding, &state, NOW).is_err());
}

#[test]
fn expiry_principal_and_request_binding() {
    let binding = Binding {
        principal: "anonymous",
        request: "tools/call t",
        arguments: &args(),
    };
    let state = request_state::seal(SECRET, binding, &carried(), NOW + 1000);
    let message = |b: Binding, now| {
        request_state::open(SECRET, b, &state, now)
            .unwrap_err()
            .to_wire()
            .message
    };
    assert!(message(binding, NOW + 1001).contains("expired"));
    assert!(
        message(
            Binding {
                principal: "bearer:mallory",
                ..binding
            },
            NOW
        )
        .contains("different principal")
    );
    assert!(
        message(
            Binding {
                request: "tools/call other",
                ..binding
            },
            NOW
        )
        .contains("different request")
    );
    assert!(
        message(
            Binding {
                request: "prompts/get t",
                ..binding
            },
            NOW
        )
        .contains("different request")
    );
    let other_args = json!({ "a": 2 }).as_object().unwrap().clone();
    assert!(
        message(
            Binding {
                arguments: &other_args,
                ..binding
            },
            NOW
        )
        .contains("different request")
    );
}

#[test]
fn multi_round_through_the_server() {
    let ctx = ctx();
    let (_, r1) = call(
        json!({ "name": "test_input_required_result_multi_round" }),
        &ctx,
    );
    assert_eq!(r1["result"]["resultType"], "input_required");
    assert!(r1["result"]["inputRequests"]["step1"].is_object());
    let s1 = r1["result"]["requestState"].clone();
    let (_, r2) = call(
        json!({ "name": "test_input_required_result_multi_round", "requestState": s1,
        "inputResponses": { "step1": { "action": "accept", "content": { "name": "Alice" } } } }),
        &ctx,
    );
    assert!(r2["result"]["inputRequests"]["step2"].is_object());
    let s2 = r2["result"]["requestState"].clone();
    assert_ne!(s1, s2);
    // Round 3 only sends step2; step1's answer comes back from the signed state.
    let (_, r3) = call(
        json!({ "name": "test_input_required_result_multi_round", "requestState": s2,
        "inputResponses": { "step2": { "action": "accept", "content": { "color": "blue" } } } }),
        &ctx,
    );
    assert_eq!(r3["result"]["content"][0]["text"], "Alice likes blue.");
    assert_eq!(r3["result"]["resultType"], "complete");
}

#[test]
fn replay_under_another_principal_is_rejected_by_the_server() {
    let (_, r1) = call(
        json!({ "name": "test_input_required_result_request_state" }),
        &ctx(),
    );
    let state = r1["result"]["requestState"].clone();
    let mallory = Context {
        principal: "bearer:mallory".into(),
        now_ms: NOW,
    };
    let (status, replay) = call(
        json!({ "name": "test_input_required_result_request_state", "requestState": state,
        "inputResponses": { "confirm": { "action": "accept", "content": { "ok": true } } } }),
        &mallory,
    );
    assert_eq!(
        (status, replay["error"]["code"].as_i64()),
        (400, Some(-32602))
    );
    let late = Context {
        principal: "anonymous".into(),
        now_ms: NOW + 600_001,
    };
    let (_, expired) = call(
        json!({ "name": "test_input_required_result_request_state", "requestState": r1["result"]["requestState"],
        "inputResponses": { "confirm": { "action": "accept", "content": { "ok": true } } } }),
        &late,
    );
    assert!(
        expired["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
}

#[test]
fn missing_partial_and_extra_answers() {
    let ctx = ctx();
    // A wrong key: ask again, not an error.
    let (_, again) = call(
        json!({ "name": "test_input_required_result_elicitation",
        "inputResponses": { "wrong_key": { "action": "accept", "content": {} } } }),
        &ctx,
    );
    assert_eq!(again["result"]["resultType"], "input_required");
    // Extra keys are ignored.
    let (_, done) = call(
        json!({ "name": "test_input_required_result_elicitation", "inputResponses": {
        "user_name": { "action": "accept", "content": { "name": "Alice" } }, "extra": { "x": 1 } } }),
        &ctx,
    );
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Alice!");
    // Malformed answers are protocol errors.
    for bad in [
        json!({ "user_name": 12345 }),
        json!({ "user_name": { "action": "maybe" } }),
        json!([1]),
    ] {
        let (status, e) = call(
            json!({ "name": "test_input_required_result_elicitation", "inputResponses": bad }),
            &ctx,
        );
        assert_eq!(
            (status, e["error"]["code"].as_i64()),
            (400, Some(-32602)),
            "{bad}"
        );
    }
    // Partial: of three requests, answering one asks for the other two.
    let (_, r1) = call(
        json!({ "name": "test_input_required_result_multiple_inputs" }),
        &ctx,
    );
    let (_, r2) = call(
        json!({ "name": "test_input_required_result_multiple_inputs", "requestState": r1["result"]["requestState"],
        "inputResponses": { "client_roots": { "roots": [{ "uri": "file:///a" }] } } }),
        &ctx,
    );
    let keys: Vec<&String> = r2["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["greeting", "user_name"]);
}

#[test]
fn input_requests_respect_declared_capabilities() {
    let ctx = ctx();
    let (_, sampling_only) = call(
        json!({ "name": "test_input_required_result_capabilities", "_meta": meta(json!({ "sampling": {} })) }),
        &ctx,
    );
    let requests = sampling_only["result"]["inputRequests"]
        .as_object()
        .unwrap();
    assert!(
        requests
            .values()
            .all(|r| r["method"] == "sampling/createMessage")
    );
    // A request the client cannot answer is -32021, never sent.
    let (status, e) = call(
        json!({ "name": "test_input_required_result_elicitation", "_meta": meta(json!({ "sampling": {} })) }),
        &ctx,
    );
    assert_eq!((status, e["error"]["code"].as_i64()), (400, Some(-32021)));
    assert_eq!(
        e["error"]["data"]["requiredCapabilities"],
        json!({ "elicitation": {} })
    );
}

#[test]
fn only_tools_prompts_and_resources_may_need_input() {
    for method in [
        "tools/list",
        "prompts/list",
        "resources/list",
        "server/discover",
    ] {
        let response = respond(&server(), &post(method, json!({})));
        assert_eq!(
            body(&response)["result"]["resultType"],
            "complete",
            "{method}"
        );
    }
}

#[test]
fn without_jobs_optional_tools_run_inline_without_the_extension() {
    let ctx = ctx();
    // DETACH_JOBS=false: what the specification alone gives a client without tasks.
    let server = mcp_tasks_edge::server::Server::new(mcp_tasks_edge::server::Config {
        detach_jobs: false,
        ..server().config
    });
    let slow = |seconds: u64| {
        post(
            "tools/call",
            json!({ "name": "slow_compute", "arguments": { "seconds": seconds }, "_meta": meta(json!({})) }),
        )
    };
    // slow_compute without tasks: the steps run inline, sleeping on the host between them.
    let Action::Respond(r) = run_action(&server, server.handle(&slow(1), &ctx)) else {
        panic!("expected an answer")
    };
    assert_eq!(body(&r)["result"]["resultType"], "complete");
    // Beyond the inline budget: -32021 naming the extension.
    let Action::Respond(r) = run_action(&server, server.handle(&slow(60), &ctx)) else {
        panic!("expected an answer")
    };
    assert_eq!(error_of(&r), (400, -32021));
}

#[test]
fn ask_text_covers_accept_decline_and_malformed() {
    use mcp_tasks_edge::tools::{Call, Step};
    let ask = |answers: Value| {
        let call = Call::new(json!({})).answered(answers);
        call.ask_text("who", "Who?", "name")
    };
    let Err(Step::NeedInput(question)) = ask(json!({})) else {
        panic!("expected the question")
    };
    assert_eq!(
        question["who"]["params"]["requestedSchema"]["required"],
        json!(["name"])
    );
    assert_eq!(
        ask(json!({ "who": { "action": "accept", "content": { "name": "Ada" } } })),
        Ok(Some("Ada".to_owned()))
    );
    assert_eq!(ask(json!({ "who": { "action": "decline" } })), Ok(None));
    assert!(
        matches!(ask(json!({ "who": { "action": "shrug" } })), Err(Step::Fail(e)) if e.code.0 == -32602)
    );
}

/// `inputResponses` is read by hand (`params::InputResponses`): its errors still name the
/// answer's key, and say what was expected, as serde's map did.
#[test]
fn malformed_answers_are_named() {
    let ctx = ctx();
    for (bad, says) in [
        (
            json!({ "user_name": 12345 }),
            "inputResponses.user_name: an answer must be an object (an ElicitResult, CreateMessageResult or ListRootsResult), not a number",
        ),
        (
            json!([1]),
            "inputResponses: invalid type: sequence, expected a map",
        ),
    ] {
        let (_, e) = call(
            json!({ "name": "test_input_required_result_elicitation", "inputResponses": bad }),
            &ctx,
        );
        let message = e["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{bad}: {message}");
    }
}
