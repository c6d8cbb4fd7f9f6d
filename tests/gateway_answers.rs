//! An upstream tool's answers (`gateway::step`) against a scripted upstream: results
//! checked against the declared output schema, an upstream task followed by id, cancel
//! reaching the upstream, and where its requests may go (its own host, or its service
//! binding).
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

mod common;

use common::upstream::*;
use mcp_tasks_edge::gateway::{Settings, catalog};
use mcp_tasks_edge::host::fake::FakeHost;
use mcp_tasks_edge::host::{Host, block_on};
use mcp_tasks_edge::tools::{Call, Step};
use serde_json::{Value, json};

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
        let tool = tool(definition.clone(), false);
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
            // The upstream's task marker goes, and with it the `_meta` it was alone in.
            json!({ "content": [{ "type": "text", "text": "36 pages" }], "isError": false })
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
    let tool = tool(plain("render", json!({})), false);
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
    let tool = tool(plain("render", json!({})), false);
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
