//! A legacy task's questions on the session's GET streams (`legacy::questions`): what a
//! poll sends where, never twice to one stream, not while a `tasks/result` asks, one
//! answer per question; and the task object taking an answer once.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::channel::question_ids;
use common::object::{ID, Object};
use common::*;
use mcp_tasks_edge::legacy::questions::{Answered, MAX_SENT, Outgoing, Poll, Questions};
use mcp_tasks_edge::server::Action;
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use serde_json::{Value, json};

const ASK: &str = "confirm#1";

fn waiting(task_id: &str, keys: &[&str]) -> Value {
    let mut requests = serde_json::Map::new();
    for key in keys {
        requests.insert(
            (*key).into(),
            json!({ "method": "elicitation/create", "params": { "mode": "form", "message": format!("{key}?"),
                "requestedSchema": { "type": "object", "properties": {} } } }),
        );
    }
    json!({ "taskId": task_id, "status": "input_required", "inputRequests": requests,
        "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": null })
}

#[test]
fn the_second_poll_sends_the_questions_to_every_open_get_stream_once() {
    let mut q = Questions::default();
    let mut next = question_ids();
    let task = waiting(ID, &[ASK]);
    // First poll: the client may still call tasks/result (the spec's SHOULD): nothing yet.
    assert_eq!(q.poll(&task, &[1, 2], false, &mut next).streams, vec![]);
    let sent = q.poll(&task, &[1, 2], false, &mut next).streams;
    assert_eq!(
        sent,
        vec![
            Outgoing {
                stream: 1,
                message: json!({ "jsonrpc": "2.0", "id": "q-1", "method": "elicitation/create",
                    "params": { "mode": "form", "message": "confirm#1?", "requestedSchema": { "type": "object", "properties": {} },
                        "_meta": { "io.modelcontextprotocol/related-task": { "taskId": ID } } } }),
            },
            Outgoing {
                stream: 2,
                message: json!({ "jsonrpc": "2.0", "id": "q-2", "method": "elicitation/create",
                    "params": { "mode": "form", "message": "confirm#1?", "requestedSchema": { "type": "object", "properties": {} },
                        "_meta": { "io.modelcontextprotocol/related-task": { "taskId": ID } } } }),
            },
        ]
    );
    // Never twice to one stream; a stream opened later gets it on the next poll.
    assert_eq!(q.poll(&task, &[1, 2], false, &mut next).streams, vec![]);
    let late = q.poll(&task, &[1, 2, 3], false, &mut next).streams;
    assert_eq!(late.len(), 1);
    assert_eq!(late[0].stream, 3);
    // No stream open: nothing to send, and nothing lost (a stream opened later gets it).
    let mut alone = Questions::default();
    alone.poll(&task, &[], false, &mut next);
    assert_eq!(alone.poll(&task, &[], false, &mut next).streams, vec![]);
    assert_eq!(alone.poll(&task, &[7], false, &mut next).streams.len(), 1);
}

#[test]
fn a_closed_stream_is_forgotten_and_a_new_round_is_asked_again() {
    let mut q = Questions::default();
    let mut next = question_ids();
    let task = waiting(ID, &[ASK]);
    q.poll(&task, &[1], false, &mut next);
    assert_eq!(q.poll(&task, &[1], false, &mut next).streams.len(), 1);
    q.streams_open(&[]);
    // Stream 1 reconnected as stream 4 (ids are never reused): asked there.
    assert_eq!(q.poll(&task, &[4], false, &mut next).streams.len(), 1);
    // The next round has new keys: seen once first, then sent.
    let round2 = waiting(ID, &["name#2"]);
    assert_eq!(q.poll(&round2, &[4], false, &mut next).streams, vec![]);
    assert_eq!(q.poll(&round2, &[4], false, &mut next).streams.len(), 1);
}

