//! `Step::NeedInputAt`: a question that sets the checkpoint its step re-runs with, in a
//! task (one write: the questions and the checkpoint) and in an inline call (sealed in the
//! MRTR round's `requestState`, so the retry resumes from it).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{NOW, working_task};
use mcp_tasks_edge::mcp::input::elicit_form;
use mcp_tasks_edge::tasks::execution::{self, Limits};
use mcp_tasks_edge::tasks::record::TaskRecord;
use mcp_tasks_edge::tools::{Step, one_request};
use serde_json::{Value, json};
const LIMITS: Limits = Limits {
    max_attempts: 3,
    lease_ms: 60_000,
    max_result_bytes: 1 << 20,
};

fn working() -> TaskRecord {
    working_task(
        "gw",
        json!({ "elicitation": {} }),
        json!({ "phase": "calling" }),
    )
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
