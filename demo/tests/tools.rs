//! The demo tools, natively, against the library's fake host: the way a server author
//! unit-tests their own tools.

use mcp_tasks_edge::host::fake::FakeHost;
use mcp_tasks_edge::host::{Host, HostError, Inbound, block_on};
use mcp_tasks_edge::prelude::*;
use mcp_tasks_edge_demo::server;

const ALLOW: &str = "127.0.0.1:*,localhost:*";

fn step(tool: &str, call: Call, host: &FakeHost) -> Step {
    let server = server();
    let tool = server.registry.get(tool).expect("registered");
    block_on(tool.step(call, Host::new(host.clone())))
}

fn answer(
    status: u16,
    headers: &[(&str, &str)],
    body: &str,
    url: &str,
) -> Result<Inbound, HostError> {
    Ok(Inbound {
        status,
        headers: headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
        body: body.as_bytes().to_vec(),
        url: url.into(),
    })
}

fn text_of(step: &Step) -> String {
    match step {
        Step::Complete(result) => result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        other => panic!("expected a result, got {other:?}"),
    }
}

fn is_error(step: &Step) -> bool {
    matches!(step, Step::Complete(r) if r["isError"] == true)
}

#[test]
fn the_demo_server_registers_cleanly() {
    let server = server();
    assert_eq!(server.problems(), Vec::<String>::new());
    let names: Vec<_> = server
        .registry
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "echo",
            "hello_world",
            "approve_release",
            "process_batch",
            "publish_report",
            "read_the_spec",
            "fetch_url",
            "http_job"
        ]
    );
    // Derived schemas: required fields, defaults, no stray title.
    let batch = server.registry.get("process_batch").unwrap().input_schema();
    assert_eq!(batch["properties"]["items"]["default"], 10);
    assert_eq!(batch["additionalProperties"], false);
    assert!(batch.get("title").is_none());
    let job = server.registry.get("http_job").unwrap().input_schema();
    assert_eq!(job["required"], json!(["startUrl"]));
    assert_eq!(server.catalog.resources.len(), 1);
    assert_eq!(server.catalog.prompts[0].name(), "try_a_task");
}

