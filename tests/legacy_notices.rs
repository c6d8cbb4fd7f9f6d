//! What a 2025-11-25 session sends besides answers (`src/legacy/notices.rs`), on channels
//! that record: a call's progress (when asked for) and log messages (at the session's
//! level) on its response stream; a legacy task's questions on the GET streams (the second
//! poll sends them to each open stream as an SSE `message` event, a closed stream gets
//! nothing, and a `tasks/result` that takes no stream offers them at once, or says no
//! stream is open); the client's answers to those questions, to their tasks once (an
//! error answer, or one the task does not take, leaves a log line); and
//! `notifications/resources/updated` on the open GET streams.

mod common;
use common::channel::{Fake, question_ids};
use common::reach::{MINE, world};
use common::server;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::jsonrpc::{ErrorCode, ErrorObject};
use mcp_tasks_edge::legacy::notices::{answer, call_progress, offered, polled, resource_updated};
use mcp_tasks_edge::legacy::replay::{Closable, GetStreams};
use mcp_tasks_edge::legacy::resumable::Streams;
use mcp_tasks_edge::legacy::{Questions, Session, initialize};
use mcp_tasks_edge::ops::log::LogSettings;
use mcp_tasks_edge::tools::Report;
use serde_json::{Value, json};
use std::cell::RefCell;

/// A session whose client set its log level to `warning`.
fn session() -> Session {
    let params = json!({ "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "c", "version": "1" } });
    let id = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let (_, mut session) =
        initialize(&server(), params.as_object().unwrap(), id, "alice", 0).unwrap();
    session.log_level = serde_json::from_value(json!("warning")).unwrap();
    session
}

#[test]
fn a_calls_progress_and_its_logs_at_the_sessions_level_go_on_its_stream() {
    let client = Fake::default();
    let stream = Streams::default().open(client.clone());
    let progress = call_progress(&session(), stream, Some(json!("tok")));
    progress.report(Report {
        progress: 1.0,
        total: Some(3.0),
        message: Some("one".into()),
    });
    progress.log("info", &json!("below the level"));
    progress.log("error", &json!({"disk": "full"}));
    let messages = client.messages();
    assert_eq!(
        messages.len(),
        2,
        "the info line is below the session's level"
    );
    assert_eq!(messages[0]["method"], "notifications/progress");
    assert_eq!(
        messages[0]["params"],
        json!({ "progressToken": "tok", "progress": 1.0, "total": 3.0, "message": "one" })
    );
    assert_eq!(
        messages[1],
        json!({ "jsonrpc": "2.0", "method": "notifications/message",
        "params": { "level": "error", "data": { "disk": "full" } } })
    );
    progress.disconnect();
    assert!(
        client.closed.get(),
        "a step may end the client's connection"
    );
}

#[test]
fn a_call_whose_request_asked_no_progress_sends_none() {
    let client = Fake::default();
    let progress = call_progress(&session(), Streams::default().open(client.clone()), None);
    progress.report(Report {
        progress: 1.0,
        total: None,
        message: None,
    });
    assert!(client.messages().is_empty());
}

#[test]
fn a_resource_update_goes_to_each_open_get_stream() {
    let (a, gone) = (Fake::default(), Fake::default());
    let streams = RefCell::new(GetStreams::default());
    streams.borrow_mut().push(a.clone());
    streams.borrow_mut().push(gone.clone());
    gone.close();
    resource_updated(&streams, "file:///a.txt");
    assert_eq!(
        a.messages(),
        [
            json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated",
        "params": { "uri": "file:///a.txt" } })
        ]
    );
    assert!(gone.frames.borrow().is_empty());
}

fn waiting(task_id: &str) -> Value {
    json!({ "taskId": task_id, "status": "input_required", "createdAt": "x",
        "lastUpdatedAt": "x", "ttlMs": null,
        "inputRequests": { "confirm": { "method": "elicitation/create",
            "params": { "mode": "form", "message": "Go?", "requestedSchema": { "type": "object" } } } } })
}

