//! One `subscriptions/listen` stream per client for every task it follows (a browser
//! allows six HTTP/1.1 connections per host, so a stream per task would starve the page).
//! Drivers (`callTool`, `startToolCall`, `resumeTask`) and `listen()` subscriptions
//! register their tasks here; the hub keeps one stream open for the unfinished ones and
//! reopens it with the new set when a task is added (a listen request's task set cannot
//! change). A task the stream covers is not polled: its driver waits for the next
//! notification. Without a stream the drivers poll `tasks/get` as before, and the hub
//! polls for `listen()` callbacks.
//!
//! ```text
//! add task ──▶ (10 ms, batched) reopen with every unfinished task ──▶ ack: covered
//! notification ──▶ newest state per task ──▶ listeners, waiting drivers
//! stream broken ──▶ reopen after 0.5 s, 1 s, 2 s ──▶ then polling until a task is added
//! stream cannot be opened ──▶ polling (the server or a proxy does not stream)
//! clean close (every task ended) ──▶ nothing to watch
//! ```
//!
//! The decisions are `hub_state.rs` (plain Rust); this file does the I/O: the stream,
//! the timers, the poller, the JS callbacks and the promises drivers wait on.

use super::client::Inner;
use super::error::ClientError;
use super::flow;
use super::hub_state::{AfterStream, HubState};
use super::js::{self, to_js};
use super::sse::{ListenEvent, SseParser, listen_event};
use js_sys::{Function, Promise};
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

type Reader = web_sys::ReadableStreamDefaultReader;

/// The client's stream and what it knows (see the module docs).
pub struct Hub {
    inner: Rc<Inner>,
    state: RefCell<HubState>,
    /// The `listen()` callbacks, by the keys `HubState` hands out.
    callbacks: RefCell<Vec<(u64, Function)>>,
    /// Drivers waiting for something to change (a new state or the coverage).
    waiters: RefCell<Vec<Function>>,
    /// The reader of the open stream.
    reader: RefCell<Option<Reader>>,
}

/// Calls a `listen()` callback; a throw is reported, not propagated.
fn deliver(callback: &Function, task: &Value) {
    if let Err(thrown) = callback.call1(&JsValue::UNDEFINED, &to_js(task)) {
        web_sys::console::error_2(&"McpClient: a listen callback threw".into(), &thrown);
    }
}

impl Hub {
    pub fn new(inner: Rc<Inner>) -> Rc<Hub> {
        Rc::new(Hub {
            inner,
            state: Default::default(),
            callbacks: Default::default(),
            waiters: Default::default(),
            reader: Default::default(),
        })
    }

    /// The client whose requests the hub sends.
    pub fn inner(&self) -> &Rc<Inner> {
        &self.inner
    }