#[test]
fn nothing_goes_to_get_streams_while_tasks_result_asks() {
    let mut q = Questions::default();
    let mut next = question_ids();
    let task = waiting(ID, &[ASK]);
    q.poll(&task, &[1], false, &mut next);
    q.asking(ID, true);
    q.asking(ID, true);
    assert_eq!(q.poll(&task, &[1], false, &mut next).streams, vec![]);
    q.asking(ID, false);
    assert_eq!(
        q.poll(&task, &[1], false, &mut next).streams,
        vec![],
        "one stream still asks"
    );
    q.asking(ID, false);
    assert_eq!(q.poll(&task, &[1], false, &mut next).streams.len(), 1);
}

#[test]
fn a_json_only_tasks_result_offers_at_once() {
    let mut q = Questions::default();
    let mut next = question_ids();
    let task = waiting(ID, &[ASK, "other#1"]);
    assert_eq!(q.offer(&task, &[5], &mut next).len(), 2);
    assert_eq!(q.offer(&task, &[5], &mut next), vec![]);
    assert_eq!(q.offer(&task, &[], &mut next), vec![]);
    let working = json!({ "taskId": ID, "status": "working" });
    assert_eq!(q.offer(&working, &[5], &mut next), vec![]);
}

#[test]
fn each_question_is_answered_once() {
    let mut q = Questions::default();
    let mut next = question_ids();
    let task = waiting(ID, &[ASK]);
    q.poll(&task, &[1, 2], false, &mut next);
    q.poll(&task, &[1, 2], false, &mut next);
    let to = Answered {
        task_id: ID.into(),
        key: ASK.into(),
    };
    assert_eq!(q.answered("q-1"), Some(to.clone()));
    assert_eq!(
        q.answered("q-1"),
        None,
        "a second answer to one id is dropped"
    );
    assert_eq!(q.answered("nope"), None);
    // The copy sent on stream 2 may still be answered: the task object takes only keys
    // still outstanding (below), so the task gets one answer.
    assert_eq!(q.answered("q-2"), Some(to));
    // Once a poll sees the task moved on, late answers are dropped here already.
    q.poll(&task, &[3], false, &mut next);
    q.poll(
        &json!({ "taskId": ID, "status": "working" }),
        &[3],
        false,
        &mut next,
    );
    assert_eq!(q.answered("q-3"), None);
}

#[test]
fn collections_are_bounded() {
    let mut q = Questions::default();
    let mut next = question_ids();
    let keys: Vec<String> = (0..MAX_SENT + 10).map(|i| format!("k{i}#1")).collect();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let task = waiting(ID, &refs);
    q.offer(&task, &[1], &mut next);
    // The oldest ten were dropped: their answers no longer route (the next poll asks again).
    assert_eq!(q.answered("q-1"), None);
    assert!(q.answered(&format!("q-{}", MAX_SENT + 10)).is_some());
}

