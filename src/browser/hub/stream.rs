//! The I/O of the hub's stream (see `hub.rs`): opening it for the tasks followed,
//! reading it, replacing it, ending it, and the poller that stands in for it.

use super::super::error::ClientError;
use super::super::flow;
use super::super::hub_state::AfterStream;
use super::super::js::{self, Abort};
use super::super::sse::{ListenEvent, SseParser, listen_event};
use super::{Hub, resolve_all};
use crate::jsonrpc::{OneEntry, payload};
use js_sys::Promise;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;

type Reader = web_sys::ReadableStreamDefaultReader;

/// How long a stream that sent its result may take to end its body before it is aborted.
const DRAIN_MS: u64 = 2_000;

impl Hub {
    /// Reopens the stream soon, once for everything added meanwhile.
    pub(super) fn schedule(self: &Rc<Self>) {
        if self.state.borrow_mut().schedule() {
            self.reopen_soon();
        }
    }

    /// Reopens in 10 ms (what is added meanwhile joins the same stream).
    pub(super) fn reopen_soon(self: &Rc<Self>) {
        let hub = self.clone();
        spawn_local(async move {
            if js::wait(js::sleep(10), None).await.is_err() { /* a timer does not reject */ }
            hub.state.borrow_mut().scheduled_done();
            hub.reopen().await;
        });
    }

    /// Ends the current stream's request, open or still opening.
    pub(super) fn close_stream(&self) {
        if let Some(controller) = self.stream.borrow_mut().take() {
            controller.abort();
        }
    }

    /// Opens a stream for every unfinished task followed, replacing the current one;
    /// returns once it is open or known not to open (`mode` then says which).
    pub(super) async fn reopen(self: Rc<Self>) {
        let Some((generation, ids)) = self.state.borrow_mut().begin_reopen() else {
            return self.settled().await;
        };
        self.close_stream();
        if ids.is_empty() {
            self.wake(); // nothing opens: whoever waited for an opening stream goes on
            return;
        }
        let Ok(controller) = web_sys::AbortController::new() else {
            return self.no_stream(); // a platform without AbortController: poll
        };
        *self.stream.borrow_mut() = Some(controller.clone());
        let abort = Abort::new(controller.signal());
        let opened = self.open_stream(&ids, &abort).await;
        if !self.state.borrow().is_current(generation) {
            // A newer stream replaced this one while it opened (and aborted its request):
            // the newer one's outcome is the answer.
            return self.settled().await;
        }
        let Some((reader, parser, early)) = opened else {
            controller.abort(); // whatever the failed answer still sends is not read
            *self.stream.borrow_mut() = None;
            return self.no_stream();
        };
        let reconnect = self.state.borrow_mut().opened();
        self.wake();
        if reconnect {
            resolve_all(&self.reconnect_waiters);
        }
        if self.state.borrow().overflowing() {
            self.clone().start_poller(); // the tasks beyond the stream's bound
        }
        spawn_local(self.read_stream(generation, reader, parser, ids, early));
    }

    /// No stream: poll.
    pub(super) fn no_stream(self: Rc<Self>) {
        self.state.borrow_mut().cannot_stream();
        self.wake();
        self.start_poller();
    }

    /// Waits while a stream is being opened.
    pub(super) async fn settled(&self) {
        while self.state.borrow().opening() {
            if js::wait(self.changed(), None).await.is_err() { /* a resolver does not reject */ }
        }
    }

    /// Applies one stream event (the stream asked for `requested`).
    pub(super) fn handle(self: &Rc<Self>, event: ListenEvent, requested: &[String]) {
        match event {
            ListenEvent::Acknowledged(accepted) => {
                let accepted: BTreeSet<String> = accepted.into_iter().collect();
                self.state.borrow_mut().acknowledged(accepted, requested);
                self.wake();
            }
            ListenEvent::Task(Value::Object(task)) => self.offer(&task),
            _ => {}
        }
    }

