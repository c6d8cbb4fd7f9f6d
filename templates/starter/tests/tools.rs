//! The tools, natively, on the library's fake host: no runtime, no network (`cargo test`).

use mcp_tasks_edge::host::fake::FakeHost;
use mcp_tasks_edge::host::{Host, block_on};
use mcp_tasks_edge::prelude::*;
use my_mcp::check_links::{Link, Report};
use my_mcp::decisions::{Decision, Decisions};
use my_mcp::server;
use my_mcp::word_count::Counts;

/// One step of `tool` with `call`, on `host`, as the server runs it.
fn step(tool: &str, call: Call, host: &FakeHost) -> Step {
    let server = server();
    let tool = server.registry.get(tool).expect("registered");
    block_on(tool.step(call, Host::new(host.clone())))
}

/// The `structuredContent` of a completed step, decoded.
fn output<T: serde::de::DeserializeOwned>(step: Step) -> T {
    match step {
        Step::Complete(result) => {
            assert_eq!(result["isError"], false, "{result}");
            serde_json::from_value(result["structuredContent"].clone()).expect("the output")
        }
        other => panic!("expected a result, got {other:?}"),
    }
}

#[test]
fn the_server_registers_cleanly_with_both_schemas() {
    let server = server();
    assert_eq!(server.problems(), Vec::<String>::new());
    for name in ["word_count", "check_links", "approve", "decisions"] {
        let definition = server.registry.get(name).expect(name).definition();
        assert_eq!(definition["inputSchema"]["type"], "object", "{name}");
        assert_eq!(definition["outputSchema"]["type"], "object", "{name}");
    }
}

#[test]
fn word_count_counts_and_refuses_huge_texts() {
    let counts: Counts = output(step(
        "word_count",
        Call::new(json!({ "text": "one two\nthree" })),
        &FakeHost::new(),
    ));
    assert_eq!(
        counts,
        Counts {
            words: 3,
            characters: 13,
            lines: 2
        }
    );
    let huge = "a".repeat(100_001);
    match step(
        "word_count",
        Call::new(json!({ "text": huge })),
        &FakeHost::new(),
    ) {
        Step::Complete(result) => assert_eq!(result["isError"], true),
        other => panic!("expected an isError result, got {other:?}"),
    }
}

#[test]
fn check_links_checks_one_url_per_step_and_reports() {
    let host = FakeHost::new()
        .allow("example.com")
        .route("GET", "https://example.com/", 200, "<html>")
        .route("GET", "https://example.com/gone", 404, "");
    let args = json!({
        "urls": ["https://example.com/", "https://example.com/gone", "https://elsewhere.test/"],
        "delayMs": 250
    });
    // Step 1: the first URL, then wait 250 ms with the links so far as the checkpoint.
    let first = step("check_links", Call::new(args.clone()), &host);
    let Step::Continue {
        checkpoint: Some(checkpoint),
        resume_after_ms: 250,
        ..
    } = first
    else {
        panic!("expected a wait, got {first:?}")
    };
    assert_eq!(checkpoint[0]["status"], 200);
    // Steps 2 and 3 resume from the checkpoint; elsewhere.test is not allowed, so the
    // outbound policy refuses it before any connection.
    let second = step(
        "check_links",
        Call::new(args.clone()).checkpoint_at(checkpoint),
        &host,
    );
    let Step::Continue {
        checkpoint: Some(checkpoint),
        ..
    } = second
    else {
        panic!("expected a wait, got {second:?}")
    };
    let report: Report = output(step(
        "check_links",
        Call::new(args).checkpoint_at(checkpoint),
        &host,
    ));
    assert_eq!(report.broken, 2);
    assert_eq!(report.links[1].status, Some(404));
    let Link { status, error, .. } = &report.links[2];
    assert_eq!(*status, None);
    assert!(
        error.as_deref().unwrap_or("").contains("elsewhere.test"),
        "{error:?}"
    );
    assert_eq!(
        host.requests().len(),
        2,
        "the refused URL was never requested"
    );
}

