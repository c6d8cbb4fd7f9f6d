//! A 2025-11-25 session's legacy task requests (`legacy::task_ops`) on task objects that
//! answer as the real ones do (tests/common/reach.rs): each reaches its task as the session
//! does, answers in the era's shapes, and `tasks/result` is followed as the principal
//! that reaches the task. Attacked: a keyed caller's task is unknown to a session.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::reach::{KEYED, MINE, THEIRS, world};
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::legacy::TaskOp;
use mcp_tasks_edge::legacy::task_ops::{Answer, perform};
use serde_json::{Value, json};

fn json(answer: Answer) -> Result<Value, McpError> {
    match answer {
        Answer::Json(outcome) => outcome,
        other => panic!("not one JSON answer: {other:?}"),
    }
}

#[test]
fn tasks_get_answers_a_legacy_task_or_a_stream_of_its_questions_first() {
    let mut o = world();
    let b = o.stored.clone();
    let task = json(block_on(perform(
        &mut o,
        &b,
        TaskOp::Get(MINE.into()),
        false,
    )))
    .unwrap();
    assert_eq!(
        (task["taskId"].as_str(), task["status"].as_str()),
        (Some(MINE), Some("working"))
    );
    let question = json!({ "jsonrpc": "2.0", "id": "q", "method": "elicitation/create" });
    o.questions = vec![question.clone()];
    match block_on(perform(&mut o, &b, TaskOp::Get(MINE.into()), true)) {
        Answer::Questions { questions, result } => {
            assert_eq!(questions, [question]);
            assert_eq!(result["taskId"], MINE);
        }
        other => panic!("its questions on the poll's response: {other:?}"),
    }
}

#[test]
fn tasks_cancel_reaches_the_task_as_the_session_does() {
    let mut o = world();
    let b = o.stored.clone();
    let cancelled = json(block_on(perform(
        &mut o,
        &b,
        TaskOp::Cancel(THEIRS.into()),
        false,
    )));
    assert_eq!(cancelled.unwrap()["status"], "cancelled");
    assert_eq!(
        o.sent,
        ["cancel as own", "get as any", "store", "cancel as any"]
    );
    let keyed = json(block_on(perform(
        &mut o,
        &b,
        TaskOp::Cancel(KEYED.into()),
        false,
    )));
    assert_eq!(
        keyed.unwrap_err().to_wire(),
        McpError::TaskNotFound.to_wire()
    );
    assert_eq!(o.tasks[KEYED].1["status"], "working", "never cancelled");
}

#[test]
fn tasks_list_holds_the_reached_tasks_on_its_first_page_only() {
    let mut o = world();
    let b = o.stored.clone();
    block_on(perform(&mut o, &b, TaskOp::Get(THEIRS.into()), false));
    let b = o.stored.clone();
    let first = json(block_on(perform(&mut o, &b, TaskOp::List(None), false))).unwrap();
    let ids: Vec<&str> = (first["tasks"].as_array().unwrap().iter())
        .map(|t| t["taskId"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [MINE, THEIRS],
        "its own, then the one it reached, newest first"
    );
    let next = json(block_on(perform(
        &mut o,
        &b,
        TaskOp::List(Some("c".into())),
        false,
    )))
    .unwrap();
    assert_eq!(
        next["tasks"].as_array().unwrap().len(),
        1,
        "a later page: the index only"
    );
    let principal = b.principal.clone();
    assert_eq!(
        o.pages,
        [(principal.clone(), None), (principal, Some("c".into()))]
    );
}

#[test]
fn tasks_result_is_followed_as_the_principal_that_reaches_the_task() {
    let mut o = world();
    let b = o.stored.clone();
    match block_on(perform(&mut o, &b, TaskOp::Result(THEIRS.into()), true)) {
        Answer::Follow {
            task_id,
            principal,
            read,
        } => {
            assert_eq!(
                (task_id.as_str(), principal.as_str()),
                (THEIRS, "anonymous-session:*")
            );
            assert_eq!(
                read.unwrap()["taskId"],
                THEIRS,
                "what it read is handed over"
            );
        }
        other => panic!("followed: {other:?}"),
    }
    let keyed = json(block_on(perform(
        &mut o,
        &b,
        TaskOp::Result(KEYED.into()),
        true,
    )));
    assert_eq!(
        keyed.unwrap_err().to_wire(),
        McpError::TaskNotFound.to_wire()
    );
}
