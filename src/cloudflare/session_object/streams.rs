//! The session's streams on its memory (`legacy::memory`): response streams, numbered
//! for reconnections, and GET streams (opened, kept alive, replayed), on which a legacy
//! task's questions reach clients that poll `tasks/get` (`legacy::notices` decides).

use super::{SessionRunner, Stream};
use crate::cloudflare::sse::{self, Channel};
use crate::http::HttpResponse;
use serde_json::Value;
use std::time::Duration;
use worker::wasm_bindgen_futures::spawn_local;
use worker::{Delay, Response, Result};

/// A fresh request id: 128 random bits, so nobody answers in the owner's place by guessing.
pub(super) fn new_id() -> String {
    crate::cloudflare::new_task_id().unwrap_or_else(|e| format!("unavailable-{e}"))
}

impl SessionRunner {
    /// A GET: the replay of a response stream after `Last-Event-ID`, or a notification
    /// stream (at most `legacy::replay::MAX_GET_STREAMS` open; a newer one closes the
    /// oldest).
    pub(super) fn open_stream(&self, last_event_id: Option<&str>) -> Result<Response> {
        let channel = Channel::default();
        if self.memory.open_get(&channel, last_event_id) {
            keep_alive(channel.clone());
        }
        sse::response(&channel, &HttpResponse::event_stream())
    }

    /// A response stream, numbered for reconnections, and the response that carries it.
    /// (A failure is the session fetch's error: JSON-RPC -32603 with the request's id,
    /// `guard.js`, never a plain-text 500.)
    pub(super) fn response_stream(&self) -> Result<(Stream, Response)> {
        let channel = Channel::default();
        let response = sse::response(&channel, &HttpResponse::event_stream())?;
        Ok((self.memory.open_response(channel), response))
    }

    /// A `tasks/get` poll read `task`: the questions its own response must carry
    /// (`legacy::notices::polled`; `streaming`: its `Accept` takes a stream).
    pub(super) fn polled(&self, task: &Value, streaming: bool) -> Vec<Value> {
        self.memory.polled(task, streaming, new_id)
    }
}

/// A comment every 25 s keeps an idle GET stream open through proxies.
fn keep_alive(channel: Channel) {
    spawn_local(async move {
        while !channel.is_finished() {
            Delay::from(Duration::from_secs(25)).await;
            channel.keepalive();
        }
    });
}
