//! What a session object keeps in memory between its requests, once for every platform:
//! the steps waiting for the client's answers (`asking`), its GET streams and the legacy
//! tasks' questions sent on them (`replay`, `questions`), and its response streams, kept
//! for clients that reconnect with `Last-Event-ID` (`resumable`). Lost when the object is
//! evicted (the session itself is stored): a waiting step then times out, a client
//! reconnects to new streams, and a task's questions are sent again.

use super::asking::{Answer, Pending, SessionAsker};
use super::notices;
use super::reach::Reaching;
use super::replay::GetStreams;
use super::resumable::{Channel, Stream, Streams};
use super::turn::Turn;
use super::{Questions, Session};
use crate::ops::log::Line;
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;

/// One session's memory (see the module docs); clones share it.
pub struct Memory<C> {
    pending: Pending,
    streams: Rc<RefCell<GetStreams<C>>>,
    questions: Rc<RefCell<Questions>>,
    resumable: Streams<C>,
}

impl<C> Default for Memory<C> {
    fn default() -> Self {
        Memory {
            pending: Pending::default(),
            streams: Rc::default(),
            questions: Rc::default(),
            resumable: Streams::default(),
        }
    }
}

impl<C: Channel> Memory<C> {
    /// A GET on `channel`: the replay of the response stream `last_event_id` names, else
    /// a new notification stream (at most `replay::MAX_GET_STREAMS` open; a newer one
    /// closes the oldest). `true` for a notification stream, which the platform keeps
    /// alive.
    pub fn open_get(&self, channel: &C, last_event_id: Option<&str>) -> bool {
        let resumed = last_event_id.is_some_and(|last| self.resumable.resume(last, channel));
        if !resumed {
            self.streams.borrow_mut().push(channel.clone());
        }
        !resumed
    }

    /// A response stream on `channel`, numbered for reconnections.
    pub fn open_response(&self, channel: C) -> Stream<C> {
        self.resumable.open(channel)
    }

    /// Asks the client on `stream` (`None`: it takes no stream and cannot be asked),
    /// tagging the questions with `related_task` (legacy `tasks/result`).
    pub fn asker(
        &self,
        stream: Option<Stream<C>>,
        related_task: Option<String>,
    ) -> SessionAsker<Stream<C>> {
        SessionAsker {
            channel: stream,
            pending: self.pending.clone(),
            related_task,
        }
    }

    /// A `tasks/get` poll read `task`: the questions its own response must carry
    /// (`notices::polled`; `streaming`: its `Accept` takes a stream).
    pub fn polled(&self, task: &Value, streaming: bool, new_id: fn() -> String) -> Vec<Value> {
        notices::polled(&self.streams, &self.questions, task, streaming, new_id)
    }

    /// The `tasks/result` of `task_id` as `principal`, on `follow` (`legacy::turn`).
    pub fn turn<F>(
        &self,
        task_id: String,
        principal: String,
        follow: F,
        new_id: fn() -> String,
    ) -> Turn<F, C> {
        let (streams, questions) = (self.streams.clone(), self.questions.clone());
        Turn::new(task_id, principal, follow, streams, questions, new_id)
    }

    /// The client's answer to request `request_id`: to the step waiting for it, else to
    /// the task whose question it answers (`notices::answer`); late or unknown answers
    /// are dropped. A line for the log when a task did not take it.
    pub async fn deliver<R: Reaching>(
        &self,
        r: &mut R,
        request_id: &str,
        answer: Answer,
        session: &Session,
    ) -> Option<Line> {
        let answer = self.pending.deliver(request_id, answer)?;
        notices::answer(r, &self.questions, request_id, answer, session).await
    }

    /// `notifications/resources/updated` (or a gateway's `tools/list_changed`) on the
    /// open GET streams.
    pub fn resource_updated(&self, uri: &str) {
        notices::resource_updated(&self.streams, uri);
    }

    /// The session ended: its GET streams close.
    pub fn close_streams(&self) {
        self.streams.borrow_mut().close_all();
    }
}
