//! Reading a task and its stored record without serde's buffering (src/tasks/task/wire.rs,
//! src/tasks/record/wire.rs, `layout::decode_hot`): every status reads back to the very
//! bytes it was written as, records stored by the previous code (formats 1, 2 and 3) still
//! read, and a payload that does not fit its status is refused by name.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::tasks::layout::{self, Dirty, HOT_KEY};
use mcp_tasks_edge::tasks::record::TaskRecord;
use mcp_tasks_edge::tasks::task::{Task, TaskStatus};
use serde_json::{Value, json};

const HEAD: &str = r#"{"taskId":"t1","owner":"alice","tool":"greet","arguments":{"name":"Luca"},"capabilities":{"elicitation":{}},"#;

/// The status members of a record of every status, as the previous code wrote them.
const STATUSES: [&str; 6] = [
    r#""status":"working","statusMessage":"Working","#,
    r#""status":"input_required","inputRequests":{"confirm#1":{"method":"elicitation/create","params":{"message":"Sure?"}}},"#,
    r#""status":"completed","result":{"content":[{"text":"Hello, Luca!","type":"text"}],"isError":false},"#,
    r#""status":"completed","result":null,"#,
    r#""status":"failed","error":{"code":-32603,"message":"boom","data":{"why":"rate"}},"statusMessage":"Failed: boom","#,
    r#""status":"cancelled","#,
];

const TAIL: &str = r#""createdAtMs":1000,"lastUpdatedAtMs":2000,"ttlMs":60000,"pollIntervalMs":1000,"checkpoint":{"step":2},"answers":{"name":"bob"},"round":1,"nextStepAtMs":2500,"lease":{"attempt":2,"deadlineMs":62000},"version":7}"#;

fn records() -> Vec<String> {
    let mut all: Vec<String> = STATUSES
        .iter()
        .map(|status| format!("{HEAD}{status}{TAIL}"))
        .collect();
    // Optional members absent, `ttlMs` null (unlimited).
    all.push(format!(
        r#"{HEAD}"status":"cancelled","createdAtMs":1,"lastUpdatedAtMs":2,"ttlMs":null,"pollIntervalMs":5,"checkpoint":null,"answers":{{}},"round":0,"version":0}}"#
    ));
    all
}

fn record(text: &str) -> Result<TaskRecord, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

