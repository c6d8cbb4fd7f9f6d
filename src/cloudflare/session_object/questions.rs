//! The session's GET streams (opened, kept alive, replayed), and the I/O of
//! `legacy::questions`: a legacy task's questions on them, for clients that poll
//! `tasks/get` instead of calling `tasks/result` (`legacy::notices` decides and sends).

use super::SessionRunner;
use crate::cloudflare::sse::{self, Channel};
use crate::http::HttpResponse;
use crate::legacy::{Questions, notices};
use serde_json::Value;
use std::cell::RefCell;
use std::time::Duration;
use worker::{Delay, Response, Result};

/// The session's open GET streams (`legacy::replay`: at most `MAX_GET_STREAMS`).
pub(crate) type GetStreams = crate::legacy::replay::GetStreams<Channel>;

/// A fresh request id: 128 random bits, so nobody answers in the owner's place by guessing.
fn new_id() -> String {
    crate::cloudflare::new_task_id().unwrap_or_else(|e| format!("unavailable-{e}"))
}

impl SessionRunner {
    /// A GET: the replay of a response stream after `Last-Event-ID`, or a notification
    /// stream (at most `legacy::replay::MAX_GET_STREAMS` open; a newer one closes the
    /// oldest).
    pub(super) fn open_stream(&self, last_event_id: Option<&str>) -> Result<Response> {
        let channel = Channel::default();
        let resumed = last_event_id.is_some_and(|last| self.resumable.resume(last, &channel));
        if !resumed {
            self.streams.borrow_mut().push(channel.clone());
            keep_alive(channel.clone());
        }
        sse::response(&channel, HttpResponse::empty(200))
    }

    /// A `tasks/get` poll read `task`: the questions its own response must carry
    /// (`legacy::notices::polled`; `streaming`: its `Accept` takes a stream).
    pub(super) fn polled(&self, task: &Value, streaming: bool) -> Vec<Value> {
        notices::polled(&self.streams, &self.questions, task, streaming, new_id)
    }
}

/// A `tasks/result` that cannot stream is waiting on `task`: its questions go to the GET
/// streams now (`legacy::notices::offered`). `false` when no GET stream is open.
pub(super) fn offered(
    streams: &RefCell<GetStreams>,
    questions: &RefCell<Questions>,
    task: &Value,
) -> bool {
    notices::offered(streams, questions, task, new_id)
}

/// A comment every 25 s keeps an idle GET stream open through proxies.
fn keep_alive(channel: Channel) {
    worker::wasm_bindgen_futures::spawn_local(async move {
        while !channel.is_finished() {
            Delay::from(Duration::from_secs(25)).await;
            channel.keepalive();
        }
    });
}
