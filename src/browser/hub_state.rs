//! What the client's one listen stream knows, in plain Rust (no JS values): which tasks
//! are followed and by whom, the newest state of each, what the stream covers, and the
//! decisions of opening, breaking and polling. `hub.rs` does the I/O around it and holds
//! the JS callbacks by the keys this state hands out. `cargo test --features browser`
//! checks these decisions natively.
//!
//! A stream carries at most [`MAX_STREAMED`] tasks (the server's bound): beyond it, the
//! tasks this client's own calls follow come first, then the newest; the others are
//! polled (drivers poll their own, the poller the listeners') until a place frees up.

mod watchers;

use super::sse::bare_task;
use crate::tasks::task::StatusKind;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Reopens of a broken stream before falling back to polling.
pub const REOPENS: u32 = 3;

/// The most tasks one stream asks for: the server refuses more
/// (`server::listen::MAX_TASKS`).
pub const MAX_STREAMED: usize = crate::server::listen::MAX_TASKS;

/// Ended tasks a watcher remembers, so a listing read before a task ended cannot bring
/// it back (a listing's state is a snapshot; a newer one may have been delivered since).
pub const MAX_ENDED: usize = 1_000;

/// Who follows which tasks: a `listen()` subscription (a fixed set of ids) or a watcher
/// (`watchMyTasks`: every task the client's calls start or its listings find, each until
/// it ends).
#[derive(Debug)]
struct Listener {
    key: u64,
    ids: BTreeSet<String>,
    watcher: bool,
}

/// The state of one client's hub (see `hub.rs`).
#[derive(Debug, Default)]
pub struct HubState {
    /// Drivers following each task (a count).
    drivers: BTreeMap<String, u32>,
    /// `listen()` subscriptions and watchers (a list: a generic map of one more type
    /// costs ~10 KB of wasm).
    listeners: Vec<Listener>,
    /// Tasks watchers saw end, newest last (at most [`MAX_ENDED`]).
    ended: Vec<String>,
    /// The newest state seen of each task (bare: no `resultType`, no subscription id).
    last: BTreeMap<String, Value>,
    /// The tasks the current stream acknowledged.
    covered: BTreeSet<String>,
    /// The tasks the current (or opening) stream was asked for.
    streamed: BTreeSet<String>,
    /// Bumped at every reopen: a stream of an older generation stops reading.
    generation: u64,
    /// A stream is open (its reader is held by the I/O side).
    open: bool,
    /// A stream of the current generation is being opened.
    opening: bool,
    polling: bool,
    poller: bool,
    failures: u32,
    scheduled: bool,
    next_key: u64,
    /// Streams opened after a broken one or after polling (watchers list again then:
    /// tasks may have started elsewhere meanwhile).
    reconnects: u64,
}

/// What to do after a stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterStream {
    /// A clean end (every task of it ended): open one for tasks added since, if any.
    Schedule,
    /// Broken: reopen after this many milliseconds.
    ReopenAfter(u64),
    /// Broken too often: poll from now on.
    Poll,
}

fn is_terminal(task: &Value) -> bool {
    StatusKind::of_task(task).is_some_and(StatusKind::is_terminal)
}

