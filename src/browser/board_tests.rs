//! Native tests of the store's merge rules (`board.rs`): one view of the listings and the
//! live states, who wins, what a terminal entry keeps, the numbers, the bound.

use super::board::{Board, DEFAULT_LIMIT, MAX_LIMIT, Source, limit};
use serde_json::{Map, Value, json};

/// A state created at `created`, updated at `updated`, with this server's facts.
fn state(id: &str, status: &str, created: &str, updated: &str, facts: Value) -> Map<String, Value> {
    let mut t = json!({ "taskId": id, "status": status, "createdAt": created,
                        "lastUpdatedAt": updated, "ttlMs": 60000,
                        "_meta": { "mcp-tasks-edge/task": facts } });
    if status == "input_required" {
        t["inputRequests"] =
            json!({ "q": { "method": "elicitation/create", "params": { "message": "?" } } });
    }
    t.as_object().cloned().unwrap()
}

fn shown(board: &Board) -> Vec<String> {
    board
        .tasks()
        .iter()
        .map(|t| {
            format!(
                "{} {}",
                t["taskId"].as_str().unwrap(),
                t["status"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn one_view_newest_first_with_the_finished_tasks() {
    let mut board = Board::new(DEFAULT_LIMIT);
    let tool = json!({ "tool": "process_batch" });
    assert!(board.offer(
        &state("old", "completed", "t1", "t2", tool.clone()),
        Source::Listed
    ));
    assert!(board.offer(
        &state("new", "working", "t3", "t3", tool.clone()),
        Source::Live
    ));
    assert!(board.offer(
        &state("mid", "failed", "t2", "t4", tool.clone()),
        Source::Listed
    ));
    assert_eq!(
        shown(&board),
        ["new working", "mid failed", "old completed"]
    );
    // The same state again changes nothing (the snapshot keeps its identity).
    assert!(!board.offer(&state("new", "working", "t3", "t3", tool), Source::Listed));
}

#[test]
fn the_later_state_wins_live_on_a_tie_and_a_terminal_entry_is_final() {
    let mut board = Board::new(DEFAULT_LIMIT);
    let facts = json!({ "tool": "t" });
    assert!(board.offer(
        &state("a", "working", "t1", "t5", facts.clone()),
        Source::Live
    ));
    // An older listing does not take a task back.
    assert!(!board.offer(
        &state("a", "input_required", "t1", "t4", facts.clone()),
        Source::Listed
    ));
    // On a tie the live state stays…
    let mut tie = state("a", "working", "t1", "t5", facts.clone());
    tie.insert("statusMessage".into(), "listed".into());
    assert!(!board.offer(&tie, Source::Listed));
    // …and a live one replaces a listed one.
    assert!(board.offer(
        &state("b", "working", "t2", "t2", facts.clone()),
        Source::Listed
    ));
    let mut live = state("b", "working", "t2", "t2", facts.clone());
    live.insert("statusMessage".into(), "live".into());
    assert!(board.offer(&live, Source::Live));
    // A later listing wins (a notification was missed).
    assert!(board.offer(
        &state("a", "input_required", "t1", "t6", facts.clone()),
        Source::Listed
    ));
    let a = &board.tasks()[1];
    assert_eq!(
        (
            a["status"].as_str(),
            a["inputRequests"]["q"]["method"].as_str()
        ),
        (Some("input_required"), Some("elicitation/create")),
        "pending input requests"
    );
    // Terminal: nothing replaces it, not even a later state.
    assert!(board.offer(
        &state("a", "cancelled", "t1", "t7", facts.clone()),
        Source::Live
    ));
    assert!(!board.offer(&state("a", "working", "t1", "t9", facts), Source::Live));
    let a = &board.tasks()[1];
    assert_eq!(
        (
            a["status"].as_str(),
            a["inputRequests"].as_object().map(Map::len)
        ),
        (Some("cancelled"), Some(0))
    );
}

#[test]
fn the_tool_and_the_numbers_outlive_the_states_that_omit_them() {
    let mut board = Board::new(DEFAULT_LIMIT);
    let facts = json!({ "tool": "process_batch", "title": "Process", "progress": 3, "total": 10 });
    board.offer(&state("a", "working", "t1", "t2", facts), Source::Live);
    let a = &board.tasks()[0];
    assert_eq!(
        (
            a["tool"].as_str(),
            a["progress"].as_f64(),
            a["total"].as_f64()
        ),
        (Some("process_batch"), Some(3.0), Some(10.0))
    );
    // A state without numbers (a status change) keeps them; the completed one shows the total.
    board.offer(
        &state("a", "working", "t1", "t3", Value::Null),
        Source::Live,
    );
    assert_eq!(board.tasks()[0]["progress"].as_f64(), Some(3.0));
    board.offer(
        &state(
            "a",
            "completed",
            "t1",
            "t4",
            json!({ "tool": "process_batch" }),
        ),
        Source::Live,
    );
    let a = &board.tasks()[0];
    assert_eq!(
        (
            a["progress"].as_f64(),
            a["total"].as_f64(),
            a["title"].as_str()
        ),
        (Some(10.0), Some(10.0), Some("Process"))
    );
    assert_eq!(
        (
            a["createdAt"].as_str(),
            a["lastUpdatedAt"].as_str(),
            a["ttlMs"].as_f64()
        ),
        (Some("t1"), Some("t4"), Some(60000.0))
    );
}

#[test]
fn beyond_the_limit_the_oldest_finished_tasks_go_and_unfinished_ones_stay() {
    let mut board = Board::new(2);
    let f = || json!({ "tool": "t" });
    board.offer(&state("w1", "working", "t1", "t1", f()), Source::Live);
    board.offer(&state("c2", "completed", "t2", "t2", f()), Source::Listed);
    board.offer(&state("c3", "completed", "t3", "t3", f()), Source::Listed);
    assert_eq!(shown(&board), ["c3 completed", "w1 working"]);
    // An older finished one does not even come in.
    assert!(!board.offer(&state("c0", "completed", "t0", "t0", f()), Source::Listed));
    board.offer(&state("w4", "working", "t4", "t4", f()), Source::Live);
    board.offer(&state("w5", "working", "t5", "t5", f()), Source::Live);
    assert_eq!(
        shown(&board),
        ["w5 working", "w4 working", "w1 working"],
        "unfinished: all kept"
    );
    assert_eq!(
        (
            limit(None),
            limit(Some(0.0)),
            limit(Some(1e9)),
            limit(Some(20.0))
        ),
        (DEFAULT_LIMIT, 1, MAX_LIMIT, 20)
    );
}
