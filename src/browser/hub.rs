//! One `subscriptions/listen` stream per client for every task it follows (DESIGN.md §7:
//! a browser allows six HTTP/1.1 connections per host, so a stream per task would
//! starve the page). Drivers (`callTool`, `startToolCall`, `resumeTask`) and `listen()`
//! subscriptions register their tasks here; the hub keeps one stream open for the
//! unfinished ones and reopens it with the new set when a task is added (a listen
//! request's task set cannot change). A task the stream covers is not polled: its
//! driver waits for the next notification. Without a stream the drivers poll
//! `tasks/get` as before, and the hub polls for `listen()` callbacks.
//!
//! ```text
//! add task ──▶ (10 ms, batched) reopen with every unfinished task ──▶ ack: covered
//! notification ──▶ newest state per task ──▶ listeners, waiting drivers
//! stream broken ──▶ reopen after 0.5 s, 1 s, 2 s ──▶ then polling until a task is added
//! stream cannot be opened ──▶ polling (the server or a proxy does not stream)
//! clean close (every task ended) ──▶ nothing to watch
//! ```

use super::client::Inner;
use super::flow;
use super::js::{self, to_js};
use super::sse::{ListenEvent, SseParser, bare_task, listen_event};
use super::wire::ClientError;
use js_sys::{Function, Promise};
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

/// Reopens of a broken stream before falling back to polling.
const REOPENS: u32 = 3;

struct Listener {
    key: u64,
    ids: BTreeSet<String>,
    callback: Function,
}

#[derive(Default)]
struct State {
    /// Drivers following each task (a count).
    drivers: BTreeMap<String, u32>,
    listeners: Vec<Listener>,
    /// The newest state seen of each task (bare: no `resultType`, no subscription id).
    last: BTreeMap<String, Value>,
    /// Drivers waiting for something to change (a new state or the coverage).
    waiters: Vec<Function>,
    /// The tasks the current stream acknowledged.
    covered: BTreeSet<String>,
    /// The tasks the current (or opening) stream was asked for.
    streamed: BTreeSet<String>,
    generation: u64,
    reader: Option<web_sys::ReadableStreamDefaultReader>,
    polling: bool,
    poller: bool,
    failures: u32,
    scheduled: bool,
    next_key: u64,
}

/// The client's stream and what it knows (see the module docs).
#[derive(Default)]
pub struct Hub(RefCell<State>);

fn is_terminal(task: &Value) -> bool {
    flow::task_state(task).is_ok_and(|t| t.is_terminal())
}

fn updated_at(task: &Value) -> &str {
    task.get("lastUpdatedAt")
        .and_then(Value::as_str)
        .unwrap_or("")
}

impl Hub {
    /// `"stream"` unless the hub fell back to polling.
    pub fn mode(&self) -> &'static str {
        if self.0.borrow().polling {
            "polling"
        } else {
            "stream"
        }
    }

    /// Whether the current stream delivers `task_id`'s changes (so nobody polls it).
    pub fn covers(&self, task_id: &str) -> bool {
        let s = self.0.borrow();
        !s.polling && s.covered.contains(task_id)
    }

    /// The newest state seen of `task_id`.
    pub fn last(&self, task_id: &str) -> Option<Value> {
        self.0.borrow().last.get(task_id).cloned()
    }

    /// A promise resolved at the next change (a state, or what the stream covers).
    pub fn changed(&self) -> Promise {
        Promise::new(&mut |resolve, _| self.0.borrow_mut().waiters.push(resolve))
    }

    fn wake(&self) {
        let waiters = std::mem::take(&mut self.0.borrow_mut().waiters);
        for resolve in waiters {
            if resolve.call0(&JsValue::UNDEFINED).is_err() { /* a resolver does not throw */ }
        }
    }

    /// A state of `task`, from the stream or a poll: kept and passed on if it is new
    /// (never an older one after a newer one: `lastUpdatedAt` does not go back, and
    /// nothing follows a terminal state).
    pub fn offer(&self, task: &Map<String, Value>) {
        let task = Value::Object(bare_task(task));
        let Some(id) = task
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return;
        };
        let callbacks: Vec<Function> = {
            let mut s = self.0.borrow_mut();
            if let Some(last) = s.last.get(&id)
                && (*last == task || is_terminal(last) || updated_at(&task) < updated_at(last))
            {
                return;
            }
            s.last.insert(id.clone(), task.clone());
            s.listeners
                .iter()
                .filter(|l| l.ids.contains(&id))
                .map(|l| l.callback.clone())
                .collect()
        };
        for callback in callbacks {
            if let Err(thrown) = callback.call1(&JsValue::UNDEFINED, &to_js(&task)) {
                web_sys::console::error_2(&"McpClient: a listen callback threw".into(), &thrown);
            }
        }
        self.wake();
    }

    /// Tasks someone follows that have not ended.
    fn wanted(&self) -> BTreeSet<String> {
        let s = self.0.borrow();
        let mut ids: BTreeSet<String> = s.drivers.keys().cloned().collect();
        for l in &s.listeners {
            ids.extend(l.ids.iter().cloned());
        }
        ids.retain(|id| !s.last.get(id).is_some_and(is_terminal));
        ids
    }

    fn forget_unfollowed(&self) {
        let wanted = self.wanted();
        let mut s = self.0.borrow_mut();
        let followed: BTreeSet<String> = s
            .drivers
            .keys()
            .cloned()
            .chain(s.listeners.iter().flat_map(|l| l.ids.iter().cloned()))
            .collect();
        s.last
            .retain(|id, _| followed.contains(id) || wanted.contains(id));
    }
}