fn updated_at(task: &Value) -> &str {
    task.get("lastUpdatedAt")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// A task's `createdAt` (ISO 8601 from one server: they compare as strings).
pub fn created_at(task: &Value) -> &str {
    task.get("createdAt").and_then(Value::as_str).unwrap_or("")
}

impl HubState {
    /// `"stream"` unless the hub fell back to polling.
    pub fn mode(&self) -> &'static str {
        if self.polling { "polling" } else { "stream" }
    }

    /// How the changes come, for pages: `"live"` (the stream, or nothing to stream),
    /// `"reconnecting"` (the stream broke; it is being reopened after 0.5, 1, 2 s) or
    /// `"polling"` (no stream: tasks/get).
    pub fn connection(&self) -> &'static str {
        if self.polling {
            "polling"
        } else if self.failures > 0 {
            "reconnecting"
        } else {
            "live"
        }
    }

    /// Whether the current stream delivers `task_id`'s changes (so nobody polls it).
    pub fn covers(&self, task_id: &str) -> bool {
        !self.polling && self.covered.contains(task_id)
    }

    /// The newest state seen of `task_id`.
    pub fn last(&self, task_id: &str) -> Option<&Value> {
        self.last.get(task_id)
    }

    /// A state of `task`, from the stream or a poll: kept if it is new (never an older
    /// one after a newer one: `lastUpdatedAt` does not go back, and nothing follows a
    /// terminal state). Returns the bare state and the listeners to give it to.
    pub fn offer(&mut self, task: &Map<String, Value>) -> Option<(Value, Vec<u64>)> {
        let task = Value::Object(bare_task(task));
        let id = task.get("taskId")?.as_str()?.to_owned();
        if let Some(last) = self.last.get(&id)
            && (*last == task || is_terminal(last) || updated_at(&task) < updated_at(last))
        {
            return None;
        }
        self.last.insert(id.clone(), task.clone());
        let keys = self
            .listeners
            .iter()
            .filter(|l| l.ids.contains(&id))
            .map(|l| l.key)
            .collect();
        if is_terminal(&task) {
            self.stop_watching(&id);
        }
        Some((task, keys))
    }

    /// Tasks someone follows that have not ended.
    pub fn wanted(&self) -> BTreeSet<String> {
        let mut ids: BTreeSet<String> = self.drivers.keys().cloned().collect();
        for listener in &self.listeners {
            ids.extend(listener.ids.iter().cloned());
        }
        ids.retain(|id| !self.last.get(id).is_some_and(is_terminal));
        ids
    }

    /// What a stream asks for: every task [`HubState::wanted`], or when that is more than
    /// [`MAX_STREAMED`], the ones the client's calls follow first, then the newest (a task
    /// not seen yet counts as newest: it was just added).
    pub fn selection(&self) -> BTreeSet<String> {
        let wanted = self.wanted();
        if wanted.len() <= MAX_STREAMED {
            return wanted;
        }
        // Ordered by a key of their own in a set of strings (not a sort: a sort of one
        // more element type adds its whole code to the wasm): creation time, then id.
        let created = |id: &str| self.last.get(id).map_or("~", created_at).to_owned();
        let (driven, others): (Vec<&String>, Vec<&String>) =
            wanted.iter().partition(|id| self.drivers.contains_key(*id));
        let newest: BTreeSet<String> = others
            .into_iter()
            .map(|id| format!("{}\u{0}{id}", created(id)))
            .collect();
        let newest = newest
            .iter()
            .rev()
            .filter_map(|key| key.split_once('\u{0}').map(|(_, id)| id.to_owned()));
        driven
            .into_iter()
            .cloned()
            .chain(newest)
            .take(MAX_STREAMED)
            .collect()
    }

    /// Drops the states of tasks nobody follows any more (the map stays bounded).
    fn forget_unfollowed(&mut self) {
        let followed: BTreeSet<String> = self
            .drivers
            .keys()
            .chain(self.listeners.iter().flat_map(|l| &l.ids))
            .cloned()
            .collect();
        self.last.retain(|id, _| followed.contains(id));
    }

    /// A call of this client follows `task_id`; watchers follow it too. Returns the
    /// watchers it is new to (they get its known state, if any, at once).
    pub fn add_driver(&mut self, task_id: &str) -> Vec<u64> {
        *self.drivers.entry(task_id.to_owned()).or_default() += 1;
        self.watch_task(task_id)
    }

    pub fn remove_driver(&mut self, task_id: &str) {
        if let Some(count) = self.drivers.get_mut(task_id) {
            *count -= 1;
            if *count == 0 {
                self.drivers.remove(task_id);
            }
        }
        self.forget_unfollowed();
    }

    /// A new `listen()` subscription; returns its key and the states already known.
    pub fn add_listener(&mut self, ids: Vec<String>) -> (u64, Vec<Value>) {
        let known = ids
            .iter()
            .filter_map(|id| self.last.get(id).cloned())
            .collect();
        self.next_key += 1;
        self.listeners.push(Listener {
            key: self.next_key,
            ids: ids.into_iter().collect(),
            watcher: false,
        });
        (self.next_key, known)
    }

    pub fn remove_listener(&mut self, key: u64) {
        self.listeners.retain(|l| l.key != key);
        self.forget_unfollowed();
    }

    /// Whether a reopen should be scheduled now (something new to stream, and none
    /// scheduled yet); marks it scheduled.
    pub fn schedule(&mut self) -> bool {
        let wanted = self.selection();
        let new = !wanted.is_subset(&self.streamed) || (self.polling && !wanted.is_empty());
        if self.scheduled || !new {
            return false;
        }
        self.scheduled = true;
        true
    }

    /// After a task ended: whether a reopen should be scheduled, for a task that waited
    /// beyond [`MAX_STREAMED`] and may take the freed place (never while polling: a poll
    /// does not retry the stream).
    pub fn schedule_after_end(&mut self) -> bool {
        !self.polling && self.schedule()
    }

    pub fn scheduled_done(&mut self) {
        self.scheduled = false;
    }

    /// Starts replacing the stream with one for every unfinished task followed: `None`
    /// when the current one already streams (or is opening for) exactly those; else the
    /// new generation and the ids (empty: just close the current stream). The caller
    /// closes the old reader.
    pub fn begin_reopen(&mut self) -> Option<(u64, Vec<String>)> {
        let ids = self.selection();
        if ids == self.streamed && (self.open || self.opening) && !self.polling {
            return None;
        }
        self.generation += 1;
        self.open = false;
        self.opening = !ids.is_empty();
        self.streamed = ids.clone();
        if ids.is_empty() {
            self.covered.clear();
        }
        Some((self.generation, ids.into_iter().collect()))
    }

    /// Whether a stream is being opened (whoever asked for one waits for the outcome).
    pub fn opening(&self) -> bool {
        self.opening
    }

    pub fn is_current(&self, generation: u64) -> bool {
        self.generation == generation
    }

    /// The stream of the current generation opened. Returns whether it reconnects (a
    /// stream broke or the hub polled before it), counted in [`HubState::reconnects`].
    pub fn opened(&mut self) -> bool {
        let reconnect = self.failures > 0 || self.polling;
        self.reconnects += u64::from(reconnect);
        self.open = true;
        self.opening = false;
        self.polling = false;
        reconnect
    }

    /// How many streams reconnected so far (see [`HubState::opened`]).
    pub fn reconnects(&self) -> u64 {
        self.reconnects
    }

    /// Tasks someone follows that the stream does not ask for (beyond [`MAX_STREAMED`]),
    /// while streaming: the poller reads the listeners' ones.
    pub fn overflowing(&self) -> bool {
        !self.polling && (self.open || self.opening) && !self.wanted().is_subset(&self.streamed)
    }

    /// No stream could be opened (the server or something between does not stream).
    pub fn cannot_stream(&mut self) {
        self.opening = false;
        self.streamed.clear();
        self.covered.clear();
        self.polling = true;
    }

    /// The stream acknowledged `accepted` of the `requested` ids. Ids the server would
    /// not watch (unknown, expired, not ours) get no callbacks.
    pub fn acknowledged(&mut self, accepted: BTreeSet<String>, requested: &[String]) {
        self.failures = 0;
        for listener in &mut self.listeners {
            listener
                .ids
                .retain(|id| accepted.contains(id) || !requested.contains(id));
        }
        self.covered = accepted;
    }

    /// The current stream ended, cleanly (its result) or not.
    pub fn stream_ended(&mut self, clean: bool) -> AfterStream {
        self.open = false;
        self.covered.clear();
        self.streamed.clear();
        if clean {
            return AfterStream::Schedule;
        }
        self.failures += 1;
        if self.failures <= REOPENS {
            AfterStream::ReopenAfter(500 * (1u64 << (self.failures - 1)))
        } else {
            self.polling = true;
            AfterStream::Poll
        }
    }

    /// Whether a poller must start (none runs yet); marks it running.
    pub fn start_poller(&mut self) -> bool {
        !std::mem::replace(&mut self.poller, true)
    }

    /// The tasks the poller reads this round (only listeners follow them: drivers poll
    /// their own): every one while polling, else those the stream could not take
    /// ([`MAX_STREAMED`]); `None` when a stream covers them all again (the poller then
    /// stops).
    pub fn poll_round(&mut self) -> Option<Vec<String>> {
        if !self.polling && !self.overflowing() {
            self.poller = false;
            return None;
        }
        let ids: BTreeSet<String> = self
            .listeners
            .iter()
            .flat_map(|l| &l.ids)
            .filter(|id| !self.drivers.contains_key(*id))
            .filter(|id| self.polling || !self.streamed.contains(*id))
            .filter(|id| !self.last.get(*id).is_some_and(is_terminal))
            .cloned()
            .collect();
        Some(ids.into_iter().collect())
    }

    /// The server no longer knows `task_id`: no listener gets it any more.
    pub fn unknown_task(&mut self, task_id: &str) {
        for listener in &mut self.listeners {
            listener.ids.remove(task_id);
        }
    }
}
