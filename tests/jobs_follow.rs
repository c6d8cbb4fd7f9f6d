//! Jobs for clients without the Tasks extension (`server::jobs`, docs/hosts.md): what
//! each state of the job makes of the waiting call (progress, the answer, the pending
//! result with its next calls, questions, refusals), and the MRTR round that carries a
//! job's question. When a call detaches and the handle tools: tests/jobs.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::jobs::{JOB, answer, call_reader, run, task, text};
use common::*;
use mcp_tasks_edge::http::HttpResponse;
use mcp_tasks_edge::server::jobs::{Follow, JobRun, Next, Reader};
use mcp_tasks_edge::server::{Action, Context};
use mcp_tasks_edge::tasks::protocol::ObjectRequest;
use serde_json::{Value, json};

#[test]
fn the_follower_reports_each_new_status_once() {
    let run = run(call_reader(), true, json!({}));
    let mut follow = Follow::new(&run, true);
    let working = |m: &str| task("working", json!({ "statusMessage": m }));
    let reports = |next: &[Next]| -> Vec<(f64, Option<String>)> {
        next.iter()
            .filter_map(|n| match n {
                Next::Progress(r) => Some((r.progress, r.message.clone())),
                _ => None,
            })
            .collect()
    };
    let first = follow.state(working("1/3"));
    assert_eq!(reports(&first), [(1.0, Some("1/3".into()))]);
    assert_eq!(first.last(), Some(&Next::Wait));
    assert_eq!(reports(&follow.state(working("1/3"))), []);
    assert_eq!(
        reports(&follow.state(working("2/3"))),
        [(2.0, Some("2/3".into()))]
    );
    // The wait is over: the handle, the last status, and what to call next.
    let pending = body(&follow.waited());
    assert_eq!(pending["result"]["isError"], false);
    // All a model needs, in structuredContent too (some hosts show it alone): the next
    // calls with their exact arguments.
    let structured = &pending["result"]["structuredContent"];
    assert_eq!(
        structured["next"],
        json!([
            { "tool": "job_status", "arguments": { "job": JOB, "waitSeconds": 30 } },
            { "tool": "job_cancel", "arguments": { "job": JOB } },
        ])
    );
    assert_eq!(
        (
            &structured["job"],
            &structured["status"],
            &structured["statusMessage"],
            &structured["tool"]
        ),
        (
            &json!(JOB),
            &json!("working"),
            &json!("2/3"),
            &json!("slow_compute")
        )
    );
    let message = structured["message"].as_str().unwrap();
    assert!(
        message.contains(JOB) && message.contains("nothing is lost") && message.contains("next"),
        "{message}"
    );
    let said = text(&pending);
    assert!(
        said.contains("it goes on as a job") && said.contains(JOB) && said.contains("job_status"),
        "{said}"
    );
    // Without a progress token nothing is reported.
    let quiet = run_without_token();
    let mut follow = Follow::new(&quiet, true);
    assert_eq!(follow.state(working("1/3")), [Next::Wait]);
}

#[test]
fn the_follower_reports_the_jobs_numbers_above_what_the_call_already_reported() {
    // The steps before the job streamed their own report (1 of 4): the follower goes on
    // above it, with the task's numbers and total, and only when they go up.
    let run = JobRun {
        reported: 1.0,
        ..run(call_reader(), true, json!({}))
    };
    let mut follow = Follow::new(&run, true);
    let at = |done: f64, m: &str| {
        task(
            "working",
            json!({ "statusMessage": m, "_meta": { "mcp-tasks-edge/task": { "tool": "slow_compute", "progress": done, "total": 4.0 } } }),
        )
    };
    let reports = |next: Vec<Next>| -> Vec<(f64, Option<f64>, Option<String>)> {
        next.into_iter()
            .filter_map(|n| match n {
                Next::Progress(r) => Some((r.progress, r.total, r.message)),
                _ => None,
            })
            .collect()
    };
    assert_eq!(reports(follow.state(at(1.0, "1/4"))), []);
    assert_eq!(
        reports(follow.state(at(2.0, "2/4"))),
        [(2.0, Some(4.0), Some("2/4".into()))]
    );
    // A new message without a higher number is not a notification (progress MUST increase).
    assert_eq!(reports(follow.state(at(2.0, "2/4, slowly"))), []);
    assert_eq!(
        reports(follow.state(at(3.5, "3.5/4"))),
        [(3.5, Some(4.0), Some("3.5/4".into()))]
    );
    // A state without numbers after them: the next whole number.
    let plain = task("working", json!({ "statusMessage": "almost" }));
    assert_eq!(
        reports(follow.state(plain)),
        [(4.0, None, Some("almost".into()))]
    );
}

fn run_without_token() -> JobRun {
    run(call_reader(), false, json!({}))
}

#[test]
fn a_finished_job_answers_as_the_call_would_have() {
    let run = run(call_reader(), false, json!({}));
    let result = json!({ "content": [{ "type": "text", "text": "done" }], "isError": false });
    let done =
        answer(Follow::new(&run, false).state(task("completed", json!({ "result": result }))));
    assert_eq!(done["id"], 7);
    assert_eq!(
        done["result"],
        json!({ "content": [{ "type": "text", "text": "done" }], "isError": false, "resultType": "complete" })
    );
    let error = json!({ "code": -32603, "message": "boom" });
    let failed = answer(Follow::new(&run, false).state(task("failed", json!({ "error": error }))));
    assert_eq!(failed["error"], error);
    let cancelled = answer(Follow::new(&run, false).state(task("cancelled", json!({}))));
    assert_eq!(cancelled["result"]["isError"], true);
    assert!(text(&cancelled).contains("was cancelled"));
    // Read through a handle tool: the job's own result, introduced.
    let handle = self::run(Reader::Handle, false, json!({}));
    let read =
        answer(Follow::new(&handle, false).state(task("completed", json!({ "result": result }))));
    assert_eq!(read["result"]["content"][1]["text"], "done");
    assert_eq!(
        read["result"]["_meta"]["mcp-tasks-edge/job"]["status"],
        "completed"
    );
    let failed =
        answer(Follow::new(&handle, false).state(task("failed", json!({ "error": error }))));
    assert_eq!(
        (
            failed["result"]["isError"].clone(),
            failed["result"]["structuredContent"]["error"].clone()
        ),
        (json!(true), error)
    );
    let cancelled = answer(Follow::new(&handle, false).state(task("cancelled", json!({}))));
    assert_eq!(cancelled["result"]["isError"], false);
    // A state that does not decode is an error naming why (invariant 5).
    let broken = answer(Follow::new(&handle, false).state(json!({ "status": "sleeping" })));
    assert_eq!(broken["error"]["code"], -32603);
}