/// A row of the `decisions` table as D1 answers it (`approved` is 0 or 1).
fn row(id: i64, subject: &str, approved: i64, reason: Option<&str>) -> Map<String, Value> {
    let row = json!({ "id": id, "subject": subject, "approved": approved,
                      "reason": reason, "decided_at": 1_767_225_600_000u64 + id as u64 });
    match row {
        Value::Object(row) => row,
        _ => unreachable!(),
    }
}

#[test]
fn approve_asks_first_then_records_the_answer_in_d1() {
    let args = json!({ "subject": "deploying v2" });
    // No answer yet: the step asks, with a form derived from `Approval`, and writes nothing
    // (the fake has no D1 answer: a write would fail the step).
    let Step::NeedInput(questions) = step("approve", Call::new(args.clone()), &FakeHost::new())
    else {
        panic!("expected the question")
    };
    let form = &questions["approval"]["params"];
    assert_eq!(form["message"], "Approve deploying v2?");
    assert_eq!(
        form["requestedSchema"]["properties"]["approve"]["type"],
        "boolean"
    );
    assert_eq!(form["requestedSchema"]["required"], json!(["approve"]));
    // Answered: the step inserts the row; the fake's D1 answers the INSERT … RETURNING id
    // with the row the database would give.
    let host = FakeHost::new().at(1_767_225_600_000).d1_rows(
        "INSERT INTO decisions",
        vec![row(7, "deploying v2", 1, None)],
    );
    let answer = json!({ "approval": { "action": "accept",
                                       "content": { "approve": true, "reason": "tests pass" } } });
    let decision: Decision = output(step(
        "approve",
        Call::new(args.clone()).answered(answer),
        &host,
    ));
    assert_eq!(
        decision,
        Decision {
            id: 7,
            subject: "deploying v2".into(),
            approved: true,
            reason: Some("tests pass".into()),
            decided_at: 1_767_225_600_000,
        }
    );
    // What it wrote: one INSERT with the subject, the decision, the reason and the time.
    let written = host.d1_statements();
    assert_eq!(written.len(), 1);
    assert_eq!(written[0].binding, "DB");
    assert!(written[0].sql.starts_with("INSERT INTO decisions"));
    assert_eq!(
        written[0].params,
        [
            json!("deploying v2"),
            json!(true),
            json!("tests pass"),
            json!(1_767_225_600_000u64)
        ]
    );
    // Declined: nothing is recorded, and the model reads why.
    let declined = json!({ "approval": { "action": "decline" } });
    match step(
        "approve",
        Call::new(args).answered(declined),
        &FakeHost::new(),
    ) {
        Step::Complete(result) => {
            assert_eq!(result["isError"], true);
            assert!(
                result["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .starts_with("No decision")
            );
        }
        other => panic!("expected an isError result, got {other:?}"),
    }
}

#[test]
fn decisions_reads_the_rows_back_newest_first() {
    // The fake's D1 answers every statement containing the fragment with these rows.
    let host = FakeHost::new().d1_rows(
        "FROM decisions",
        vec![
            row(2, "deploying v2", 0, Some("too late")),
            row(1, "deploying v1", 1, None),
        ],
    );
    let found: Decisions = output(step("decisions", Call::new(json!({ "limit": 2 })), &host));
    let summary: Vec<_> = found
        .decisions
        .iter()
        .map(|d| (d.id, d.approved, d.reason.as_deref()))
        .collect();
    assert_eq!(summary, [(2, false, Some("too late")), (1, true, None)]);
    // A D1 failure (here: the fake has no answer) is an isError result the model reads.
    match step("decisions", Call::new(json!({})), &FakeHost::new()) {
        Step::Complete(result) => assert_eq!(result["isError"], true, "{result}"),
        other => panic!("expected an isError result, got {other:?}"),
    }
}
