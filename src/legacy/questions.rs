//! A legacy task's questions without `tasks/result`: the session's GET streams carry them
//! too. The 2025-11-25 spec has the requestor SHOULD call `tasks/result` when it sees
//! `input_required`, and the server ask on that stream; a requestor that only polls
//! `tasks/get` (the official Tasks client does, until the task ends) would wait forever.
//! The same spec tells clients to "expect messages to be delivered on any SSE stream,
//! including the HTTP GET stream" (tasks "Input Required Status"), and servers SHOULD NOT,
//! "where possible", answer `tasks/get` with a stream, so a poll stays JSON and the
//! questions go to the session's open GET streams, tagged with the task (tasks
//! "Associating Task-Related Messages"). Where it is not possible (no GET stream open, the
//! question not delivered anywhere), a poll whose `Accept` takes `text/event-stream` is
//! answered as a stream carrying the questions before its result (the transport lets a
//! POST's stream carry requests before the response: "Sending Messages to the Server";
//! tasks "Input Required Status": servers may "side-channel task-related messages
//! alongside other responses"). A client with neither must call `tasks/result` or open a
//! GET stream. Pure: the session object keeps one [`Questions`] in memory (its GET
//! streams live there too) and performs what it returns.
//!
//! # Rules
//!
//! ```text
//! poll sees input_required, keys K   first time: remember K (the client may call tasks/result now)
//!                                    again, still K, no tasks/result of this session asking the
//!                                    task: each open GET stream that has not had (task, key) gets
//!                                    the request, with a fresh id and the related-task _meta;
//!                                    with no open stream having it, a poll that takes a
//!                                    stream carries it on its own response, once per task
//!                                    round (never again on a poll while the task waits on it)
//! tasks/result asking the task       polls send nothing for it (that stream asks)
//! a JSON-only tasks/result waiting   sends at once (it cannot ask on its own answer)
//! the client answers an id we sent   (task, key) → tasks/update; the id is forgotten, so one
//!                                    answer per question and stream; the task object takes
//!                                    only keys still outstanding, so one answer per question
//! poll sees the task not waiting     forgets it
//! ```
//!
//! Bounds: [`MAX_TASKS`] tasks remembered and [`MAX_SENT`] questions awaiting answers per
//! session (the oldest are dropped: a dropped question is asked again on the next poll).

use super::tasks::tag_related;
use crate::pairs::SortedSet;
use crate::tasks::task::StatusKind;
use serde_json::{Map, Value};
use std::collections::VecDeque;

/// Waiting tasks a session remembers.
pub const MAX_TASKS: usize = 100;
/// Questions sent on GET streams and not answered yet, per session.
pub const MAX_SENT: usize = 256;

/// A GET stream of the session, as the session object numbers them.
pub type StreamId = u64;

/// A message for one GET stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    pub stream: StreamId,
    pub message: Value,
}

/// A question sent on a GET stream, awaiting its answer.
#[derive(Debug, Clone, PartialEq)]
struct Sent {
    id: String,
    task_id: String,
    key: String,
}

/// What one `tasks/get` poll sends: messages for the GET streams, and the questions its
/// own response carries (then it is answered as a stream: these first, then the result).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Poll {
    pub streams: Vec<Outgoing>,
    pub response: Vec<Value>,
}

/// Where an answer goes: `tasks/update` of `task_id` with `{key: answer}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Answered {
    pub task_id: String,
    pub key: String,
}

/// One session's questions on its GET streams.
#[derive(Debug, Default)]
pub struct Questions {
    /// Tasks a poll saw waiting, with the keys it saw (oldest first; the keys sorted, as
    /// the task's map gives them).
    waiting: VecDeque<(String, Vec<String>)>,
    /// Tasks a `tasks/result` stream of this session is asking, with how many streams (a
    /// list: at most one entry per open stream).
    asking: Vec<(String, u32)>,
    /// (stream, task, key) already sent: never twice to one stream. Only searched, never
    /// in an order that shows (and a `BTreeSet` of its own would add its whole B-tree
    /// code to the Worker).
    delivered: Vec<(StreamId, String, String)>,
    /// Sent and not answered, oldest first.
    sent: VecDeque<Sent>,
    /// (task, key) asked on a poll's own response: not again while the task waits on it.
    /// Beyond [`MAX_SENT`] the first (least) is dropped.
    on_response: SortedSet<(String, String)>,
}

impl Questions {
    /// A `tasks/get` poll read `task` (a `DetailedTask`); `streams` are the session's open
    /// GET streams, `streaming` whether the poll's `Accept` takes `text/event-stream`,
    /// `new_id` draws a request id. Returns what to send: a question goes to each open
    /// GET stream that has not had it; one that no open stream has, and that no earlier
    /// poll's response carried, goes on this poll's response when it can stream.
    pub fn poll(
        &mut self,
        task: &Value,
        streams: &[StreamId],
        streaming: bool,
        mut new_id: impl FnMut() -> String,
    ) -> Poll {
        let Some((task_id, requests)) = waiting_on(task) else {
            if let Some(id) = task["taskId"].as_str() {
                self.forget(id);
            }
            return Poll::default();
        };
        let keys: Vec<String> = requests.keys().cloned().collect();
        let seen_before = self
            .waiting
            .iter()
            .any(|(id, seen)| id == task_id && *seen == keys);
        if !seen_before {
            self.waiting.retain(|(id, _)| id != task_id);
            self.waiting.push_back((task_id.to_owned(), keys));
            if self.waiting.len() > MAX_TASKS {
                self.waiting.pop_front();
            }
            return Poll::default();
        }
        if self.asking.iter().any(|(id, _)| id == task_id) {
            return Poll::default();
        }
        let sent = self.send(task_id, requests, streams, &mut new_id);
        let response = if streaming {
            self.on_response(task_id, requests, new_id)
        } else {
            Vec::new()
        };
        Poll {
            streams: sent,
            response,
        }
    }