#[test]
fn the_task_object_takes_an_answer_once() {
    let s = server();
    let request = post(
        "tools/call",
        json!({ "name": "confirm_delete", "arguments": { "filename": "f.txt" } }),
    );
    let Action::CreateTask { mut record, .. } = run_action(&s, s.handle(&request, &ctx())) else {
        panic!("expected a task")
    };
    record.assign_id(ID.into());
    let mut o = Object::new(s.registry.clone(), s.limits());
    o.request(ObjectRequest::Create { record }, "anonymous", NOW);
    o.tick(NOW);
    let task = o.get(NOW + 1);
    assert_eq!(task["status"], "input_required");
    let key = task["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let yes = json!({ key.clone(): { "action": "accept", "content": { "confirm": true } } });
    let no = json!({ key: { "action": "accept", "content": { "confirm": false } } });
    assert_eq!(
        o.update(yes, NOW + 2),
        ObjectReply::Result(json!({ "resultType": "complete" }))
    );
    // The copy answered on another stream: acknowledged, ignored.
    assert_eq!(
        o.update(no, NOW + 3),
        ObjectReply::Result(json!({ "resultType": "complete" }))
    );
    o.tick(o.alarm.unwrap());
    assert_eq!(
        o.get(NOW + 10)["result"]["content"][0]["text"],
        "Deleted f.txt."
    );
}

#[test]
fn with_no_get_stream_a_poll_that_takes_a_stream_carries_the_question_once() {
    let mut q = Questions::default();
    let mut next = question_ids();
    let task = waiting(ID, &[ASK]);
    // First poll: the client may still call tasks/result: nothing, not even on the response.
    assert_eq!(q.poll(&task, &[], true, &mut next), Poll::default());
    let poll = q.poll(&task, &[], true, &mut next);
    assert_eq!(poll.streams, vec![]);
    assert_eq!(
        poll.response,
        vec![
            json!({ "jsonrpc": "2.0", "id": "q-1", "method": "elicitation/create",
            "params": { "mode": "form", "message": "confirm#1?", "requestedSchema": { "type": "object", "properties": {} },
                "_meta": { "io.modelcontextprotocol/related-task": { "taskId": ID } } } })
        ]
    );
    // Never again on a poll while the task waits on it, answered or not.
    assert_eq!(q.poll(&task, &[], true, &mut next), Poll::default());
    assert_eq!(
        q.answered("q-1"),
        Some(Answered {
            task_id: ID.into(),
            key: ASK.into()
        })
    );
    assert_eq!(q.answered("q-1"), None, "one answer per question");
    assert_eq!(q.poll(&task, &[], true, &mut next), Poll::default());
    // The task moved on, then asks again: a new round, asked again from its second poll.
    let mut working = task.clone();
    working["status"] = "working".into();
    assert_eq!(q.poll(&working, &[], true, &mut next), Poll::default());
    assert_eq!(q.poll(&task, &[], true, &mut next), Poll::default());
    assert_eq!(q.poll(&task, &[], true, &mut next).response.len(), 1);
}

#[test]
fn a_poll_carries_a_question_only_when_no_open_stream_has_it_and_it_can_stream() {
    let task = waiting(ID, &[ASK, "name#1"]);
    // A GET stream open: it gets both, the poll stays JSON.
    let mut q = Questions::default();
    let mut next = question_ids();
    q.poll(&task, &[1], true, &mut next);
    let poll = q.poll(&task, &[1], true, &mut next);
    assert_eq!(poll.streams.len(), 2);
    assert!(poll.response.is_empty());
    // That stream closed: the questions are delivered nowhere, so the next poll carries them.
    q.streams_open(&[]);
    let poll = q.poll(&task, &[], true, &mut next);
    assert_eq!(poll.streams, vec![]);
    assert_eq!(poll.response.len(), 2);
    // A JSON-only client without a GET stream: its poll's answer is unchanged (it must call
    // tasks/result or open a GET stream).
    let mut json_only = Questions::default();
    json_only.poll(&task, &[], false, &mut next);
    assert_eq!(
        json_only.poll(&task, &[], false, &mut next),
        Poll::default()
    );
    assert_eq!(json_only.poll(&task, &[], false, &mut next).streams, vec![]);
    // While a tasks/result of the session asks, a poll carries nothing.
    let mut asked = Questions::default();
    asked.poll(&task, &[], true, &mut next);
    asked.asking(ID, true);
    assert_eq!(asked.poll(&task, &[], true, &mut next), Poll::default());
    asked.asking(ID, false);
    assert_eq!(asked.poll(&task, &[], true, &mut next).response.len(), 2);
}

#[test]
fn the_questions_carried_on_responses_are_bounded_first_in_order_dropped() {
    let mut q = Questions::default();
    let mut next = question_ids();
    let keys: Vec<String> = (0..MAX_SENT + 10).map(|i| format!("k{i}#1")).collect();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let task = waiting(ID, &refs);
    q.poll(&task, &[], true, &mut next);
    assert_eq!(
        q.poll(&task, &[], true, &mut next).response.len(),
        MAX_SENT + 10
    );
    // Only MAX_SENT are remembered as carried: the first ten in (task, key) order were
    // dropped, so the next poll carries those again.
    let again: Vec<Value> = q.poll(&task, &[], true, &mut next).response;
    let carried: Vec<&str> = again
        .iter()
        .map(|m| {
            m["params"]["message"]
                .as_str()
                .unwrap()
                .trim_end_matches('?')
        })
        .collect();
    let mut sorted = refs.clone();
    sorted.sort_unstable();
    assert_eq!(carried, sorted[..10]);
}
