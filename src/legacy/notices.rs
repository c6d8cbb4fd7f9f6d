//! What a 2025-11-25 session sends besides answers, on the platform's channels
//! ([`Channel`]):
//! - a call's progress and log messages on its response stream ([`call_progress`]);
//! - a legacy task's questions on the GET streams, for clients that poll `tasks/get`
//!   instead of calling `tasks/result`, or that call it without taking a stream (which
//!   question goes where is [`Questions`]' decision; what was sent on a stream that
//!   closed is forgotten);
//!   and the client's answers to them, to their tasks ([`answer`]);
//! - `notifications/resources/updated` on the GET streams ([`resource_updated`]), and a
//!   gateway's `notifications/tools/list_changed`.

use super::questions::{Outgoing, StreamId};
use super::reach::Reaching;
use super::replay::GetStreams;
use super::resumable::{Channel, Stream};
use super::subscribers::TOOLS_LISTED;
use super::{Questions, Session};
use crate::http::sse::event;
use crate::jsonrpc;
use crate::jsonrpc::ErrorObject;
use crate::ops::log::{Line, warning};
use crate::server::call::progress_notification;
use crate::tasks::protocol::ObjectRequest;
use crate::tools::Progress;
use serde::Serialize;
use serde_json::{Map, Value};
use std::cell::RefCell;

/// A call's progress (if its request asked: `token`) and log messages (at the session's
/// level, `logging/setLevel`) onto its response `stream`. Only the call's own stream can
/// carry them (2025-11-25 transports: GET-stream messages SHOULD be unrelated to running
/// requests). A step that ends the client's connection (`Call::close_stream`)
/// disconnects it; the stream goes on for a reconnection.
pub fn call_progress<C: Channel + 'static>(
    session: &Session,
    stream: Stream<C>,
    token: Option<Value>,
) -> Progress {
    let sink = stream.clone();
    let progress = Progress::to(move |report| {
        if let Some(token) = &token {
            sink.send(progress_notification(token, report).to_string().as_bytes());
        }
    });
    let session = session.clone();
    let disconnect = stream.clone();
    let progress = progress.disconnecting_to(move || disconnect.disconnect());
    progress.logging_to(move |level, data| {
        if session.logs(level) {
            let params = jsonrpc::payload(&LoggingMessage { level, data });
            let message = jsonrpc::notification("notifications/message", params);
            stream.send(message.to_string().as_bytes());
        }
    })
}

/// `notifications/message`'s params (2025-11-25 logging).
#[derive(Serialize)]
struct LoggingMessage<'a> {
    level: &'a str,
    data: &'a Value,
}

/// `notifications/resources/updated`'s params.
#[derive(Serialize)]
struct ResourceUpdated<'a> {
    uri: &'a str,
}

/// `notifications/resources/updated` for `uri` on the session's open GET streams; for
/// [`TOOLS_LISTED`], `notifications/tools/list_changed` (a gateway's upstream changed its
/// tools: docs/gateway.md).
pub fn resource_updated<C: Channel>(streams: &RefCell<GetStreams<C>>, uri: &str) {
    let message = if cfg!(feature = "gateway") && uri == TOOLS_LISTED {
        jsonrpc::notification(
            "notifications/tools/list_changed",
            Value::Object(Map::new()),
        )
    } else {
        let params = jsonrpc::payload(&ResourceUpdated { uri });
        jsonrpc::notification("notifications/resources/updated", params)
    };
    let frame = event(message.to_string().as_bytes());
    for (_, stream) in streams.borrow_mut().live() {
        stream.send_raw(frame.clone());
    }
}

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

/// The client's answer to `request_id`, a question sent on a GET stream
/// (`Questions::answered`): to its task as `tasks/update`, which takes only keys still
/// outstanding (one answer per question). Unknown or late answers are dropped, and so is
/// an error answer: the question stays open for `tasks/result` or the next stream. A
/// line for the log when the answer did not reach the task.
pub async fn answer<R: Reaching>(
    r: &mut R,
    questions: &RefCell<Questions>,
    request_id: &str,
    answer: Result<Value, ErrorObject>,
    session: &Session,
) -> Option<Line> {
    let to = questions.borrow_mut().answered(request_id)?;
    let why = match answer {
        Err(refusal) => format!("the client refused the question: {}", refusal.message),
        Ok(answer) => {
            let principal = session.principal_for(&to.task_id).to_owned();
            let mut input_responses = Map::new();
            input_responses.insert(to.key.clone(), answer);
            let update = ObjectRequest::Update {
                task_id: to.task_id.clone(),
                input_responses,
            };
            let Err(e) = r.send(update, &principal).await else {
                return None;
            };
            format!("the task did not take the answer: {}", e.to_wire().message)
        }
    };
    Some(warning(&why).field("task", to.task_id).field("key", to.key))
}