#[test]
fn fetch_url_describes_allowed_pages_and_refuses_others() {
    let url = "http://127.0.0.1:9/page";
    let host = FakeHost::new().var("FETCH_ALLOWED_HOSTS", ALLOW).answer(
        "GET",
        url,
        answer(
            200,
            &[("content-type", "text/html")],
            "<html><TITLE> A &amp; B </TITLE></html>",
            url,
        ),
    );
    let done = step("fetch_url", Call::new(json!({ "url": url })), &host);
    let Step::Complete(result) = &done else {
        panic!()
    };
    assert_eq!(
        result["structuredContent"],
        json!({ "status": 200, "contentType": "text/html", "bytes": 39, "title": "A & B" })
    );
    assert!(text_of(&done).contains("HTTP 200") && text_of(&done).contains("\"A & B\""));
    // `Output::Summary`: the summary first, then the structured content's JSON as text.
    let json_block: Value =
        serde_json::from_str(result["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(json_block, result["structuredContent"]);
    let schema = server().registry.get("fetch_url").unwrap().definition()["outputSchema"].clone();
    assert_eq!(
        schema["required"],
        json!(["status", "contentType", "bytes"])
    );

    let refused = step(
        "fetch_url",
        Call::new(json!({ "url": "http://example.invalid/" })),
        &host,
    );
    assert!(is_error(&refused) && text_of(&refused).contains("example.invalid"));
    // Decided before any connection: only the allowed request was sent.
    assert_eq!(host.requests().len(), 1);

    let unreachable = step(
        "fetch_url",
        Call::new(json!({ "url": "http://127.0.0.1:1/" })),
        &host,
    );
    assert!(is_error(&unreachable) && text_of(&unreachable).contains("Could not fetch"));
    // Nothing allowed when the variable is unset.
    let closed = step(
        "fetch_url",
        Call::new(json!({ "url": url })),
        &FakeHost::new(),
    );
    assert!(is_error(&closed));
}

#[test]
fn http_job_follows_the_async_request_reply_pattern() {
    let start = "http://127.0.0.1:7/jobs";
    let status = "http://127.0.0.1:7/jobs/1";
    let host = FakeHost::new()
        .var("FETCH_ALLOWED_HOSTS", ALLOW)
        .answer(
            "POST",
            start,
            answer(
                202,
                &[("location", "/jobs/1"), ("retry-after", "120")],
                "",
                start,
            ),
        )
        .answer(
            "GET",
            status,
            answer(
                200,
                &[("retry-after", "2")],
                r#"{"status":"running","message":"step 1/2"}"#,
                status,
            ),
        )
        .answer(
            "GET",
            status,
            answer(
                200,
                &[],
                r#"{"status":"succeeded","result":{"answer":42}}"#,
                status,
            ),
        );
    let first = step(
        "http_job",
        Call::new(json!({ "startUrl": start, "body": { "n": 1 } })),
        &host,
    );
    let Step::Continue {
        checkpoint: Some(job),
        resume_after_ms,
        ..
    } = &first
    else {
        panic!("{first:?}")
    };
    assert_eq!(
        job["statusUrl"], status,
        "a relative Location resolves against the start URL"
    );
    assert_eq!(*resume_after_ms, 60_000, "Retry-After is clamped to 60 s");
    assert_eq!(host.requests()[0].body, br#"{"n":1}"#);

    let running = step(
        "http_job",
        Call::new(json!({ "startUrl": start })).checkpoint_at(job.clone()),
        &host,
    );
    let Step::Continue {
        status_message,
        resume_after_ms,
        ..
    } = &running
    else {
        panic!("{running:?}")
    };
    assert_eq!(status_message.as_deref(), Some("step 1/2"));
    assert_eq!(*resume_after_ms, 2000);

    let done = step(
        "http_job",
        Call::new(json!({ "startUrl": start })).checkpoint_at(job.clone()),
        &host,
    );
    let Step::Complete(result) = &done else {
        panic!("{done:?}")
    };
    assert_eq!(result["structuredContent"], json!({ "answer": 42 }));
    assert_eq!(result["isError"], false);
}

#[test]
fn http_job_reports_failures_and_gives_up_on_a_broken_status_url() {
    let start = "http://127.0.0.1:7/jobs";
    let status = "http://127.0.0.1:7/jobs/2";
    let inline = FakeHost::new().var("FETCH_ALLOWED_HOSTS", ALLOW).answer(
        "POST",
        start,
        answer(
            200,
            &[],
            r#"{"status":"failed","message":"bad input"}"#,
            start,
        ),
    );
    let failed = step("http_job", Call::new(json!({ "startUrl": start })), &inline);
    assert!(is_error(&failed) && text_of(&failed).contains("bad input"));

    let flaky = FakeHost::new().var("FETCH_ALLOWED_HOSTS", ALLOW).answer(
        "GET",
        status,
        answer(503, &[], "busy", status),
    );
    let mut checkpoint = json!({ "statusUrl": status, "failures": 0 });
    for failures in 1..3 {
        let retry = step(
            "http_job",
            Call::new(json!({ "startUrl": start })).checkpoint_at(checkpoint),
            &flaky,
        );
        let Step::Continue {
            checkpoint: Some(next),
            ..
        } = retry
        else {
            panic!()
        };
        assert_eq!(next["failures"], failures);
        checkpoint = next;
    }
    let gave_up = step(
        "http_job",
        Call::new(json!({ "startUrl": start })).checkpoint_at(checkpoint),
        &flaky,
    );
    assert!(is_error(&gave_up) && text_of(&gave_up).contains("failed 3 times"));

    // A Location on a host that is not allowed is refused, naming it.
    let elsewhere = FakeHost::new().var("FETCH_ALLOWED_HOSTS", ALLOW).answer(
        "POST",
        start,
        answer(202, &[("location", "http://refused.invalid/j")], "", start),
    );
    let refused = step(
        "http_job",
        Call::new(json!({ "startUrl": start })),
        &elsewhere,
    );
    assert!(is_error(&refused) && text_of(&refused).contains("refused.invalid"));
}

#[test]
fn cancelling_http_job_deletes_the_job() {
    let status = "http://127.0.0.1:7/jobs/3";
    let host = FakeHost::new()
        .var("FETCH_ALLOWED_HOSTS", ALLOW)
        .route("DELETE", status, 204, "");
    let server = server();
    let tool = server.registry.get("http_job").unwrap();
    assert!(tool.has_cancel_hook());
    let call = Call::new(json!({ "startUrl": "http://127.0.0.1:7/jobs" }))
        .checkpoint_at(json!({ "statusUrl": status, "failures": 0 }));
    block_on(tool.cancelled(call, Host::new(host.clone())));
    let sent = host.requests();
    assert_eq!(
        (sent[0].method.as_str(), sent[0].url.as_str()),
        ("DELETE", status)
    );
}

#[test]
fn hello_world_asks_a_typed_question_and_read_the_spec_uses_url_mode() {
    let host = FakeHost::new();
    // The first step asks: no checkpoint first (`Tool::ask_in_task` puts the question
    // in the task for clients with the Tasks extension).
    let Step::NeedInput(requests) = step("hello_world", Call::new(json!({})), &host) else {
        panic!()
    };
    assert_eq!(requests["name"]["method"], "elicitation/create");
    assert_eq!(
        requests["name"]["params"]["requestedSchema"],
        json!({
            "type": "object",
            "properties": { "name": { "type": "string", "title": "Your name", "description": "Your name", "minLength": 1, "maxLength": 100 } },
            "required": ["name"]
        })
    );
    let answered = Call::new(json!({}))
        .answered(json!({ "name": { "action": "accept", "content": { "name": " Ada " } } }));
    assert_eq!(
        text_of(&step("hello_world", answered, &host)),
        "Hello, Ada!"
    );
    let declined = Call::new(json!({})).answered(json!({ "name": { "action": "decline" } }));
    assert_eq!(
        text_of(&step("hello_world", declined, &host)),
        "Hello, stranger!"
    );
    let cancelled = Call::new(json!({})).answered(json!({ "name": { "action": "cancel" } }));
    assert!(is_error(&step("hello_world", cancelled, &host)));

    let Step::NeedInput(visit) = step("read_the_spec", Call::new(json!({})), &host) else {
        panic!()
    };
    assert_eq!(visit["visit"]["params"]["mode"], "url");
    let thanks = step(
        "read_the_spec",
        Call::new(json!({})).answered(json!({ "visit": { "action": "accept" } })),
        &host,
    );
    assert!(text_of(&thanks).starts_with("Thanks for reading"));
}

#[test]
fn process_batch_reports_progress_and_completes() {
    let host = FakeHost::new();
    let call = || Call::new(json!({ "items": 2, "delayMs": 5 }));
    let Step::Continue {
        checkpoint: Some(one),
        status_message,
        resume_after_ms,
        ..
    } = step("process_batch", call(), &host)
    else {
        panic!()
    };
    assert_eq!(
        (status_message.as_deref(), resume_after_ms),
        (Some("Processed 1/2 items"), 5)
    );
    let Step::Continue {
        checkpoint: Some(two),
        ..
    } = step("process_batch", call().checkpoint_at(one), &host)
    else {
        panic!()
    };
    let done = step("process_batch", call().checkpoint_at(two), &host);
    assert!(text_of(&done).starts_with("Processed 2 items of batch"));
    // The result is what the declared outputSchema says.
    let Step::Complete(result) = &done else {
        panic!("{done:?}")
    };
    let declared =
        server().registry.get("process_batch").unwrap().definition()["outputSchema"].clone();
    assert_eq!(declared["required"], json!(["label", "items", "elapsedMs"]));
    let structured = &result["structuredContent"];
    assert_eq!(
        (structured["label"].as_str(), structured["items"].as_u64()),
        (Some("batch"), Some(2))
    );
    assert!(structured["elapsedMs"].is_u64());
}

#[test]
fn approve_release_asks_with_a_titled_choice_and_returns_a_typed_decision() {
    let host = FakeHost::new();
    let release = json!({ "version": "2.1.0" });
    let Step::NeedInput(requests) = step("approve_release", Call::new(release.clone()), &host)
    else {
        panic!()
    };
    let params = &requests["approval"]["params"];
    assert_eq!(params["message"], "Release version 2.1.0?");
    let form = &params["requestedSchema"];
    assert_eq!(form["required"], json!(["approve", "environment"]));
    assert_eq!(form["properties"]["approve"]["type"], "boolean");
    assert_eq!(
        form["properties"]["environment"]["oneOf"],
        json!([{ "const": "staging", "title": "Staging" }, { "const": "production", "title": "Production" }])
    );
    assert_eq!(
        form["properties"]["note"],
        json!({ "type": "string", "description": "A note for the release log (optional)", "maxLength": 200 })
    );

    let decide = |answer: Value| {
        let call = Call::new(release.clone()).answered(json!({ "approval": answer }));
        match step("approve_release", call, &host) {
            Step::Complete(result) => result["structuredContent"].clone(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(
        decide(
            json!({ "action": "accept", "content": { "approve": true, "environment": "production", "note": "go" } })
        ),
        json!({ "version": "2.1.0", "decision": "approved", "environment": "production", "note": "go" })
    );
    assert_eq!(
        decide(
            json!({ "action": "accept", "content": { "approve": false, "environment": "staging" } })
        ),
        json!({ "version": "2.1.0", "decision": "rejected", "environment": "staging" })
    );
    assert_eq!(
        decide(json!({ "action": "decline" })),
        json!({ "version": "2.1.0", "decision": "declined" })
    );
    // The output schema is derived from the decision type.
    let tool = server();
    let output = tool.registry.get("approve_release").unwrap().definition()["outputSchema"].clone();
    assert_eq!(output["required"], json!(["version", "decision"]));
}
