//! Watchers (`watchMyTasks`): listeners whose set of tasks grows. A watcher follows every
//! task the client's calls start and every unfinished task a listing of "my tasks" finds,
//! each until its terminal state was delivered; then it forgets it, and remembers that it
//! ended (a listing read before the end must not bring it back).

use super::{HubState, Listener, MAX_ENDED, is_terminal};
use serde_json::Value;
use std::collections::BTreeSet;

impl HubState {
    /// Watchers stop following `task_id`, which ended (they got its terminal state).
    pub(super) fn stop_watching(&mut self, task_id: &str) {
        let mut watched = false;
        for listener in self.listeners.iter_mut().filter(|l| l.watcher) {
            watched |= listener.ids.remove(task_id);
        }
        if watched {
            if self.ended.len() >= MAX_ENDED {
                self.ended.remove(0);
            }
            self.ended.push(task_id.to_owned());
            self.forget_unfollowed();
        }
    }

    /// Whether a watcher saw `task_id` end (no watcher follows it again).
    pub fn has_ended(&self, task_id: &str) -> bool {
        self.ended.iter().any(|id| id == task_id)
    }

    /// Every watcher follows `task_id` unless it ended; returns the watchers it is new to.
    pub(super) fn watch_task(&mut self, task_id: &str) -> Vec<u64> {
        if self.has_ended(task_id) || self.last.get(task_id).is_some_and(is_terminal) {
            return Vec::new();
        }
        let mut joined = Vec::new();
        for listener in self.listeners.iter_mut().filter(|l| l.watcher) {
            if listener.ids.insert(task_id.to_owned()) {
                joined.push(listener.key);
            }
        }
        joined
    }

    /// A new watcher: it follows the unfinished tasks the client's calls follow now, and
    /// from then on every one they start ([`HubState::add_driver`]) or a listing finds
    /// ([`HubState::watch_listed`]), each until it ends. Returns its key and the states
    /// already known.
    pub fn add_watcher(&mut self) -> (u64, Vec<Value>) {
        self.next_key += 1;
        let key = self.next_key;
        self.listeners.push(Listener {
            key,
            ids: BTreeSet::new(),
            watcher: true,
        });
        let driven: Vec<String> = self.drivers.keys().cloned().collect();
        for id in driven {
            self.watch_task(&id);
        }
        let known = self.listeners.last().map_or(Vec::new(), |l| {
            l.ids
                .iter()
                .filter_map(|id| self.last.get(id).cloned())
                .collect()
        });
        (key, known)
    }

    /// A listing found these unfinished tasks: watcher `key` follows those it did not
    /// (unless they ended since: the listing may be older than what was delivered).
    /// Returns the known states of the ones new to it (its callback gets them at once;
    /// the listing's own states go through [`HubState::offer`]).
    pub fn watch_listed(&mut self, key: u64, ids: &[String]) -> Vec<Value> {
        let ended: Vec<bool> = ids.iter().map(|id| self.has_ended(id)).collect();
        let Some(listener) = self.listeners.iter_mut().find(|l| l.key == key) else {
            return Vec::new();
        };
        let mut known = Vec::new();
        for (id, ended) in ids.iter().zip(ended) {
            if !ended && listener.ids.insert(id.clone()) {
                known.extend(self.last.get(id).filter(|t| !is_terminal(t)).cloned());
            }
        }
        known
    }

    /// Whether listener `key` follows `task_id`.
    pub fn watches(&self, key: u64, task_id: &str) -> bool {
        self.listeners
            .iter()
            .any(|l| l.key == key && l.ids.contains(task_id))
    }
}