    /// The questions of `task_id` that no open GET stream has and no poll's response
    /// carried yet, for this poll's response.
    fn on_response(
        &mut self,
        task_id: &str,
        requests: &Map<String, Value>,
        mut new_id: impl FnMut() -> String,
    ) -> Vec<Value> {
        let mut out = Vec::new();
        for (key, request) in requests {
            let on_a_stream = self
                .delivered
                .iter()
                .any(|(_, task, k)| task == task_id && k == key);
            if on_a_stream {
                continue;
            }
            let mark = (task_id.to_owned(), key.clone());
            if self.on_response.contains(&mark) {
                continue; // an earlier poll's response carried it
            }
            let id = new_id();
            out.push(tagged(task_id, &id, request));
            self.remember(&id, task_id, key);
            self.on_response.insert(mark);
            if self.on_response.len() > MAX_SENT {
                self.on_response.pop_first();
            }
        }
        out
    }

    fn remember(&mut self, id: &str, task_id: &str, key: &str) {
        self.sent.push_back(Sent {
            id: id.to_owned(),
            task_id: task_id.to_owned(),
            key: key.to_owned(),
        });
        if self.sent.len() > MAX_SENT {
            self.sent.pop_front();
        }
    }

    /// A `tasks/result` from a client that takes no stream is waiting on `task`: its
    /// questions go to the GET streams at once. Empty when there is nothing to send
    /// (or nowhere to send it: `streams` empty).
    pub fn offer(
        &mut self,
        task: &Value,
        streams: &[StreamId],
        new_id: impl FnMut() -> String,
    ) -> Vec<Outgoing> {
        match waiting_on(task) {
            Some((task_id, requests)) => self.send(task_id, requests, streams, new_id),
            None => {
                if let Some(id) = task["taskId"].as_str() {
                    self.forget(id);
                }
                Vec::new()
            }
        }
    }

    fn send(
        &mut self,
        task_id: &str,
        requests: &Map<String, Value>,
        streams: &[StreamId],
        mut new_id: impl FnMut() -> String,
    ) -> Vec<Outgoing> {
        let mut out = Vec::new();
        for &stream in streams {
            for (key, request) in requests {
                let delivered = self
                    .delivered
                    .iter()
                    .any(|(s, task, k)| *s == stream && task == task_id && k == key);
                if delivered {
                    continue;
                }
                let id = new_id();
                out.push(Outgoing {
                    stream,
                    message: tagged(task_id, &id, request),
                });
                self.delivered
                    .push((stream, task_id.to_owned(), key.clone()));
                self.remember(&id, task_id, key);
            }
        }
        out
    }

    /// A `tasks/result` stream of this session starts (`true`) or stops asking `task_id`.
    pub fn asking(&mut self, task_id: &str, asking: bool) {
        let at = self.asking.iter().position(|(id, _)| id == task_id);
        match (at, asking) {
            (Some(at), true) => self.asking[at].1 += 1,
            (None, true) => self.asking.push((task_id.to_owned(), 1)),
            (Some(at), false) => {
                self.asking[at].1 -= 1;
                if self.asking[at].1 == 0 {
                    self.asking.swap_remove(at);
                }
            }
            (None, false) => {}
        }
    }

    /// The client answered request `request_id`: where the answer goes, the first time.
    pub fn answered(&mut self, request_id: &str) -> Option<Answered> {
        let at = self.sent.iter().position(|s| s.id == request_id)?;
        let sent = self.sent.remove(at)?;
        Some(Answered {
            task_id: sent.task_id,
            key: sent.key,
        })
    }

    /// Only `open` streams remain: what was sent on the others is forgotten.
    pub fn streams_open(&mut self, open: &[StreamId]) {
        self.delivered
            .retain(|(stream, _, _)| open.contains(stream));
    }

    /// The task is no longer waiting (or is gone): nothing of it is kept.
    fn forget(&mut self, task_id: &str) {
        self.waiting.retain(|(id, _)| id != task_id);
        self.delivered.retain(|(_, id, _)| id != task_id);
        self.sent.retain(|s| s.task_id != task_id);
        self.on_response.retain(|(id, _)| id != task_id);
    }
}

/// The server→client request `id` asking `request` for `task_id`, tagged with the task.
fn tagged(task_id: &str, id: &str, request: &Value) -> Value {
    let mut params = (request.get("params").cloned()).unwrap_or_else(|| Value::Object(Map::new()));
    tag_related(&mut params, task_id);
    crate::jsonrpc::server_request(id, &request["method"], params)
}

/// The task id and outstanding requests of a task waiting for input.
fn waiting_on(task: &Value) -> Option<(&str, &Map<String, Value>)> {
    if StatusKind::of_task(task) != Some(StatusKind::InputRequired) {
        return None;
    }
    Some((task["taskId"].as_str()?, task["inputRequests"].as_object()?))
}
