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
//! clean close (every task ended) ──▶ the body read to its end ──▶ nothing to watch
//! ```
//!
//! Each stream's request has an `AbortController` of its own, and a replaced stream (or
//! one still opening) is ended by aborting it: the browser then ends the request as an
//! abort. Cancelling only the body's reader instead leaves the request running with its
//! consumer gone, which the network layer reports as a broken body (Firefox:
//! `NS_BASE_STREAM_CLOSED`).
//!
//! The decisions are `hub_state.rs` (plain Rust); this file does the I/O: the JS
//! callbacks, the promises drivers and watchers wait on; `hub/stream.rs` the stream, its
//! timers and the poller.

mod stream;

use super::client::Inner;
use super::hub_state::HubState;
use super::js::to_js;
use crate::tasks::task::StatusKind;
use js_sys::{Function, Promise};
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The client's stream and what it knows (see the module docs).
pub struct Hub {
    inner: Rc<Inner>,
    state: RefCell<HubState>,
    /// The `listen()` callbacks, by the keys `HubState` hands out.
    callbacks: RefCell<Vec<(u64, Function)>>,
    /// Drivers waiting for something to change (a new state or the coverage).
    waiters: RefCell<Vec<Function>>,
    /// Watchers waiting for the next reconnect (they list again then).
    reconnect_waiters: RefCell<Vec<Function>>,
    /// Ends the request of the current stream (open or opening).
    stream: RefCell<Option<web_sys::AbortController>>,
    /// Told each new connection (`HubState::connection`), by listener key: watchers and
    /// stores (Rust closures: they add what they know, e.g. a failed listing).
    connection_hooks: RefCell<Vec<(u64, ConnectionHook)>>,
    /// The connection last told.
    connection: Cell<&'static str>,
}

/// What a watcher runs when the connection changes.
pub type ConnectionHook = Rc<dyn Fn(&'static str)>;

/// Resolves every promise waiting in `waiters`.
fn resolve_all(waiters: &RefCell<Vec<Function>>) {
    let waiters = std::mem::take(&mut *waiters.borrow_mut());
    for resolve in waiters {
        if resolve.call0(&JsValue::UNDEFINED).is_err() { /* a resolver does not throw */ }
    }
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
            reconnect_waiters: Default::default(),
            stream: Default::default(),
            connection_hooks: Default::default(),
            connection: Cell::new("live"),
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

    /// How the changes come now (see `HubState::connection`).
    pub fn connection(&self) -> &'static str {
        self.state.borrow().connection()
    }

    /// `hook` gets each new connection until listener `key` is removed.
    pub fn on_connection(&self, key: u64, hook: ConnectionHook) {
        self.connection_hooks.borrow_mut().push((key, hook));
    }

    /// Wakes the waiting drivers, and tells the hooks when the connection changed (every
    /// change of the stream's state ends here).
    fn wake(&self) {
        resolve_all(&self.waiters);
        let now = self.connection();
        if self.connection.replace(now) != now {
            let hooks: Vec<ConnectionHook> = {
                let hooks = self.connection_hooks.borrow();
                hooks.iter().map(|(_, h)| h.clone()).collect()
            };
            for hook in hooks {
                hook(now);
            }
        }
    }

    /// How many times a stream reconnected (after a broken one, or after polling).
    pub fn reconnects(&self) -> u64 {
        self.state.borrow().reconnects()
    }

    /// A promise resolved at the next reconnect.
    pub fn reconnected(&self) -> Promise {
        Promise::new(&mut |resolve, _| self.reconnect_waiters.borrow_mut().push(resolve))
    }

    /// A state of a task, from the stream or a poll: passed on if it is new.
    pub fn offer(self: &Rc<Self>, task: &Map<String, Value>) {
        self.offer_new(task);
    }

    /// [`Hub::offer`]; whether the state was new (and so delivered).
    fn offer_new(self: &Rc<Self>, task: &Map<String, Value>) -> bool {
        let Some((task, keys)) = self.state.borrow_mut().offer(task) else {
            return false;
        };
        self.deliver_to(&keys, &task);
        self.wake();
        let ended = StatusKind::of_task(&task).is_some_and(StatusKind::is_terminal);
        if ended && self.state.borrow_mut().schedule_after_end() {
            // A task beyond the stream's bound may take the place this one left.
            self.reopen_soon();
        }
        true
    }

    /// Gives `task` to the callbacks of `keys`.
    fn deliver_to(&self, keys: &[u64], task: &Value) {
        let callbacks: Vec<Function> = {
            let callbacks = self.callbacks.borrow();
            callbacks
                .iter()
                .filter(|(k, _)| keys.contains(k))
                .map(|(_, f)| f.clone())
                .collect()
        };
        for callback in callbacks {
            deliver(&callback, task);
        }
    }

    /// A driver starts following `task_id` (whose current state is `task`); watchers
    /// follow it too.
    pub fn add_driver(self: &Rc<Self>, task_id: &str, task: &Value) {
        let joined = self.state.borrow_mut().add_driver(task_id);
        let delivered = match task {
            Value::Object(task) => self.offer_new(task),
            _ => false,
        };
        // A state that was not new went to nobody: the watchers it is new to get it.
        if !delivered
            && !joined.is_empty()
            && let Some(known) = self.last(task_id)
        {
            self.deliver_to(&joined, &known);
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

    /// A watcher (`watchMyTasks`): the callback gets the known states of the tasks the
    /// client's calls follow at once, then every new state of those and of every task
    /// they start or [`Hub::watch_listed`] adds. Returns its key.
    pub fn add_watcher(&self, callback: Function) -> u64 {
        let (key, known) = self.state.borrow_mut().add_watcher();
        self.callbacks.borrow_mut().push((key, callback.clone()));
        for task in known {
            deliver(&callback, &task);
        }
        key
    }

    /// Watcher `key` follows the unfinished tasks of a listing (`tasks`, their states
    /// then): their states go to it (the known ones at once), the stream reopens for
    /// them. With `wait`, returns once that stream is open (or known not to open).
    pub async fn watch_listed(
        self: &Rc<Self>,
        key: u64,
        tasks: Vec<Map<String, Value>>,
        wait: bool,
    ) {
        let ids: Vec<String> = tasks
            .iter()
            .filter_map(|t| t.get("taskId").and_then(Value::as_str).map(str::to_owned))
            .collect();
        let fresh = {
            let state = self.state.borrow();
            ids.iter()
                .any(|id| !state.watches(key, id) && !state.has_ended(id))
        };
        let known = self.state.borrow_mut().watch_listed(key, &ids);
        let callback = {
            let callbacks = self.callbacks.borrow();
            callbacks
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, f)| f.clone())
        };
        if let Some(callback) = callback {
            for task in &known {
                deliver(&callback, task);
            }
        }
        for task in &tasks {
            let id = task
                .get("taskId")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if self.state.borrow().watches(key, id) {
                self.offer(task);
            }
        }
        if wait {
            self.clone().reopen().await;
        } else if fresh {
            // Only for new tasks: while polling, a reopen is a retry of the stream, and a
            // quiet listing every few seconds must not retry it each time.
            self.schedule();
        }
    }

    /// Ends a `listen()` subscription or a watcher.
    pub fn remove_listener(&self, key: u64) {
        self.callbacks.borrow_mut().retain(|(k, _)| *k != key);
        self.connection_hooks
            .borrow_mut()
            .retain(|(k, _)| *k != key);
        self.state.borrow_mut().remove_listener(key);
    }
}
