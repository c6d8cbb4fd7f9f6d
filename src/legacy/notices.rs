//! A legacy task's questions on a session's GET streams, for clients that poll
//! `tasks/get` instead of calling `tasks/result`, or that call it without taking a
//! stream: which question goes where is [`Questions`]' decision; this sends them on the
//! platform's channels ([`Channel`]). What was sent on a stream that closed is forgotten.

use super::Questions;
use super::questions::{Outgoing, StreamId};
use super::replay::GetStreams;
use super::resumable::Channel;
use crate::http::sse::event;
use serde_json::Value;
use std::cell::RefCell;

/// The open GET streams, and their ids told to `questions`.
fn open<C: Channel>(
    streams: &RefCell<GetStreams<C>>,
    questions: &RefCell<Questions>,
) -> (Vec<StreamId>, Vec<(StreamId, C)>) {
    let live = streams.borrow_mut().live();
    let ids: Vec<StreamId> = live.iter().map(|(id, _)| *id).collect();
    questions.borrow_mut().streams_open(&ids);
    (ids, live)
}

fn send<C: Channel>(live: &[(StreamId, C)], outgoing: Vec<Outgoing>) {
    for out in outgoing {
        if let Some((_, stream)) = live.iter().find(|(id, _)| *id == out.stream) {
            stream.send_raw(event(out.message.to_string().as_bytes()));
        }
    }
}

/// A `tasks/get` poll read `task`: its questions go to the GET streams when the client
/// has evidently not called `tasks/result` for them (`Questions::poll`). Returns the
/// questions the poll's own response must carry (`streaming`: its `Accept` takes a
/// stream), when no GET stream has them.
pub fn polled<C: Channel>(
    streams: &RefCell<GetStreams<C>>,
    questions: &RefCell<Questions>,
    task: &Value,
    streaming: bool,
    new_id: impl FnMut() -> String,
) -> Vec<Value> {
    let (ids, live) = open(streams, questions);
    let poll = questions.borrow_mut().poll(task, &ids, streaming, new_id);
    send(&live, poll.streams);
    poll.response
}

/// A `tasks/result` that cannot stream is waiting on `task`: its questions go to the GET
/// streams now. `false` when no GET stream is open to carry them.
pub fn offered<C: Channel>(
    streams: &RefCell<GetStreams<C>>,
    questions: &RefCell<Questions>,
    task: &Value,
    new_id: impl FnMut() -> String,
) -> bool {
    let (ids, live) = open(streams, questions);
    let outgoing = questions.borrow_mut().offer(task, &ids, new_id);
    send(&live, outgoing);
    !ids.is_empty()
}