#[test]
fn every_status_of_a_record_reads_back_to_the_same_bytes() {
    for text in records() {
        let decoded = record(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(serde_json::to_string(&decoded).unwrap(), text);
    }
}

#[test]
fn every_status_of_a_format_3_hot_record_reads_back_to_the_same_bytes() {
    let parts = r#","parts":{"arguments":0,"checkpoint":0,"result":0,"answers":{},"timeline":2,"entries":{"0":{"atMs":1000,"event":"created","status":"working"},"1":{"atMs":2000,"event":"input_answered","status":"working"}}}}"#;
    for text in records() {
        let hot = format!(r#"{{"format":3,{}{parts}"#, &text[1..text.len() - 1]);
        let stored = layout::decode_hot(&hot).unwrap_or_else(|e| panic!("{hot}: {e}"));
        assert!(!stored.legacy);
        let (writes, parts) = layout::encode(&stored.record, &stored.parts, &Dirty::default());
        assert_eq!(parts, stored.parts);
        assert_eq!(writes.put, vec![(HOT_KEY.to_owned(), hot)]);
    }
}

#[test]
fn a_format_2_record_with_its_result_apart_still_reads() {
    // As format 2 stored a completed task: every part apart, the result a null placeholder.
    let hot = r#"{"format":2,"taskId":"t1","owner":"alice","tool":"greet","arguments":{},"capabilities":{},"status":"completed","statusMessage":"Done","createdAtMs":1000,"lastUpdatedAtMs":2000,"ttlMs":60000,"pollIntervalMs":1000,"checkpoint":null,"answers":{},"round":0,"version":3,"result":null,"parts":{"arguments":1,"checkpoint":1,"result":2,"answers":{"name":1},"timeline":4}}"#;
    let stored = layout::decode_hot(hot).unwrap();
    assert_eq!(
        stored.record.status(),
        &TaskStatus::Completed {
            result: Value::Null
        }
    );
    assert_eq!(stored.record.version(), 3);
    assert_eq!(
        (stored.parts.result, stored.parts.answers.get("name")),
        (2, Some(&1))
    );
    assert_eq!(
        layout::keys_for(&stored, layout::Need::Result),
        ["result.0", "result.1"]
    );
}

#[test]
fn a_format_1_record_in_flight_still_reads() {
    // Format 1: no `format`, no `parts`, no lease or version, `stepRunning` instead.
    let hot = r#"{"taskId":"t1","owner":"alice","tool":"greet","arguments":{"name":"Luca"},"capabilities":{},"status":"input_required","inputRequests":{"name#1":{"method":"elicitation/create"}},"createdAtMs":1000,"lastUpdatedAtMs":2000,"ttlMs":null,"pollIntervalMs":1000,"checkpoint":3,"answers":{},"round":1,"stepRunning":true}"#;
    let stored = layout::decode_hot(hot).unwrap();
    assert!(stored.legacy);
    assert_eq!(stored.record.status().name(), "input_required");
    assert_eq!(stored.record.checkpoint(), &json!(3));
    assert_eq!(stored.record.version(), 0);
    assert_eq!(stored.record.lease().map(|l| l.attempt), Some(1));
}

/// Each case: a record's status members and the words its refusal must name.
const BAD: [(&str, &str); 9] = [
    (
        r#""status":"completed","#,
        "missing field `result` (status completed carries it)",
    ),
    (
        r#""status":"failed","#,
        "missing field `error` (status failed carries it)",
    ),
    (
        r#""status":"input_required","#,
        "missing field `inputRequests` (status input_required carries it)",
    ),
    (
        r#""status":"input_required","inputRequests":[1],"#,
        "input_required: inputRequests must be an object",
    ),
    (
        r#""status":"failed","error":{"code":"x","message":"m"},"#,
        "failed: error is not an error object",
    ),
    (
        r#""status":"working","result":{"content":[]},"#,
        "status working carries no result",
    ),
    (
        r#""status":"cancelled","inputRequests":{},"#,
        "status cancelled carries no inputRequests",
    ),
    (
        r#""status":"completed","result":1,"error":{"code":1,"message":"m"},"#,
        "status completed carries no error",
    ),
    (r#""status":"paused","#, "unknown variant `paused`"),
];

#[test]
fn a_payload_that_does_not_fit_its_status_is_refused_by_name() {
    for (status, words) in BAD {
        let text = format!("{HEAD}{status}{TAIL}");
        let error = record(&text).unwrap_err();
        assert!(error.contains(words), "{text}: {error}");
        let hot = format!(
            r#"{{"format":3,{},"parts":{{}}}}"#,
            &text[1..text.len() - 1]
        );
        let error = layout::decode_hot(&hot).unwrap_err();
        assert!(
            error.starts_with("corrupt task record") && error.contains(words),
            "{hot}: {error}"
        );
    }
}

#[test]
fn a_record_without_its_status_or_parts_is_refused_by_name() {
    let error = record(&format!("{HEAD}{}", &TAIL)).unwrap_err();
    assert!(error.contains("missing field `status`"), "{error}");
    let hot = format!(r#"{{"format":3,{}{}{TAIL}"#, &HEAD[1..], STATUSES[0]);
    let error = layout::decode_hot(&hot).unwrap_err();
    assert!(error.contains("missing field `parts`"), "{error}");
    let error = layout::decode_hot("[1]").unwrap_err();
    assert!(error.contains("not a JSON object"), "{error}");
}

#[test]
fn tasks_read_back_to_the_same_bytes_and_refuse_what_records_refuse() {
    let head = r#"{"taskId":"t1","#;
    let tail = r#""createdAt":"2025-11-25T10:30:00.000Z","lastUpdatedAt":"2025-11-25T10:30:01.000Z","ttlMs":null,"pollIntervalMs":1000}"#;
    for status in STATUSES {
        let text = format!("{head}{status}{tail}");
        let task: Task = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(serde_json::to_string(&task).unwrap(), text);
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(TaskStatus::of_task(&value).unwrap(), task.status);
    }
    for (status, words) in BAD {
        let text = format!("{head}{status}{tail}");
        let error = serde_json::from_str::<Task>(&text).unwrap_err().to_string();
        assert!(error.contains(words), "{text}: {error}");
        let value: Value = serde_json::from_str(&text).unwrap();
        let error = TaskStatus::of_task(&value).unwrap_err().to_string();
        assert!(error.contains(words), "{text}: {error}");
    }
}

#[test]
fn a_task_status_without_a_string_status_is_refused_by_name() {
    for (task, words) in [
        (json!({ "taskId": "t" }), "missing field `status`"),
        (json!({ "status": 3 }), "status must be a string"),
        (json!([]), "not a JSON object"),
    ] {
        let error = TaskStatus::of_task(&task).unwrap_err().to_string();
        assert!(error.contains(words), "{task}: {error}");
    }
}