/// A driver starts following `task_id`.
pub fn add_driver(inner: &Rc<Inner>, task_id: &str, task: &Value) {
    {
        let mut s = inner.hub.0.borrow_mut();
        *s.drivers.entry(task_id.to_owned()).or_default() += 1;
    }
    if let Value::Object(task) = task {
        inner.hub.offer(task);
    }
    schedule(inner);
}

/// A driver stops following `task_id`.
pub fn remove_driver(inner: &Rc<Inner>, task_id: &str) {
    {
        let mut s = inner.hub.0.borrow_mut();
        if let Some(count) = s.drivers.get_mut(task_id) {
            *count -= 1;
            if *count == 0 {
                s.drivers.remove(task_id);
            }
        }
    }
    inner.hub.forget_unfollowed();
}

/// A `listen()` subscription: the callback gets the states of `ids` already known at
/// once, then every new one. Returns its key for [`remove_listener`].
pub async fn add_listener(inner: &Rc<Inner>, ids: Vec<String>, callback: Function) -> u64 {
    let known: Vec<Value> = ids.iter().filter_map(|id| inner.hub.last(id)).collect();
    let key = {
        let mut s = inner.hub.0.borrow_mut();
        s.next_key += 1;
        let key = s.next_key;
        s.listeners.push(Listener {
            key,
            ids: ids.into_iter().collect(),
            callback: callback.clone(),
        });
        key
    };
    for task in known {
        if let Err(thrown) = callback.call1(&JsValue::UNDEFINED, &to_js(&task)) {
            web_sys::console::error_2(&"McpClient: a listen callback threw".into(), &thrown);
        }
    }
    reopen(inner.clone()).await;
    key
}

/// Ends a `listen()` subscription.
pub fn remove_listener(inner: &Rc<Inner>, key: u64) {
    inner.hub.0.borrow_mut().listeners.retain(|l| l.key != key);
    inner.hub.forget_unfollowed();
}

/// Reopens the stream soon, once for everything added meanwhile.
fn schedule(inner: &Rc<Inner>) {
    let wanted = inner.hub.wanted();
    {
        let mut s = inner.hub.0.borrow_mut();
        let new = !wanted.is_subset(&s.streamed) || (s.polling && !wanted.is_empty());
        if s.scheduled || !new {
            return;
        }
        s.scheduled = true;
    }
    let inner = inner.clone();
    spawn_local(async move {
        if js::wait(js::sleep(10), None).await.is_err() { /* a timer does not reject */ }
        inner.hub.0.borrow_mut().scheduled = false;
        reopen(inner).await;
    });
}

/// Opens a stream for every unfinished task followed, replacing the current one.
pub async fn reopen(inner: Rc<Inner>) {
    let ids = inner.hub.wanted();
    let generation = {
        let mut s = inner.hub.0.borrow_mut();
        if ids == s.streamed && s.reader.is_some() && !s.polling {
            return;
        }
        s.generation += 1;
        if let Some(reader) = s.reader.take() {
            js::mark_handled(&reader.cancel());
        }
        s.streamed = ids.clone();
        s.generation
    };
    if ids.is_empty() {
        inner.hub.0.borrow_mut().covered.clear();
        return;
    }
    let ids: Vec<String> = ids.into_iter().collect();
    let opened = open_stream(&inner, &ids).await;
    if inner.hub.0.borrow().generation != generation {
        if let Some((reader, _, _)) = opened {
            js::mark_handled(&reader.cancel());
        }
        return;
    }
    match opened {
        Some((reader, parser, early)) => {
            {
                let mut s = inner.hub.0.borrow_mut();
                s.reader = Some(reader.clone());
                s.polling = false;
            }
            spawn_local(read_stream(inner, generation, reader, parser, ids, early));
        }
        None => {
            // The server (or something between) does not stream: poll.
            let mut s = inner.hub.0.borrow_mut();
            s.streamed.clear();
            s.covered.clear();
            s.polling = true;
            drop(s);
            inner.hub.wake();
            start_poller(inner);
        }
    }
}

