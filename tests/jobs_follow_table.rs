//! The job follower (`server::jobs::Follow`) as a table: every state a task can be in,
//! and every other event of a wait (its end, a refusal, an unreachable object), for each
//! reader (the call that started the job, a handle tool), with and without someone to ask
//! and a progress token: what the waiting request does next. A change in any cell fails
//! here; the prose tests of each rule are in tests/jobs_follow.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::jobs::{call_reader, run, task};
use common::*;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::server::jobs::{Follow, JobRun, Next, Reader};
use serde_json::{Value, json};

/// What one `Next` is, in a word: `wait`, `progress`, `ask`, or the answer as
/// `result` (the call's own result), `job <status>` (a job result), `refused <rule>` (a
/// job result naming the rule that refused), each with ` error` when it is a tool error;
/// or `error <code>` (a JSON-RPC error).
fn kind(next: &Next) -> String {
    match next {
        Next::Wait => "wait".into(),
        Next::Progress(_) => "progress".into(),
        Next::Ask(_) => "ask".into(),
        Next::Answer(response) => answered(&body(response)),
    }
}

fn answered(message: &Value) -> String {
    if let Some(code) = message["error"]["code"].as_i64() {
        return format!("error {code}");
    }
    let result = &message["result"];
    let error = if result["isError"] == true {
        " error"
    } else {
        ""
    };
    let job = &result["structuredContent"];
    match (
        result["_meta"]["mcp-tasks-edge/job"]["status"].as_str(),
        job["error"].as_str(),
    ) {
        (Some(status), _) => format!("job {status}{error}"),
        (None, Some(rule)) => format!("refused {rule}{error}"),
        (None, None) => format!("result{error}"),
    }
}

fn states() -> Vec<(&'static str, Value)> {
    let question = json!({ "confirm": { "method": "elicitation/create", "params": {
        "mode": "form", "message": "Go on?", "requestedSchema": { "type": "object", "properties": {} } } } });
    let result = json!({ "content": [{ "type": "text", "text": "done" }], "isError": false });
    vec![
        ("working", task("working", json!({}))),
        (
            "working, a message",
            task("working", json!({ "statusMessage": "1/3" })),
        ),
        (
            "working, numbers",
            task(
                "working",
                json!({ "_meta": { "mcp-tasks-edge/task": { "progress": 1, "total": 3 } } }),
            ),
        ),
        (
            "input_required",
            task("input_required", json!({ "inputRequests": question })),
        ),
        ("completed", task("completed", json!({ "result": result }))),
        (
            "failed",
            task(
                "failed",
                json!({ "error": { "code": -32603, "message": "boom" } }),
            ),
        ),
        ("cancelled", task("cancelled", json!({}))),
        ("undecodable", json!({ "status": "sleeping" })),
    ]
}

/// One column of the table: a reader, whether the client declared elicitation and can be
/// asked here, and whether the call carries a progress token.
struct Column {
    reader: Reader,
    elicitation: bool,
    asks: bool,
    token: bool,
}

fn column(call: bool, elicitation: bool, asks: bool, token: bool) -> Column {
    Column {
        reader: if call { call_reader() } else { Reader::Handle },
        elicitation,
        asks,
        token,
    }
}

fn job_run(c: &Column) -> JobRun {
    let capabilities = match c.elicitation {
        true => json!({ "elicitation": {} }),
        false => json!({}),
    };
    run(c.reader.clone(), c.token, capabilities)
}

#[test]
fn every_state_for_every_reader_asker_and_token() {
    let columns = [
        column(true, true, true, true),
        column(true, true, false, false),
        column(true, false, true, false),
        column(false, true, true, true),
        column(false, false, false, false),
    ];
    // One row per state, one cell per column above.
    let expected: [[&str; 5]; 8] = [
        ["wait", "wait", "wait", "wait", "wait"],
        ["progress wait", "wait", "wait", "progress wait", "wait"],
        ["progress wait", "wait", "wait", "progress wait", "wait"],
        [
            "ask",
            "job input_required",
            "job input_required",
            "ask",
            "job input_required",
        ],
        [
            "result",
            "result",
            "result",
            "job completed",
            "job completed",
        ],
        [
            "error -32603",
            "error -32603",
            "error -32603",
            "job failed error",
            "job failed error",
        ],
        [
            "job cancelled error",
            "job cancelled error",
            "job cancelled error",
            "job cancelled",
            "job cancelled",
        ],
        [
            "error -32603",
            "error -32603",
            "error -32603",
            "error -32603",
            "error -32603",
        ],
    ];
    let mut seen = Vec::new();
    for (row, (state, task)) in states().into_iter().enumerate() {
        let cells: Vec<String> = columns
            .iter()
            .map(|c| {
                let run = job_run(c);
                let next = Follow::new(&run, c.asks).state(task.clone());
                next.iter().map(kind).collect::<Vec<_>>().join(" ")
            })
            .collect();
        assert_eq!(cells, expected[row], "{state}");
        seen.push(state);
    }
    assert_eq!(seen.len(), expected.len(), "every state has its row");
}

#[test]
fn every_other_event_for_every_reader() {
    let unknown = McpError::TaskNotFound.to_wire();
    let misfit = McpError::InvalidParams("Invalid input response for confirm".into()).to_wire();
    let events = [
        "the wait ends before any state",
        "the wait ends after a state",
        "refused: unknown",
        "refused: answers that do not fit",
        "unreachable",
    ];
    // One row per reader (the call, a handle tool), one cell per event above.
    let expected = [
        [
            "job working",
            "job working",
            "refused unknown_job error",
            "refused refused error",
            "error -32603",
        ],
        [
            "job working",
            "job working",
            "refused unknown_job error",
            "refused refused error",
            "error -32603",
        ],
    ];
    for (row, call) in [true, false].into_iter().enumerate() {
        let run = job_run(&column(call, false, false, false));
        let mut follow = Follow::new(&run, false);
        let mut cells = vec![answered(&body(&follow.waited()))];
        follow.state(task("working", json!({})));
        cells.push(answered(&body(&follow.waited())));
        cells.push(answered(&body(&follow.refused(&unknown))));
        cells.push(answered(&body(&follow.refused(&misfit))));
        cells.push(answered(&body(&follow.unreachable("down"))));
        assert_eq!(cells.len(), events.len());
        assert_eq!(cells, expected[row], "call: {call}; events: {events:?}");
    }
}