#[test]
fn polls_send_the_questions_to_each_open_get_stream_once() {
    let (a, b, gone) = (Fake::default(), Fake::default(), Fake::default());
    let streams = RefCell::new(GetStreams::default());
    for s in [&a, &b, &gone] {
        streams.borrow_mut().push(s.clone());
    }
    gone.close();
    let questions = RefCell::new(Questions::default());
    let mut next = question_ids();
    let task = waiting("t1");
    // The first poll: the client may still call tasks/result; nothing is sent yet.
    assert!(polled(&streams, &questions, &task, false, &mut next).is_empty());
    assert!(a.frames.borrow().is_empty());
    assert!(polled(&streams, &questions, &task, false, &mut next).is_empty());
    for (stream, id) in [(&a, "q-1"), (&b, "q-2")] {
        let messages = stream.messages();
        assert_eq!(messages.len(), 1, "one question, once");
        assert_eq!(messages[0]["id"], id);
        assert_eq!(messages[0]["method"], "elicitation/create");
        assert_eq!(
            messages[0]["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            "t1"
        );
    }
    assert!(
        gone.frames.borrow().is_empty(),
        "a closed stream gets nothing"
    );
    polled(&streams, &questions, &task, false, &mut next);
    assert_eq!(a.messages().len(), 1, "not sent twice to a stream");
}

#[test]
fn without_get_streams_a_streaming_poll_carries_the_questions_itself() {
    let streams = RefCell::new(GetStreams::<Fake>::default());
    let questions = RefCell::new(Questions::default());
    let mut next = question_ids();
    let task = waiting("t1");
    polled(&streams, &questions, &task, true, &mut next);
    let carried = polled(&streams, &questions, &task, true, &mut next);
    assert_eq!(carried.len(), 1, "on the poll's own response");
    assert_eq!(carried[0]["params"]["message"], "Go?");
}

#[test]
fn a_tasks_result_without_a_stream_offers_its_questions_to_the_get_streams() {
    let questions = RefCell::new(Questions::default());
    let none = RefCell::new(GetStreams::<Fake>::default());
    assert!(
        !offered(&none, &questions, &waiting("t1"), question_ids()),
        "no stream open"
    );
    let a = Fake::default();
    let streams = RefCell::new(GetStreams::default());
    streams.borrow_mut().push(a.clone());
    assert!(offered(
        &streams,
        &questions,
        &waiting("t1"),
        question_ids()
    ));
    assert_eq!(a.messages().len(), 1, "at once, without a second poll");
}

/// Session B's task MINE asked its question on B's one GET stream (id `q-1`).
fn asked() -> (common::reach::Objects, RefCell<Questions>) {
    let objects = world();
    let streams = RefCell::new(GetStreams::default());
    streams.borrow_mut().push(Fake::default());
    let questions = RefCell::new(Questions::default());
    assert!(offered(
        &streams,
        &questions,
        &waiting(MINE),
        question_ids()
    ));
    (objects, questions)
}

#[test]
fn an_answer_to_a_get_stream_question_reaches_its_task_once() {
    let (mut objects, questions) = asked();
    let session = objects.stored.clone();
    let accept = || Ok(json!({ "action": "accept", "content": {} }));
    let untaken = block_on(answer(&mut objects, &questions, "q-1", accept(), &session));
    assert!(untaken.is_none());
    assert_eq!(objects.sent, ["update confirm as own"]);
    for id in ["q-1", "q-2", "someone-elses"] {
        let late = block_on(answer(&mut objects, &questions, id, accept(), &session));
        assert!(late.is_none(), "{id}: late or unknown answers are dropped");
    }
    assert_eq!(objects.sent.len(), 1, "nothing else reaches a task");
}

#[test]
fn a_refusal_or_an_answer_the_task_does_not_take_is_logged_not_sent_twice() {
    let (mut objects, questions) = asked();
    let session = objects.stored.clone();
    let refusal = ErrorObject {
        code: ErrorCode(-1),
        message: "no".into(),
        data: None,
    };
    let line = block_on(answer(
        &mut objects,
        &questions,
        "q-1",
        Err(refusal),
        &session,
    ));
    let rendered = line
        .expect("a log line")
        .render(&LogSettings::default())
        .unwrap();
    assert!(rendered.contains("refused the question: no"), "{rendered}");
    assert!(objects.sent.is_empty(), "the question stays open upstream");

    let (mut objects, questions) = asked();
    objects.tasks.remove(MINE);
    let accept = Ok(json!({ "action": "accept" }));
    let line = block_on(answer(&mut objects, &questions, "q-1", accept, &session));
    let rendered = line
        .expect("a log line")
        .render(&LogSettings::default())
        .unwrap();
    assert!(rendered.contains("did not take the answer"), "{rendered}");
    assert!(
        rendered.contains(MINE) && rendered.contains("confirm"),
        "{rendered}"
    );
}
