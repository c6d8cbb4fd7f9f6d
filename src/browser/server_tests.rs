//! The client's requests fed to the real server core (`Server::handle`), natively: a
//! header or `_meta` the server would reject fails here before any browser runs.

use super::error::ClientError;
use super::flow::{self, CallStep, InputKind};
use super::wire::{Outgoing, Session, check_discovery, read_response};
use crate::host::{Host, block_on, fake::FakeHost};
use crate::http::{Headers, HttpRequest};
use crate::server::{Action, Config, Context, Server};
use serde_json::{Map, Value, json};

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

fn server() -> Server {
    Server::new(Config {
        fixtures: true,
        request_state_secret: Some(b"test-secret".to_vec()),
        ..Config::default()
    })
}

/// Sends `out` the way a browser on 127.0.0.1 would and reads the answer as the client does.
fn exchange(server: &Server, out: &Outgoing, id: u64) -> Result<Map<String, Value>, ClientError> {
    let mut headers = Headers::new();
    for (name, value) in &out.headers {
        headers.push(name, value);
    }
    headers.push("Origin", "http://127.0.0.1:4000");
    let request = HttpRequest {
        method: "POST".into(),
        path: "/mcp".into(),
        headers,
        body: out.body.clone().into_bytes(),
    };
    let ctx = Context {
        principal: "anonymous".into(),
        now_ms: 1_700_000_000_000,
    };
    let action = match server.handle(&request, &ctx) {
        // Steps run with a fake host, as the Worker runs them with the real one.
        Action::Run(run) => {
            let host = Host::new(FakeHost::new().at(ctx.now_ms));
            block_on(server.run(*run, &ctx, &host, &Default::default(), None, &|_| {}))
        }
        other => other,
    };
    match action {
        Action::Respond(response) => {
            let body = String::from_utf8(response.body.clone()).unwrap();
            read_response(
                response.status,
                response.header("content-type").unwrap_or_default(),
                &body,
                id,
            )
        }
        other => panic!("expected an inline answer, got {other:?}"),
    }
}

#[test]
fn the_server_accepts_what_the_client_sends() {
    let server = server();
    let session = Session::new("http://127.0.0.1:8787/mcp");
    let discovery = exchange(
        &server,
        &session.request(1, "server/discover", Map::new(), None),
        1,
    )
    .unwrap();
    check_discovery(&discovery).unwrap();
    let tools = exchange(
        &server,
        &session.request(2, "tools/list", Map::new(), None),
        2,
    )
    .unwrap();
    let schema = |name: &str| {
        tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()["inputSchema"]
            .clone()
    };
    let params = flow::call_params("greet", &json!({ "name": "Ada" }), None, None);
    let result = exchange(
        &server,
        &session.request(3, "tools/call", params, Some(&schema("greet"))),
        3,
    )
    .unwrap();
    // The result as the server sent it, naming the server in its `_meta`.
    let me = json!({ "name": "mcp-tasks-edge", "version": env!("CARGO_PKG_VERSION") });
    assert_eq!(
        flow::call_step(result).unwrap(),
        CallStep::Complete(json!({
        "_meta": { "io.modelcontextprotocol/serverInfo": me },
        "content": [{ "type": "text", "text": "Hello, Ada!" }], "isError": false, "resultType": "complete" }))
    );
    let args = json!({ "value": "Grüße, 世界" });
    let params = flow::call_params("test_header_param", &args, None, None);
    let result = exchange(
        &server,
        &session.request(
            4,
            "tools/call",
            params.clone(),
            Some(&schema("test_header_param")),
        ),
        4,
    )
    .unwrap();
    assert_eq!(result["content"][0]["text"], "value=Grüße, 世界");
    // Without the schema the Mcp-Param header is missing: the server says -32020, which
    // is what makes the client re-list and retry.
    assert_eq!(
        exchange(&server, &session.request(5, "tools/call", params, None), 5)
            .unwrap_err()
            .code,
        -32020
    );
}

#[test]
fn an_mrtr_round_trip_completes() {
    let server = server();
    let session = Session::new("http://127.0.0.1:8787/mcp");
    let params = flow::call_params(
        "test_input_required_result_elicitation",
        &json!({}),
        None,
        None,
    );
    let first = exchange(&server, &session.request(1, "tools/call", params, None), 1).unwrap();
    let CallStep::InputRequired {
        requests,
        request_state,
    } = flow::call_step(first).unwrap()
    else {
        panic!("an MRTR round")
    };
    let (kind, _) = flow::input_kind("user_name", &requests["user_name"]).unwrap();
    assert_eq!(kind, InputKind::Elicitation);
    let answers =
        object(json!({ "user_name": { "action": "accept", "content": { "name": "Ada" } } }));
    let params = flow::call_params(
        "test_input_required_result_elicitation",
        &json!({}),
        Some(answers),
        request_state,
    );
    let second = exchange(&server, &session.request(2, "tools/call", params, None), 2).unwrap();
    assert_eq!(second["content"][0]["text"], "Hello, Ada!");
}

#[test]
fn server_errors_pass_through_unchanged() {
    let server = server();
    let session = Session::new("http://127.0.0.1:8787/mcp");
    let params = object(json!({ "taskId": "0123456789abcdef0123456789abcdef" }));
    // Not routed to a Durable Object here: only the id check runs natively.
    let bad = object(json!({ "taskId": "nope" }));
    assert_eq!(
        exchange(&server, &session.request(1, "tasks/get", bad, None), 1)
            .unwrap_err()
            .code,
        -32602
    );
    let mut no_tasks = session.clone();
    no_tasks.capabilities = json!({});
    assert_eq!(
        exchange(&server, &no_tasks.request(2, "tasks/get", params, None), 2)
            .unwrap_err()
            .code,
        -32021
    );
}
