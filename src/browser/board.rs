//! What the "my tasks" store shows (`MyTasksStore`, `store.rs`), in plain Rust: ONE merged
//! view of the caller's tasks from two sources, the listings of "my tasks" (every status,
//! finished tasks included) and the live states of the watch (the stream, polls, this
//! client's own calls). docs/web-apps.md states these rules for pages:
//!
//! - one entry per `taskId`, newest first (`createdAt`, then `taskId`);
//! - a state replaces the entry when its `lastUpdatedAt` is later; on a tie a live state
//!   replaces a listed one, never the other way round (a listing is a snapshot that may be
//!   older than what the stream said since);
//! - a terminal entry is final (`completed`, `failed`, `cancelled`): nothing replaces it;
//! - the tool, its title and the numbers (`progress` of `total`) are the newest state's,
//!   else the entry's (not every state repeats them); a completed task's `progress` is its
//!   `total`;
//! - `inputRequests` are the pending ones: the current state's when `input_required`, else
//!   none;
//! - at most `limit` entries: beyond it the oldest finished tasks go; unfinished ones are
//!   always kept (they are what a page acts on).

use super::hub_state::created_at;
use crate::tasks::task::StatusKind;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// How many entries a store keeps by default.
pub const DEFAULT_LIMIT: usize = 100;
/// The most a page may ask for (a first listing reads 500 tasks at most anyway).
pub const MAX_LIMIT: usize = 500;

/// `limit` as given (a number, or not), within 1 … [`MAX_LIMIT`].
pub fn limit(option: Option<f64>) -> usize {
    match option {
        Some(n) if n.is_finite() => (n as usize).clamp(1, MAX_LIMIT),
        _ => DEFAULT_LIMIT,
    }
}

/// Where a state came from: a listing, or the watch (stream, poll, a call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Listed,
    Live,
}

/// The merged view (see the module docs).
#[derive(Debug)]
pub struct Board {
    /// Entries by `createdAt` NUL `taskId` (so the map's order is the view's, reversed).
    /// A map of the value type the hub already uses: one more generic map type costs
    /// ~10 KB of wasm.
    entries: BTreeMap<String, Value>,
    /// The keys whose entry came from a live state (they win ties).
    live: BTreeSet<String>,
    limit: usize,
}

fn is_terminal(task: &Value) -> bool {
    StatusKind::of_task(task).is_some_and(StatusKind::is_terminal)
}

fn text<'a>(task: &'a Value, key: &str) -> &'a str {
    task.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The entry a page reads for `task` (a `DetailedTask`), given the previous one.
fn entry(task: &Map<String, Value>, old: Option<&Value>) -> Value {
    let facts = task
        .get("_meta")
        .and_then(|m| m.get("mcp-tasks-edge/task"))
        .filter(|f| f.is_object());
    let mut out = Map::new();
    for key in [
        "taskId",
        "status",
        "statusMessage",
        "createdAt",
        "lastUpdatedAt",
    ] {
        if let Some(value) = task.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    out.insert(
        "ttlMs".into(),
        task.get("ttlMs").cloned().unwrap_or(Value::Null),
    );
    // The tool and the numbers: this state's, else the entry's.
    let of = |source: Option<&Value>, key: &str| {
        source
            .and_then(|s| s.get(key))
            .filter(|v| !v.is_null())
            .cloned()
    };
    let tool = of(facts, "tool").or_else(|| of(old, "tool"));
    out.insert("tool".into(), tool.unwrap_or_else(|| "".into()));
    if let Some(title) = of(facts, "title").or_else(|| of(old, "title")) {
        out.insert("title".into(), title);
    }
    // Progress and total go together: a state that reports a total reports both.
    let numbers = if of(facts, "total").is_some() {
        facts
    } else {
        old
    };
    for key in ["progress", "total"] {
        if let Some(value) = of(numbers, key) {
            out.insert(key.into(), value);
        }
    }
    let completed = task.get("status").and_then(Value::as_str) == Some("completed");
    if completed && let Some(total) = out.get("total").cloned() {
        out.insert("progress".into(), total);
    }
    let pending = match task.get("inputRequests") {
        Some(requests @ Value::Object(_)) if !is_terminal(&Value::Object(task.clone())) => {
            requests.clone()
        }
        _ => Value::Object(Map::new()),
    };
    out.insert("inputRequests".into(), pending);
    for key in ["result", "error"] {
        if let Some(value) = task.get(key) {
            out.insert(key.into(), value.clone());
        }
    }
    Value::Object(out)
}

impl Board {
    pub fn new(limit: usize) -> Self {
        Board {
            entries: BTreeMap::new(),
            live: BTreeSet::new(),
            limit,
        }
    }

    /// A state of a task from `source`: merged by the rules of the module docs. Returns
    /// whether the view changed.
    pub fn offer(&mut self, task: &Map<String, Value>, source: Source) -> bool {
        let Some(id) = task.get("taskId").and_then(Value::as_str) else {
            return false;
        };
        let state = Value::Object(task.clone());
        let key = format!("{}\u{0}{id}", created_at(&state));
        let old = self.entries.get(&key).cloned();
        if let Some(old) = &old {
            let (now, then) = (text(&state, "lastUpdatedAt"), text(old, "lastUpdatedAt"));
            let tie_lost = now == then && source == Source::Listed && self.live.contains(&key);
            if is_terminal(old) || now < then || tie_lost {
                return false;
            }
        }
        let new = entry(task, old.as_ref());
        if old.as_ref() == Some(&new) {
            return false;
        }
        self.entries.insert(key.clone(), new);
        if source == Source::Live {
            self.live.insert(key.clone());
        } else {
            self.live.remove(&key);
        }
        self.trim();
        self.entries.contains_key(&key) || old.is_some()
    }

    /// Drops the oldest finished entries beyond the limit.
    fn trim(&mut self) {
        while self.entries.len() > self.limit {
            let Some(oldest) = self
                .entries
                .iter()
                .find(|(_, e)| is_terminal(e))
                .map(|(k, _)| k.clone())
            else {
                return; // only unfinished tasks: all kept
            };
            self.entries.remove(&oldest);
            self.live.remove(&oldest);
        }
    }

    /// The entries, newest first.
    pub fn tasks(&self) -> Vec<Value> {
        self.entries.values().rev().cloned().collect()
    }
}