    /// Opens the stream and reads up to its acknowledgement. `None` when that fails: no
    /// stream, an error answer, or an end before the acknowledgement.
    pub(super) async fn open_stream(
        &self,
        task_ids: &[String],
        abort: &Abort,
    ) -> Option<(Reader, SseParser, Vec<ListenEvent>)> {
        let mut params = Map::new();
        params.insert(
            "notifications".into(),
            payload(&OneEntry("taskIds", task_ids)),
        );
        let (_, response) = self
            .inner
            .send("subscriptions/listen", params, None, Some(abort))
            .await
            .ok()?;
        let media = js::content_type(&response).to_ascii_lowercase();
        if !response.ok() || !media.starts_with("text/event-stream") {
            return None;
        }
        let reader = Reader::new(&response.body()?).ok()?;
        let mut parser = SseParser::default();
        let mut early = Vec::new();
        loop {
            let chunk = js::read_chunk(&reader).await.ok()??;
            let mut acked = false;
            for payload in parser.push(&chunk) {
                match listen_event(&payload) {
                    // The events after the ack in the same chunk (the tasks' current
                    // states, even the close) are kept: the parser has consumed them.
                    event @ ListenEvent::Acknowledged(_) if !acked => {
                        acked = true;
                        early.push(event);
                    }
                    ListenEvent::Error(_) | ListenEvent::Closed if !acked => return None,
                    event => early.push(event),
                }
            }
            if acked {
                return Some((reader, parser, early));
            }
        }
    }

    pub(super) async fn read_stream(
        self: Rc<Self>,
        generation: u64,
        reader: Reader,
        mut parser: SseParser,
        requested: Vec<String>,
        early: Vec<ListenEvent>,
    ) {
        let current = |hub: &Hub| hub.state.borrow().is_current(generation);
        // First the events read while opening (the ack and whatever came with it).
        let mut events = early;
        let clean = loop {
            if !current(&self) {
                return; // replaced by a newer stream
            }
            let mut over = None;
            for event in events.drain(..) {
                match event {
                    ListenEvent::Closed => over = Some(true),
                    ListenEvent::Error(_) => over = Some(false),
                    event => self.handle(event, &requested),
                }
            }
            if let Some(clean) = over {
                break clean;
            }
            let chunk = match js::read_chunk(&reader).await {
                Ok(Some(chunk)) => chunk,
                Ok(None) | Err(_) => break false,
            };
            events = parser
                .push(&chunk)
                .iter()
                .map(|p| listen_event(p))
                .collect();
        };
        if !current(&self) {
            return;
        }
        if clean {
            // The result is the last message: reading on to the body's end lets the
            // request end as complete (not aborted).
            drain(&reader).await;
        }
        if !current(&self) {
            return;
        }
        self.close_stream();
        let next = self.state.borrow_mut().stream_ended(clean);
        self.wake();
        match next {
            // Every task of that stream ended; any added since get a new one.
            AfterStream::Schedule => self.schedule(),
            // An end without the result is an error: reconnect, backing off.
            AfterStream::ReopenAfter(delay) => {
                if js::wait(js::sleep(delay), None).await.is_err() { /* timers do not reject */ }
                if current(&self) {
                    self.reopen().await;
                }
            }
            AfterStream::Poll => self.start_poller(),
        }
    }

    /// While polling, reads the tasks only listeners follow (drivers poll their own)
    /// until a stream covers them again; while streaming, those beyond the stream's
    /// bound. A task the server no longer knows (-32602) is dropped.
    pub(super) fn start_poller(self: Rc<Self>) {
        if !self.state.borrow_mut().start_poller() {
            return;
        }
        spawn_local(async move {
            loop {
                let Some(ids) = self.state.borrow_mut().poll_round() else {
                    break;
                };
                let mut delay = flow::MAX_POLL_MS;
                for id in ids {
                    match self.inner.get_task(&id, None).await {
                        Ok(Value::Object(task)) => {
                            delay = delay.min(flow::poll_delay(&Value::Object(task.clone())));
                            self.offer(&task);
                        }
                        Ok(_) => {}
                        Err(e) => {
                            let code = js::get(&e, "code").as_f64();
                            if code == Some(ClientError::INVALID_PARAMS as f64) {
                                self.state.borrow_mut().unknown_task(&id);
                            }
                            delay = delay.min(flow::DEFAULT_POLL_MS);
                        }
                    }
                }
                if js::wait(js::sleep(delay), None).await.is_err() { /* timers do not reject */ }
            }
        });
    }
}

/// Reads a body to its end, for at most [`DRAIN_MS`].
async fn drain(reader: &Reader) {
    let deadline = js_sys::Date::now() + DRAIN_MS as f64;
    loop {
        let left = deadline - js_sys::Date::now();
        if left <= 0.0 {
            return;
        }
        let read = Promise::race(&js_sys::Array::of2(&reader.read(), &js::sleep(left as u64)));
        match js::wait(read, None).await {
            Ok(chunk) if js::get(&chunk, "done").is_falsy() && !chunk.is_undefined() => {}
            _ => return, // the end, a timeout (the timer's `undefined`) or an error
        }
    }
}
