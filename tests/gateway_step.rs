//! An upstream tool's steps (`gateway::step`) against a scripted upstream: where the call
//! is made, what is stored before it, what an interrupted call becomes, an upstream task
//! followed by id, and what reaches the upstream (its own token, nothing of the caller's).
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

use mcp_tasks_edge::gateway::{Settings, catalog};
use mcp_tasks_edge::host::fake::FakeHost;
use mcp_tasks_edge::host::{Host, HostError, Inbound, block_on};
use mcp_tasks_edge::tools::{Call, Step, Tool};
use serde_json::{Value, json};

const URL: &str = "http://127.0.0.1:9000/mcp";

fn answer(
    status: u16,
    content_type: &str,
    body: String,
    session: Option<&str>,
) -> Result<Inbound, HostError> {
    let mut headers = vec![("content-type".to_owned(), content_type.to_owned())];
    if let Some(s) = session {
        headers.push(("mcp-session-id".into(), s.into()));
    }
    Ok(Inbound {
        status,
        headers,
        body: body.into_bytes(),
        url: URL.into(),
    })
}

fn result(id: u64, result: Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()
}

/// An upstream that answers initialize (with `capabilities`) and notifications/initialized.
fn upstream(capabilities: Value) -> FakeHost {
    let init = result(
        1,
        json!({ "protocolVersion": "2025-11-25", "capabilities": capabilities, "serverInfo": { "name": "up", "version": "1" } }),
    );
    FakeHost::new()
        .secret("UP_TOKEN", "gateway-secret")
        .answer(
            "POST",
            URL,
            answer(200, "application/json", init, Some("s1")),
        )
        .answer("POST", URL, answer(202, "text/plain", String::new(), None))
        .answer(
            "DELETE",
            URL,
            answer(200, "text/plain", String::new(), None),
        )
}

/// An upstream whose session is open already (a step in the task object resumes it).
fn resumed() -> FakeHost {
    FakeHost::new().secret("UP_TOKEN", "gateway-secret").answer(
        "DELETE",
        URL,
        answer(200, "text/plain", String::new(), None),
    )
}

