//! A legacy task's questions sent on a session's GET streams (`src/legacy/notices.rs`),
//! on channels that record: the second poll sends them to each open stream as an SSE
//! `message` event, a closed stream gets nothing and is forgotten, and a `tasks/result`
//! that takes no stream offers them at once, or says no stream is open.

use mcp_tasks_edge::legacy::Questions;
use mcp_tasks_edge::legacy::notices::{offered, polled};
use mcp_tasks_edge::legacy::replay::{Closable, GetStreams};
use mcp_tasks_edge::legacy::resumable::Channel;
use serde_json::{Value, json};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

#[derive(Clone, Default)]
struct Fake {
    frames: Rc<RefCell<Vec<String>>>,
    closed: Rc<Cell<bool>>,
}

impl Closable for Fake {
    fn is_finished(&self) -> bool {
        self.closed.get()
    }

    fn close(&self) {
        self.closed.set(true);
    }
}

impl Channel for Fake {
    fn send_raw(&self, frames: Vec<u8>) {
        self.frames
            .borrow_mut()
            .push(String::from_utf8(frames).unwrap());
    }
}

impl Fake {
    /// The JSON-RPC messages of its `message` events.
    fn messages(&self) -> Vec<Value> {
        let frames = self.frames.borrow();
        frames
            .iter()
            .map(|f| {
                let data = f
                    .strip_prefix("event: message\ndata: ")
                    .expect("a message event");
                serde_json::from_str(data.trim_end()).unwrap()
            })
            .collect()
    }
}

fn waiting(task_id: &str) -> Value {
    json!({ "taskId": task_id, "status": "input_required", "createdAt": "x",
        "lastUpdatedAt": "x", "ttlMs": null,
        "inputRequests": { "confirm": { "method": "elicitation/create",
            "params": { "mode": "form", "message": "Go?", "requestedSchema": { "type": "object" } } } } })
}

fn ids() -> impl FnMut() -> String {
    let mut n = 0;
    move || {
        n += 1;
        format!("q-{n}")
    }
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
    let mut next = ids();
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
    let mut next = ids();
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
        !offered(&none, &questions, &waiting("t1"), ids()),
        "no stream open"
    );
    let a = Fake::default();
    let streams = RefCell::new(GetStreams::default());
    streams.borrow_mut().push(a.clone());
    assert!(offered(&streams, &questions, &waiting("t1"), ids()));
    assert_eq!(a.messages().len(), 1, "at once, without a second poll");
}
