//! `Step::NeedInputAt`: a question that sets the checkpoint its step re-runs with, in a
//! task (one write: the questions and the checkpoint) and in an inline call (sealed in the
//! MRTR round's `requestState`, so the retry resumes from it).
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::mcp::input::elicit_form;
use mcp_tasks_edge::tasks::execution::{self, Limits};
use mcp_tasks_edge::tasks::record::{NewTask, TaskRecord};
use mcp_tasks_edge::tools::{Step, one_request};
use serde_json::{Map, Value, json};

const NOW: u64 = 1_000_000;
const LIMITS: Limits = Limits {
    max_attempts: 3,
    lease_ms: 60_000,
    max_result_bytes: 1 << 20,
};

fn working() -> TaskRecord {
    let mut record = TaskRecord::new(NewTask {
        tool: "gw".into(),
        title: None,
        owner: "anonymous".into(),
        arguments: Map::new(),
        capabilities: json!({ "elicitation": {} }).as_object().unwrap().clone(),
        checkpoint: json!({ "phase": "calling" }),
        answers: Map::new(),
        status_message: None,
        amount: None,
        now_ms: NOW,
        ttl_ms: None,
        poll_interval_ms: 1000,
        next_step_at_ms: NOW,
    });
    record.assign_id("0123456789abcdef0123456789abcdef".into());
    record
}

#[test]
fn a_task_asks_and_stores_the_checkpoint_in_one_write() {
    let mut record = working();
    let requests = one_request(
        "confirm",
        elicit_form("Deploy?", json!({ "type": "object" })),
    );
    let step = Step::NeedInputAt {
        requests,
        checkpoint: json!({ "phase": "asking", "state": "s1" }),
    };
    let dirty = execution::advance(&mut record, step, NOW, LIMITS).unwrap();
    assert!(
        dirty.checkpoint,
        "the checkpoint is written with the question"
    );
    assert_eq!(record.status().name(), "input_required");
    assert_eq!(
        record.checkpoint(),
        &json!({ "phase": "asking", "state": "s1" })
    );
    // A plain NeedInput keeps the checkpoint it had.
    let mut record = working();
    let ask = Step::ask("k", elicit_form("Name?", json!({ "type": "object" })));
    let dirty = execution::advance(&mut record, ask, NOW, LIMITS).unwrap();
    assert!(!dirty.checkpoint);
    assert_eq!(record.checkpoint(), &json!({ "phase": "calling" }));
}

#[test]
fn its_questions_are_checked_like_any_step_s() {
    let mut record = working();
    let step = Step::NeedInputAt {
        requests: one_request("bad", json!({ "method": "nonsense/ask" })),
        checkpoint: Value::Null,
    };
    execution::advance(&mut record, step, NOW, LIMITS).unwrap();
    assert_eq!(record.status().name(), "failed");
}