fn tool(fake: &FakeHost, definition: Value, tasks: bool) -> Tool {
    let settings = Settings::default()
        .with_vars(|n| {
            (n == "UPSTREAMS").then(|| {
                format!(r#"[{{"name":"up","url":"{URL}","prefix":"up_","token":"UP_TOKEN"}}]"#)
            })
        })
        .unwrap();
    let _ = fake;
    let mut listing = catalog::tools(
        &settings.upstreams[0],
        vec![definition],
        "2025-11-25",
        tasks,
        &settings,
    );
    assert!(listing.skipped.is_empty(), "{:?}", listing.skipped);
    listing.tools.remove(0)
}

fn plain(name: &str, annotations: Value) -> Value {
    json!({ "name": name, "inputSchema": { "type": "object" }, "annotations": annotations })
}

fn in_object(call: Call, checkpoint: Value, attempt: u32) -> Call {
    let mut call = call.checkpoint_at(checkpoint);
    call.task_id = Some("task-1".into());
    call.attempt = attempt;
    call
}

fn bodies(fake: &FakeHost) -> Vec<Value> {
    fake.requests()
        .iter()
        .filter(|r| r.method == "POST")
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

#[test]
fn a_call_that_may_not_repeat_is_stored_before_the_task_object_makes_it() {
    let fake = upstream(json!({}));
    let tool = tool(&fake, plain("render", json!({})), false);
    let host = Host::new(fake.clone());
    // In the Worker: a session, then "Calling" with the id the call will carry.
    let step = block_on(tool.step(Call::new(json!({ "pages": 3 })), host.clone()));
    let Step::Continue {
        checkpoint: Some(checkpoint),
        resume_after_ms,
        ..
    } = step
    else {
        panic!("{step:?}")
    };
    assert_eq!(
        checkpoint,
        json!({ "phase": "calling", "session": "s1", "version": "2025-11-25", "request": 2 })
    );
    assert!(
        resume_after_ms > 0,
        "a job's first step must leave the Worker"
    );
    let sent = bodies(&fake);
    assert_eq!(
        sent.iter()
            .map(|b| b["method"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["initialize", "notifications/initialized"]
    );
    assert!(
        sent[0]["params"]["capabilities"]
            .as_object()
            .unwrap()
            .is_empty(),
        "the gateway declares no client capability"
    );

    // In the task object: the call, on that session, with that id; progress on the way.
    let events = format!(
        "id: 0\ndata: \n\nevent: message\ndata: {}\n\ndata: {}\n\n",
        json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": "task-1", "progress": 1, "total": 3, "message": "page 1" } }),
        result(
            2,
            json!({ "content": [{ "type": "text", "text": "done" }] })
        )
    );
    let fake = resumed().answer("POST", URL, answer(200, "text/event-stream", events, None));
    let call = in_object(Call::new(json!({ "pages": 3 })), checkpoint.clone(), 1);
    let progress = call.progress.clone();
    let host = Host::new(fake.clone());
    let step = block_on(tool.step(call, host.clone()));
    assert_eq!(
        step,
        Step::Complete(
            json!({ "content": [{ "type": "text", "text": "done" }], "isError": false })
        )
    );
    assert_eq!(progress.last().unwrap().summary(), "1/3: page 1");
    let requests = fake.requests();
    let call = requests.iter().rev().find(|r| r.method == "POST").unwrap();
    let body: Value = serde_json::from_slice(&call.body).unwrap();
    assert_eq!(body["id"], 2);
    assert_eq!(
        body["params"],
        json!({ "name": "render", "arguments": { "pages": 3 }, "_meta": { "progressToken": "task-1" } })
    );
    let header = |name: &str| {
        call.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(header("mcp-session-id"), Some("s1"));
    assert_eq!(
        header("authorization"),
        Some("Bearer gateway-secret"),
        "the gateway's own token, from its secret"
    );
    assert_eq!(
        requests.last().unwrap().method,
        "DELETE",
        "the session is ended after the call"
    );

    // The same step again (the instance died mid-call): not called twice.
    let before = fake.requests().len();
    let step = block_on(tool.step(
        in_object(Call::new(json!({ "pages": 3 })), checkpoint, 2),
        host,
    ));
    let Step::Fail(error) = step else {
        panic!("{step:?}")
    };
    assert!(
        error.message.contains("\"render\"")
            && error.message.contains("not made again")
            && error.message.contains("idempotentHint"),
        "{}",
        error.message
    );
    assert_eq!(fake.requests().len(), before, "nothing was sent");
}

#[test]
fn a_repeatable_call_is_made_again_after_an_interruption() {
    let fake = upstream(json!({}));
    let tool = tool(
        &fake,
        plain("lookup", json!({ "idempotentHint": true })),
        false,
    );
    let checkpoint =
        json!({ "phase": "calling", "session": "old", "version": "2025-11-25", "request": 2 });
    // Again on a session of its own, stored before the call.
    let step = block_on(tool.step(
        in_object(Call::new(json!({})), checkpoint, 3),
        Host::new(fake.clone()),
    ));
    let Step::Continue {
        checkpoint: Some(again),
        ..
    } = step
    else {
        panic!("{step:?}")
    };
    assert_eq!(
        again,
        json!({ "phase": "calling", "session": "s1", "version": "2025-11-25", "request": 2 })
    );
    let fake = resumed().answer(
        "POST",
        URL,
        answer(
            200,
            "application/json",
            result(2, json!({ "content": [] })),
            None,
        ),
    );
    let step = block_on(tool.step(in_object(Call::new(json!({})), again, 1), Host::new(fake)));
    assert!(matches!(step, Step::Complete(_)), "{step:?}");
}

#[test]
fn a_repeatable_call_answers_inline_or_moves_to_the_object_when_slow() {
    let fake = upstream(json!({}));
    let tool = tool(
        &fake,
        plain("lookup", json!({ "readOnlyHint": true })),
        false,
    );
    let fake = fake.answer(
        "POST",
        URL,
        answer(
            200,
            "application/json",
            result(2, json!({ "content": [{ "type": "text", "text": "hi" }] })),
            None,
        ),
    );
    let step = block_on(tool.step(Call::new(json!({})), Host::new(fake.clone())));
    assert_eq!(
        step,
        Step::Complete(json!({ "content": [{ "type": "text", "text": "hi" }], "isError": false }))
    );

    let slow = upstream(json!({})).answer(
        "POST",
        URL,
        Err(HostError::Timeout {
            url: URL.into(),
            ms: 5000,
        }),
    );
    let step = block_on(tool.step(Call::new(json!({})), Host::new(slow.clone())));
    let Step::Continue {
        checkpoint: Some(checkpoint),
        ..
    } = step
    else {
        panic!("{step:?}")
    };
    assert_eq!(checkpoint, json!({ "phase": "start" }));
    let sent = bodies(&slow);
    let cancel = sent
        .iter()
        .find(|b| b["method"] == "notifications/cancelled")
        .expect("the abandoned call is cancelled upstream");
    assert_eq!(cancel["params"]["requestId"], 2);
}

#[test]
fn upstream_errors_keep_their_code_and_message() {
    let fake = upstream(json!({}));
    let tool = tool(
        &fake,
        plain("lookup", json!({ "idempotentHint": true })),
        false,
    );
    let error = json!({ "jsonrpc": "2.0", "id": 2, "error": { "code": -32602, "message": "no such report" } });
    let fake = fake.answer(
        "POST",
        URL,
        answer(200, "application/json", error.to_string(), None),
    );
    let Step::Fail(error) = block_on(tool.step(Call::new(json!({})), Host::new(fake))) else {
        panic!()
    };
    assert_eq!(
        (error.code.0, error.message.as_str()),
        (-32602, "no such report")
    );
}

#[test]
fn a_misbehaving_upstream_is_a_clear_error() {
    let cases: [(Result<Inbound, HostError>, &str); 6] = [
        (
            answer(200, "application/json", "{not json".into(), None),
            "not JSON",
        ),
        (
            answer(200, "text/html", "<html>".into(), None),
            "neither JSON nor an event stream",
        ),
        (answer(302, "text/plain", String::new(), None), "redirect"),
        (
            answer(500, "text/plain", "boom".into(), None),
            "HTTP 500: boom",
        ),
        (
            answer(200, "application/json", result(7, json!({})), None),
            "answered request 7 where 2 was asked",
        ),
        (
            Err(HostError::TooLarge {
                url: URL.into(),
                limit: 10,
            }),
            "more than the 10 bytes",
        ),
    ];
    for (reply, expected) in cases {
        let fake = upstream(json!({}));
        let tool = tool(
            &fake,
            plain("lookup", json!({ "idempotentHint": true })),
            false,
        );
        let fake = fake.answer("POST", URL, reply);
        let Step::Fail(error) = block_on(tool.step(Call::new(json!({})), Host::new(fake))) else {
            panic!("{expected}")
        };
        assert_eq!(error.code.0, -32603);
        assert!(
            error.message.contains("\"up\"") && error.message.contains(expected),
            "{expected}: {}",
            error.message
        );
    }
}

#[test]
fn results_must_match_the_declared_output_schema() {
    let definition = json!({
        "name": "count", "inputSchema": { "type": "object" }, "annotations": { "idempotentHint": true },
        "outputSchema": { "type": "object", "properties": { "n": { "type": "integer" } }, "required": ["n"] },
    });
    for (structured, ok) in [
        (json!({ "n": 3 }), true),
        (json!({ "n": "three" }), false),
        (Value::Null, false),
    ] {
        let fake = upstream(json!({}));
        let tool = tool(&fake, definition.clone(), false);
        let mut reply = json!({ "content": [] });
        if !structured.is_null() {
            reply["structuredContent"] = structured;
        }
        let fake = fake.answer(
            "POST",
            URL,
            answer(200, "application/json", result(2, reply), None),
        );
        let step = block_on(tool.step(Call::new(json!({})), Host::new(fake)));
        match (step, ok) {
            (Step::Complete(_), true) => {}
            (Step::Fail(e), false) => assert!(e.message.contains("outputSchema"), "{}", e.message),
            (step, _) => panic!("{step:?}"),
        }
    }
}

#[test]
fn an_upstream_task_is_followed_by_its_id() {
    let tasks = json!({ "tasks": { "requests": { "tools": { "call": {} } } } });
    let fake = upstream(tasks);
    let tool = tool(
        &fake,
        json!({ "name": "report", "inputSchema": { "type": "object" }, "execution": { "taskSupport": "optional" } }),
        true,
    );
    let created = json!({ "task": { "taskId": "up-7", "status": "working", "pollInterval": 500, "statusMessage": "queued" } });
    let fake = fake.answer(
        "POST",
        URL,
        answer(200, "application/json", result(2, created), None),
    );
    let host = Host::new(fake.clone());
    let step = block_on(tool.step(Call::new(json!({ "q": 1 })), host.clone()));
    let Step::Continue {
        checkpoint: Some(checkpoint),
        status_message,
        resume_after_ms,
        ..
    } = step
    else {
        panic!("{step:?}")
    };
    assert_eq!(checkpoint["phase"], "following");
    assert_eq!(checkpoint["task"], "up-7");
    assert_eq!(
        (resume_after_ms, status_message.as_deref()),
        (500, Some("queued"))
    );
    assert_eq!(
        bodies(&fake).last().unwrap()["params"]["task"],
        json!({}),
        "the call is task-augmented"
    );

    // Working: again after the poll interval, with the upstream's message.
    let working = resumed().answer(
        "POST",
        URL,
        answer(
            200,
            "application/json",
            result(
                1,
                json!({ "taskId": "up-7", "status": "working", "statusMessage": "page 2/9" }),
            ),
            None,
        ),
    );
    let step = block_on(tool.step(
        in_object(Call::new(json!({})), checkpoint.clone(), 1),
        Host::new(working.clone()),
    ));
    let Step::Continue {
        status_message,
        resume_after_ms,
        ..
    } = step
    else {
        panic!("{step:?}")
    };
    assert_eq!(
        (resume_after_ms, status_message.as_deref()),
        (500, Some("page 2/9"))
    );
    assert_eq!(
        bodies(&working).last().unwrap()["params"],
        json!({ "taskId": "up-7" })
    );

    // Completed: its result, once; a restart between reads repeats no upstream work.
    let done = resumed()
        .answer("POST", URL, answer(200, "application/json", result(1, json!({ "taskId": "up-7", "status": "completed" })), None))
        .answer("POST", URL, answer(200, "application/json", result(2, json!({ "content": [{ "type": "text", "text": "36 pages" }], "_meta": { "io.modelcontextprotocol/related-task": { "taskId": "up-7" } } })), None));
    let step = block_on(tool.step(
        in_object(Call::new(json!({})), checkpoint, 2),
        Host::new(done.clone()),
    ));
    assert_eq!(
        step,
        Step::Complete(
            json!({ "content": [{ "type": "text", "text": "36 pages" }], "_meta": {}, "isError": false })
        )
    );
    let methods: Vec<String> = bodies(&done)
        .iter()
        .map(|b| b["method"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        methods,
        ["tasks/get", "tasks/result"],
        "no tools/call again"
    );
}

#[test]
fn cancelling_reaches_the_upstream() {
    let fake = resumed();
    let tool = tool(&fake, plain("render", json!({})), false);
    let calling =
        json!({ "phase": "calling", "session": "s1", "version": "2025-11-25", "request": 2 });
    block_on(tool.cancelled(
        in_object(Call::new(json!({})), calling, 0),
        Host::new(fake.clone()),
    ));
    let sent = bodies(&fake);
    assert_eq!(sent[0]["method"], "notifications/cancelled");
    assert_eq!(sent[0]["params"]["requestId"], 2);
    assert_eq!(fake.requests().last().unwrap().method, "DELETE");

    let fake = resumed().answer(
        "POST",
        URL,
        answer(
            200,
            "application/json",
            result(1, json!({ "taskId": "up-7", "status": "cancelled" })),
            None,
        ),
    );
    let following = json!({ "phase": "following", "session": "s1", "version": "2025-11-25", "task": "up-7", "intervalMs": 500 });
    block_on(tool.cancelled(
        in_object(Call::new(json!({})), following, 0),
        Host::new(fake.clone()),
    ));
    assert_eq!(bodies(&fake)[0]["method"], "tasks/cancel");
    assert_eq!(bodies(&fake)[0]["params"], json!({ "taskId": "up-7" }));
}

#[test]
fn the_upstream_is_reached_only_at_its_own_host() {
    // The deployment allows no host at all; the upstream's own is allowed for its tools.
    let fake = upstream(json!({}));
    assert!(Host::new(fake.clone()).check_url(URL).is_err());
    let tool = tool(&fake, plain("render", json!({})), false);
    let step = block_on(tool.step(Call::new(json!({})), Host::new(fake)));
    assert!(matches!(step, Step::Continue { .. }), "{step:?}");
}

#[test]
fn a_service_binding_is_reached_through_the_binding_only() {
    let settings = Settings::default()
        .with_vars(|n| {
            (n == "UPSTREAMS")
                .then(|| r#"[{"name":"agents","binding":"AGENTS","prefix":"a_"}]"#.to_owned())
        })
        .unwrap();
    let url = "https://agents.binding/mcp";
    let listing = catalog::tools(
        &settings.upstreams[0],
        vec![plain("echo", json!({ "readOnlyHint": true }))],
        "2025-11-25",
        false,
        &settings,
    );
    let tool = &listing.tools[0];
    let init = result(
        1,
        json!({ "protocolVersion": "2025-11-25", "capabilities": {} }),
    );
    let answers = |fake: FakeHost| {
        fake.answer(
            "POST",
            url,
            answer(200, "application/json", init.clone(), None),
        )
        .answer("POST", url, answer(202, "text/plain", String::new(), None))
        .answer(
            "POST",
            url,
            answer(
                200,
                "application/json",
                result(2, json!({ "content": [] })),
                None,
            ),
        )
    };
    // Declared: reached, although the deployment allows no host at all.
    let fake = answers(FakeHost::new().service("AGENTS"));
    let step = block_on(tool.step(Call::new(json!({})), Host::new(fake.clone())));
    assert!(matches!(step, Step::Complete(_)), "{step:?}");
    assert!(fake.requests().iter().all(|r| r.url == url));
    // Not declared: the platform's error, naming the binding.
    let Step::Fail(error) =
        block_on(tool.step(Call::new(json!({})), Host::new(answers(FakeHost::new()))))
    else {
        panic!()
    };
    assert!(
        error
            .message
            .contains("service binding AGENTS is not configured"),
        "{}",
        error.message
    );
}
