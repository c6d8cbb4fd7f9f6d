//! An upstream tool of a 2026-07-28 upstream (`gateway::step`): stateless requests with
//! their `_meta` and routing headers, questions asked by MRTR relayed and retried with
//! `inputResponses` and `requestState`, and an upstream task (SEP-2663) followed by id,
//! its questions relayed and answered with `tasks/update`; `server/discover` tells the era.
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

use mcp_tasks_edge::gateway::{Settings, catalog};
use mcp_tasks_edge::host::fake::FakeHost;
use mcp_tasks_edge::host::{Host, HostError, Inbound, Outbound, block_on};
use mcp_tasks_edge::tools::{Call, Step, Tool};
use serde_json::{Value, json};

const URL: &str = "http://127.0.0.1:9000/mcp";

fn json_answer(id: u64, result: Value) -> Result<Inbound, HostError> {
    let body = json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string();
    Ok(Inbound {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        body: body.into_bytes(),
        url: URL.into(),
    })
}

fn settings() -> Settings {
    Settings::default()
        .with_vars(|n| (n == "UPSTREAMS").then(|| format!(r#"[{{"name":"up","url":"{URL}"}}]"#)))
        .unwrap()
}

fn tool(definition: Value, tasks: bool) -> Tool {
    let s = settings();
    catalog::tools(&s.upstreams[0], vec![definition], "2026-07-28", tasks, &s)
        .tools
        .remove(0)
}

fn sent(fake: &FakeHost) -> Vec<(Outbound, Value)> {
    fake.requests()
        .into_iter()
        .map(|r| {
            let body = serde_json::from_slice(&r.body).unwrap();
            (r, body)
        })
        .collect()
}

fn header<'a>(request: &'a Outbound, name: &str) -> Option<&'a str> {
    request
        .headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

fn in_object(call: Call, checkpoint: Value, round: u32) -> Call {
    let mut call = call.checkpoint_at(checkpoint);
    call.task_id = Some("task-1".into());
    call.round = round;
    call
}

#[test]
fn a_call_is_one_stateless_request_with_its_meta_and_headers() {
    let definition = json!({
        "name": "forecast",
        "inputSchema": { "type": "object", "properties": { "region": { "type": "string", "x-mcp-header": "Region" } } },
        "annotations": { "readOnlyHint": true },
    });
    let tool = tool(definition, false);
    let fake = FakeHost::new().answer(
        "POST",
        URL,
        json_answer(
            1,
            json!({ "resultType": "complete", "content": [{ "type": "text", "text": "sunny" }],
                "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "up", "version": "1" }, "example.com/trace": "t-1" } }),
        ),
    );
    let call = Call::new(json!({ "region": "us-west1" }))
        .declaring(json!({ "elicitation": { "form": {} }, "roots": {} }));
    let step = block_on(tool.step(call, Host::new(fake.clone())));
    // The upstream's serverInfo names the upstream, not the server answering the host: it
    // goes; the rest of its `_meta` stays.
    assert_eq!(
        step,
        Step::Complete(json!({ "content": [{ "type": "text", "text": "sunny" }],
            "_meta": { "example.com/trace": "t-1" }, "isError": false }))
    );
    let requests = sent(&fake);
    assert_eq!(requests.len(), 1, "no handshake at 2026-07-28");
    let (request, body) = &requests[0];
    assert_eq!(header(request, "mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(header(request, "mcp-method"), Some("tools/call"));
    assert_eq!(header(request, "mcp-name"), Some("forecast"));
    assert_eq!(header(request, "mcp-param-region"), Some("us-west1"));
    assert_eq!(header(request, "mcp-session-id"), None);
    let meta = &body["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(meta["progressToken"], "gateway");
    // The upstream may ask what the caller can be asked; nothing else is declared.
    assert_eq!(
        meta["io.modelcontextprotocol/clientCapabilities"],
        json!({ "elicitation": { "form": {} }, "roots": {} })
    );
}

#[test]
fn questions_asked_by_mrtr_are_relayed_and_the_call_retried_with_the_answers() {
    let tool = tool(
        json!({ "name": "deploy", "inputSchema": { "type": "object" }, "annotations": { "idempotentHint": true } }),
        false,
    );
    let question = json!({ "method": "elicitation/create", "params": { "mode": "form", "message": "Deploy?", "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean" } } } } });
    let fake = FakeHost::new().answer("POST", URL, json_answer(1, json!({
        "resultType": "input_required", "inputRequests": { "confirm": question }, "requestState": "opaque-1",
    })));
    // Asked at once, the upstream's questions as they are, with the state that answers them.
    let step = block_on(tool.step(Call::new(json!({ "env": "prod" })), Host::new(fake)));
    let Step::NeedInputAt {
        requests,
        checkpoint: asking,
    } = step
    else {
        panic!("{step:?}")
    };
    assert_eq!(
        requests,
        *json!({ "confirm": question }).as_object().unwrap()
    );
    assert_eq!(asking["phase"], "asking");
    assert_eq!(asking["state"], "opaque-1");
    // Run again before an answer came (a retried attempt): asked again, nothing sent.
    let step = block_on(tool.step(
        in_object(Call::new(json!({ "env": "prod" })), asking.clone(), 0),
        Host::new(FakeHost::new()),
    ));
    assert_eq!(
        step,
        Step::NeedInput(json!({ "confirm": question }).as_object().unwrap().clone())
    );
    // Answered (a later round): the call again, with the answers and the state.
    let done = FakeHost::new().answer(
        "POST",
        URL,
        json_answer(
            1,
            json!({ "content": [{ "type": "text", "text": "deployed" }] }),
        ),
    );
    let call = in_object(Call::new(json!({ "env": "prod" })), asking, 1)
        .answered(json!({ "confirm": { "action": "accept", "content": { "ok": true } } }));
    let step = block_on(tool.step(call, Host::new(done.clone())));
    assert!(matches!(step, Step::Complete(_)), "{step:?}");
    let (_, body) = &sent(&done)[0];
    assert_eq!(
        body["params"]["inputResponses"],
        json!({ "confirm": { "action": "accept", "content": { "ok": true } } })
    );
    assert_eq!(body["params"]["requestState"], "opaque-1");
    assert_eq!(body["params"]["arguments"], json!({ "env": "prod" }));
}

#[test]
fn an_upstream_task_is_followed_its_questions_relayed_and_answered_once() {
    let tool = tool(
        json!({ "name": "report", "inputSchema": { "type": "object" } }),
        true,
    );
    let fake = FakeHost::new().answer("POST", URL, json_answer(1, json!({ "resultType": "task", "taskId": "up-9", "status": "working", "pollIntervalMs": 400 })));
    let step = block_on(tool.step(Call::new(json!({})), Host::new(fake.clone())));
    let Step::Continue {
        checkpoint: Some(following),
        resume_after_ms: 400,
        ..
    } = step
    else {
        panic!("{step:?}")
    };
    let (request, body) = &sent(&fake)[0];
    assert_eq!(
        body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"],
        json!({ "io.modelcontextprotocol/tasks": {} })
    );
    assert!(
        body["params"].get("task").is_none(),
        "SEP-2663: the server decides, no task param"
    );
    assert_eq!(header(request, "mcp-name"), Some("report"));

    let question = json!({ "method": "elicitation/create", "params": { "mode": "form", "message": "Which quarter?", "requestedSchema": { "type": "object", "properties": { "q": { "type": "string" } } } } });
    let asking = json!({ "taskId": "up-9", "status": "input_required", "inputRequests": { "quarter": question } });
    // The question becomes this task's.
    let fake = FakeHost::new().answer("POST", URL, json_answer(1, asking.clone()));
    let step = block_on(tool.step(
        in_object(Call::new(json!({})), following.clone(), 0),
        Host::new(fake.clone()),
    ));
    assert_eq!(
        step,
        Step::NeedInput(json!({ "quarter": question }).as_object().unwrap().clone())
    );
    assert_eq!(
        header(&sent(&fake)[0].0, "mcp-name"),
        Some("up-9"),
        "tasks/get is routed by the task's id"
    );
    // Answered: tasks/update carries it, once.
    let answer = json!({ "action": "accept", "content": { "q": "Q3" } });
    let fake = FakeHost::new()
        .answer("POST", URL, json_answer(1, asking.clone()))
        .answer("POST", URL, json_answer(2, json!({})));
    let call = in_object(Call::new(json!({})), following, 1).answered(json!({ "quarter": answer }));
    let step = block_on(tool.step(call, Host::new(fake.clone())));
    let Step::Continue {
        checkpoint: Some(after),
        ..
    } = step
    else {
        panic!("{step:?}")
    };
    let update = &sent(&fake)[1].1;
    assert_eq!(update["method"], "tasks/update");
    assert_eq!(
        update["params"]["inputResponses"],
        json!({ "quarter": answer })
    );
    assert_eq!(after["sent"], json!(["quarter"]));
    // Still input_required on the next read (the upstream has not moved yet): no second update.
    let fake = FakeHost::new().answer("POST", URL, json_answer(1, asking));
    let call =
        in_object(Call::new(json!({})), after.clone(), 1).answered(json!({ "quarter": answer }));
    assert!(matches!(
        block_on(tool.step(call, Host::new(fake.clone()))),
        Step::Continue { .. }
    ));
    assert_eq!(sent(&fake).len(), 1, "only the read");
    // Completed: the result the task carries.
    let fake = FakeHost::new().answer("POST", URL, json_answer(1, json!({ "taskId": "up-9", "status": "completed", "result": { "resultType": "complete", "content": [{ "type": "text", "text": "Q3 report" }] } })));
    let step = block_on(tool.step(
        in_object(Call::new(json!({})), after.clone(), 1),
        Host::new(fake),
    ));
    assert_eq!(
        step,
        Step::Complete(
            json!({ "content": [{ "type": "text", "text": "Q3 report" }], "isError": false })
        )
    );
    // Failed: its JSON-RPC error as it came.
    let fake = FakeHost::new().answer("POST", URL, json_answer(1, json!({ "taskId": "up-9", "status": "failed", "error": { "code": -32000, "message": "quota" } })));
    let Step::Fail(error) =
        block_on(tool.step(in_object(Call::new(json!({})), after, 1), Host::new(fake)))
    else {
        panic!()
    };
    assert_eq!((error.code.0, error.message.as_str()), (-32000, "quota"));
}

#[test]
fn server_discover_tells_the_era_and_a_2025_server_gets_initialize() {
    let s = settings();
    let tools = json!({ "tools": [{ "name": "t", "inputSchema": { "type": "object" } }] });
    let modern = FakeHost::new()
        .answer("POST", URL, json_answer(1, json!({ "supportedVersions": ["2026-07-28"], "capabilities": { "extensions": { "io.modelcontextprotocol/tasks": {} } } })))
        .answer("POST", URL, json_answer(2, tools.clone()));
    let listing = block_on(catalog::list(
        &Host::new(modern.clone()),
        &s.upstreams[0],
        &s,
    ))
    .unwrap();
    assert_eq!(listing.tools.len(), 1);
    let methods: Vec<String> = sent(&modern)
        .iter()
        .map(|(_, b)| b["method"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(methods, ["server/discover", "tools/list"]);

    let refused = Inbound {
        status: 400,
        headers: vec![("content-type".into(), "application/json".into())],
        body:
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"No valid session"}}"#
                .to_vec(),
        url: URL.into(),
    };
    let legacy = FakeHost::new()
        .answer("POST", URL, Ok(refused))
        .answer(
            "POST",
            URL,
            json_answer(
                1,
                json!({ "protocolVersion": "2025-11-25", "capabilities": {} }),
            ),
        )
        .answer(
            "POST",
            URL,
            Ok(Inbound {
                status: 202,
                headers: vec![],
                body: vec![],
                url: URL.into(),
            }),
        )
        .answer("POST", URL, json_answer(2, tools));
    let listing = block_on(catalog::list(
        &Host::new(legacy.clone()),
        &s.upstreams[0],
        &s,
    ))
    .unwrap();
    assert_eq!(listing.tools.len(), 1);
    let methods: Vec<String> = sent(&legacy)
        .iter()
        .map(|(_, b)| b["method"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        methods,
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/list"
        ]
    );
}

#[test]
fn an_error_with_its_http_status_keeps_its_code() {
    let tool = tool(
        json!({ "name": "job", "inputSchema": { "type": "object" }, "annotations": { "readOnlyHint": true } }),
        false,
    );
    let refused = Inbound {
        status: 400,
        headers: vec![("content-type".into(), "application/json".into())],
        body: br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capability: io.modelcontextprotocol/tasks"}}"#.to_vec(),
        url: URL.into(),
    };
    let fake = FakeHost::new().answer("POST", URL, Ok(refused));
    let Step::Fail(error) = block_on(tool.step(Call::new(json!({})), Host::new(fake))) else {
        panic!()
    };
    assert_eq!(error.code.0, -32021);
    assert!(
        error
            .message
            .starts_with("Missing required client capability")
    );
}