/// Applies one stream event (the stream asked for `requested`).
fn handle(inner: &Rc<Inner>, event: ListenEvent, requested: &[String]) {
    match event {
        ListenEvent::Acknowledged(accepted) => {
            let accepted: BTreeSet<String> = accepted.into_iter().collect();
            {
                let mut s = inner.hub.0.borrow_mut();
                s.failures = 0;
                // Ids the server would not watch (unknown, expired, not ours) get no callbacks.
                for l in &mut s.listeners {
                    l.ids
                        .retain(|id| accepted.contains(id) || !requested.contains(id));
                }
                s.covered = accepted;
            }
            inner.hub.wake();
        }
        ListenEvent::Task(Value::Object(task)) => inner.hub.offer(&task),
        _ => {}
    }
}

/// Opens the stream and reads up to its acknowledgement. `None` when that fails: no
/// stream, an error answer, or an end before the acknowledgement.
async fn open_stream(
    inner: &Inner,
    task_ids: &[String],
) -> Option<(
    web_sys::ReadableStreamDefaultReader,
    SseParser,
    Vec<ListenEvent>,
)> {
    let mut params = Map::new();
    params.insert("notifications".into(), json!({ "taskIds": task_ids }));
    let outgoing = inner
        .session
        .request(inner.next_id(), "subscriptions/listen", params, None);
    let response = js::post(inner.fetch.as_ref(), &inner.session.url, &outgoing, None)
        .await
        .ok()?;
    let media = js::content_type(&response).to_ascii_lowercase();
    if !response.ok() || !media.starts_with("text/event-stream") {
        return None;
    }
    let reader = web_sys::ReadableStreamDefaultReader::new(&response.body()?).ok()?;
    let mut parser = SseParser::default();
    let mut early = Vec::new();
    loop {
        let chunk = js::read_chunk(&reader).await.ok()??;
        let mut acked = false;
        for payload in parser.push(&chunk) {
            match listen_event(&payload) {
                // The events after the ack in the same chunk (the tasks' current states,
                // even the close) are kept: the parser has consumed them.
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
    inner: Rc<Inner>,
    generation: u64,
    reader: web_sys::ReadableStreamDefaultReader,
    mut parser: SseParser,
    requested: Vec<String>,
    early: Vec<ListenEvent>,
) {
    let current = |inner: &Inner| inner.hub.0.borrow().generation == generation;
    // First the events read while opening (the ack and whatever came with it).
    let mut events = early;
    let clean = loop {
        if !current(&inner) {
            return; // replaced by a newer stream
        }
        let mut over = None;
        for event in events.drain(..) {
            match event {
                ListenEvent::Closed => over = Some(true),
                ListenEvent::Error(_) => over = Some(false),
                event => handle(&inner, event, &requested),
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
    if !current(&inner) {
        return;
    }
    js::mark_handled(&reader.cancel());
    let failures = {
        let mut s = inner.hub.0.borrow_mut();
        s.reader = None;
        s.covered.clear();
        s.streamed.clear();
        if !clean {
            s.failures += 1;
        }
        s.failures
    };
    inner.hub.wake();
    if clean {
        // Every task of that stream ended; any added since get a new one.
        schedule(&inner);
    } else if failures <= REOPENS {
        // An end without the result is an error: reconnect, backing off.
        let delay = 500 * (1u64 << (failures - 1));
        if js::wait(js::sleep(delay), None).await.is_err() { /* timers do not reject */ }
        if current(&inner) {
            reopen(inner).await;
        }
    } else {
        inner.hub.0.borrow_mut().polling = true;
        inner.hub.wake();
        start_poller(inner);
    }
}

/// While polling, reads the tasks only `listen()` follows (drivers poll their own) until
/// a stream covers them again. A task the server no longer knows (-32602) is dropped.
fn start_poller(inner: Rc<Inner>) {
    {
        let mut s = inner.hub.0.borrow_mut();
        if s.poller {
            return;
        }
        s.poller = true;
    }
    spawn_local(async move {
        loop {
            let ids: Vec<String> = {
                let s = inner.hub.0.borrow();
                if !s.polling {
                    break;
                }
                s.listeners
                    .iter()
                    .flat_map(|l| l.ids.iter().cloned())
                    .filter(|id| !s.drivers.contains_key(id))
                    .filter(|id| !s.last.get(id).is_some_and(is_terminal))
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect()
            };
            let mut delay = flow::MAX_POLL_MS;
            for id in ids {
                match inner.get_task(&id, None).await {
                    Ok(Value::Object(task)) => {
                        delay = delay.min(flow::poll_delay(&Value::Object(task.clone())));
                        inner.hub.offer(&task);
                    }
                    Ok(_) => {}
                    Err(e) => {
                        if js::get(&e, "code").as_f64() == Some(ClientError::INVALID_PARAMS as f64)
                        {
                            for l in &mut inner.hub.0.borrow_mut().listeners {
                                l.ids.remove(&id);
                            }
                        }
                        delay = delay.min(flow::DEFAULT_POLL_MS);
                    }
                }
            }
            if js::wait(js::sleep(delay), None).await.is_err() { /* timers do not reject */ }
        }
        inner.hub.0.borrow_mut().poller = false;
    });
}