#[test]
fn questions_go_to_the_client_only_when_it_can_answer_them() {
    let question = json!({ "confirm": { "method": "elicitation/create", "params": {
        "mode": "form", "message": "Delete a?", "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] } } } });
    let waiting = || task("input_required", json!({ "inputRequests": question }));
    let with_elicitation = run(call_reader(), false, json!({ "elicitation": {} }));
    assert_eq!(
        Follow::new(&with_elicitation, true).state(waiting()),
        [Next::Ask(question.as_object().unwrap().clone())]
    );
    // Nobody to ask (no stream, no signing key), or a client without elicitation: the
    // question and how to answer it, with the handle tools.
    for (run, asks) in [
        (with_elicitation.clone(), false),
        (run_without_token(), true),
    ] {
        let pending = answer(Follow::new(&run, asks).state(waiting()));
        let result = &pending["result"];
        assert_eq!(result["structuredContent"]["status"], "input_required");
        assert_eq!(result["structuredContent"]["inputRequests"], question);
        assert_eq!(
            result["structuredContent"]["next"],
            json!([
                { "tool": "job_answer", "arguments": { "job": JOB, "answers": { "confirm": { "action": "accept", "content": {} } } } },
                { "tool": "job_status", "arguments": { "job": JOB, "waitSeconds": 30 } },
                { "tool": "job_cancel", "arguments": { "job": JOB } },
            ])
        );
        let said = text(&pending);
        assert!(
            said.contains("Delete a?")
                && said.contains("job_answer")
                && said.contains("\"confirm\""),
            "{said}"
        );
    }
}

#[test]
fn refusals_name_the_rule_and_reveal_nothing() {
    let run = run(Reader::Handle, false, json!({}));
    let follow = Follow::new(&run, false);
    let unknown = body(&follow.refused(&mcp_tasks_edge::error::McpError::TaskNotFound.to_wire()));
    assert_eq!(unknown["result"]["isError"], true);
    assert_eq!(
        unknown["result"]["structuredContent"]["error"],
        "unknown_job"
    );
    assert!(text(&unknown).starts_with(&format!("Unknown job {JOB}")));
    let bad = mcp_tasks_edge::error::McpError::InvalidParams(
        "Invalid input response for confirm: /content/ok: \"x\" is not of type boolean".into(),
    );
    let refused = body(&follow.refused(&bad.to_wire()));
    assert!(text(&refused).contains("/content/ok"));
    let unreachable: HttpResponse = follow.unreachable("down");
    assert_eq!(error_of(&unreachable), (500, -32603));
}

#[test]
fn a_jobs_question_travels_by_mrtr_and_its_answer_goes_to_the_job() {
    let server = server();
    let run = JobRun {
        arguments: json!({ "seconds": 90 }).as_object().unwrap().clone(),
        ..run(call_reader(), false, json!({ "elicitation": {} }))
    };
    let question = json!({ "confirm": { "method": "elicitation/create", "params": {
        "mode": "form", "message": "Go on?", "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] } } } });
    let asked = mcp_tasks_edge::server::jobs::input_required(
        &server,
        &run,
        question.as_object().unwrap(),
        &ctx(),
    )
    .unwrap();
    assert_eq!(
        (asked["resultType"].clone(), asked["inputRequests"].clone()),
        (json!("input_required"), question)
    );
    let state = asked["requestState"].clone();
    let retry = |answer: Value, ctx: &Context| {
        let params = json!({ "name": "slow_compute", "arguments": { "seconds": 90 }, "requestState": state,
            "inputResponses": { "confirm": answer }, "_meta": meta(json!({ "elicitation": {} })) });
        run_action_at(
            &server,
            server.handle(&post("tools/call", params), ctx),
            ctx,
        )
    };
    let accepted = json!({ "action": "accept", "content": { "ok": true } });
    let Action::Job(resumed) = retry(accepted.clone(), &ctx()) else {
        panic!("expected the job")
    };
    assert_eq!(
        resumed.first,
        Some(ObjectRequest::Update {
            task_id: JOB.into(),
            input_responses: json!({ "confirm": accepted }).as_object().unwrap().clone()
        })
    );
    assert_eq!((resumed.job.as_str(), resumed.wait_ms), (JOB, 30_000));
    // An answer that does not fit is refused with its path; another principal's retry too.
    let Action::Respond(r) = retry(
        json!({ "action": "accept", "content": { "ok": "yes" } }),
        &ctx(),
    ) else {
        panic!()
    };
    assert!(
        body(&r)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("ok"),
        "{}",
        body(&r)
    );
    let stranger = Context {
        principal: "key:stranger".into(),
        ..ctx()
    };
    let Action::Respond(r) = retry(accepted, &stranger) else {
        panic!()
    };
    assert!(
        body(&r)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("different principal")
    );
}