    /// `"stream"` unless the hub fell back to polling.
    pub fn mode(&self) -> &'static str {
        self.state.borrow().mode()
    }

    /// Whether the current stream delivers `task_id`'s changes (so nobody polls it).
    pub fn covers(&self, task_id: &str) -> bool {
        self.state.borrow().covers(task_id)
    }

    /// The newest state seen of `task_id`.
    pub fn last(&self, task_id: &str) -> Option<Value> {
        self.state.borrow().last(task_id).cloned()
    }

    /// A promise resolved at the next change (a state, or what the stream covers).
    pub fn changed(&self) -> Promise {
        Promise::new(&mut |resolve, _| self.waiters.borrow_mut().push(resolve))
    }

    fn wake(&self) {
        let waiters = std::mem::take(&mut *self.waiters.borrow_mut());
        for resolve in waiters {
            if resolve.call0(&JsValue::UNDEFINED).is_err() { /* a resolver does not throw */ }
        }
    }

    /// A state of a task, from the stream or a poll: passed on if it is new.
    pub fn offer(&self, task: &Map<String, Value>) {
        let Some((task, keys)) = self.state.borrow_mut().offer(task) else {
            return;
        };
        let callbacks: Vec<Function> = {
            let callbacks = self.callbacks.borrow();
            callbacks
                .iter()
                .filter(|(k, _)| keys.contains(k))
                .map(|(_, f)| f.clone())
                .collect()
        };
        for callback in callbacks {
            deliver(&callback, &task);
        }
        self.wake();
    }

    /// A driver starts following `task_id` (whose current state is `task`).
    pub fn add_driver(self: &Rc<Self>, task_id: &str, task: &Value) {
        self.state.borrow_mut().add_driver(task_id);
        if let Value::Object(task) = task {
            self.offer(task);
        }
        self.schedule();
    }

    /// A driver stops following `task_id`.
    pub fn remove_driver(&self, task_id: &str) {
        self.state.borrow_mut().remove_driver(task_id);
    }

    /// A `listen()` subscription: the callback gets the states of `ids` already known at
    /// once, then every new one. Returns its key for [`Hub::remove_listener`].
    pub async fn add_listener(self: &Rc<Self>, ids: Vec<String>, callback: Function) -> u64 {
        let (key, known) = self.state.borrow_mut().add_listener(ids);
        self.callbacks.borrow_mut().push((key, callback.clone()));
        for task in known {
            deliver(&callback, &task);
        }
        self.clone().reopen().await;
        key
    }

    /// Ends a `listen()` subscription.
    pub fn remove_listener(&self, key: u64) {
        self.callbacks.borrow_mut().retain(|(k, _)| *k != key);
        self.state.borrow_mut().remove_listener(key);
    }

    /// Reopens the stream soon, once for everything added meanwhile.
    fn schedule(self: &Rc<Self>) {
        if !self.state.borrow_mut().schedule() {
            return;
        }
        let hub = self.clone();
        spawn_local(async move {
            if js::wait(js::sleep(10), None).await.is_err() { /* a timer does not reject */ }
            hub.state.borrow_mut().scheduled_done();
            hub.reopen().await;
        });
    }

    fn close_reader(&self) {
        if let Some(reader) = self.reader.borrow_mut().take() {
            js::mark_handled(&reader.cancel());
        }
    }

    /// Opens a stream for every unfinished task followed, replacing the current one;
    /// returns once it is open or known not to open (`mode` then says which).
    async fn reopen(self: Rc<Self>) {
        let Some((generation, ids)) = self.state.borrow_mut().begin_reopen() else {
            return self.settled().await;
        };
        self.close_reader();
        if ids.is_empty() {
            self.wake(); // nothing opens: whoever waited for an opening stream goes on
            return;
        }
        let opened = self.open_stream(&ids).await;
        if !self.state.borrow().is_current(generation) {
            // A newer stream replaced this one while it opened: its outcome is the answer.
            if let Some((reader, _, _)) = opened {
                js::mark_handled(&reader.cancel());
            }
            return self.settled().await;
        }
        match opened {
            Some((reader, parser, early)) => {
                self.state.borrow_mut().opened();
                *self.reader.borrow_mut() = Some(reader.clone());
                self.wake();
                spawn_local(self.read_stream(generation, reader, parser, ids, early));
            }
            None => {
                self.state.borrow_mut().cannot_stream();
                self.wake();
                self.start_poller();
            }
        }
    }

    /// Waits while a stream is being opened.
    async fn settled(&self) {
        while self.state.borrow().opening() {
            if js::wait(self.changed(), None).await.is_err() { /* a resolver does not reject */ }
        }
    }

    /// Applies one stream event (the stream asked for `requested`).
    fn handle(&self, event: ListenEvent, requested: &[String]) {
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
    async fn open_stream(
        &self,
        task_ids: &[String],
    ) -> Option<(Reader, SseParser, Vec<ListenEvent>)> {
        let mut params = Map::new();
        params.insert("notifications".into(), json!({ "taskIds": task_ids }));
        let (_, response) = self
            .inner
            .send("subscriptions/listen", params, None, None)
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

    async fn read_stream(
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
        js::mark_handled(&reader.cancel());
        *self.reader.borrow_mut() = None;
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

    /// While polling, reads the tasks only `listen()` follows (drivers poll their own)
    /// until a stream covers them again. A task the server no longer knows (-32602) is
    /// dropped.
    fn start_poller(self: Rc<Self>) {
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
