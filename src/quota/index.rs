//! The principal's task index (what `tasks/list` reads): one storage key per task,
//! sorted by creation time, so indexing a task is one small write and the newest are
//! listed by reading the keys backwards.

use crate::pairs::Pairs;

/// The most tasks the index keeps (the newest; older ones still exist until their TTL
/// but are no longer listed).
pub const MAX_INDEXED: u64 = 5_000;

/// Task ids per page of a listing.
pub const LIST_PAGE: usize = 50;

/// The prefix of the index's storage keys.
pub const INDEX_PREFIX: &str = "task:";

/// A task's entry in the index: a storage key of its own, which sorts by creation time
/// (then id), so the newest are listed first by reading the keys backwards. Its value is
/// the task's expiry ([`index_value`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    pub key: String,
    pub until_ms: u64,
}

/// The storage key of `task_id`'s index entry, created at `created_ms`.
pub fn index_key(created_ms: u64, task_id: &str) -> String {
    format!("{INDEX_PREFIX}{created_ms:016}:{task_id}")
}

/// The stored value of an entry: its expiry, in decimal.
pub fn index_value(until_ms: u64) -> String {
    until_ms.to_string()
}

/// Whether `cursor` can be an index key (what a listing's next-page cursor is): a client's
/// cursor only positions a listing inside its own principal's index, but it is checked
/// before it reaches storage.
pub fn cursor_ok(cursor: &str) -> bool {
    cursor.len() <= 200
        && split_key(cursor).is_some_and(|(created, id)| {
            created.len() == 16 && created.bytes().all(|b| b.is_ascii_digit()) && !id.is_empty()
        })
}

/// One page of a listing from the entries read newest first (at most [`LIST_PAGE`] + 1,
/// the one beyond telling that more follow): the live ids, the expired keys (to delete),
/// and the cursor of the next page (the last key of this one).
pub fn read_page(
    entries: Vec<(String, String)>,
    now_ms: u64,
) -> (Vec<String>, Vec<String>, Option<String>) {
    let mut entries = newest_first(entries);
    let next = (entries.len() > LIST_PAGE).then(|| entries[LIST_PAGE - 1].0.clone());
    entries.truncate(LIST_PAGE);
    let (live, expired) = classify(entries, now_ms);
    (live, expired, next)
}

/// Sorts stored index entries (key, value), newest first, into the ids of tasks still
/// live at `now_ms` and the keys of the expired ones (to delete).
pub fn read_index(entries: Vec<(String, String)>, now_ms: u64) -> (Vec<String>, Vec<String>) {
    classify(newest_first(entries), now_ms)
}

/// Entries by key, newest (greatest) first. Through [`Pairs`] rather than a sort (a sort
/// of its own per element type) or a `BTreeMap` (a B-tree of its own): storage lists keys
/// in order, so each entry goes at the end, and a page is [`LIST_PAGE`] + 1 entries.
fn newest_first(entries: Vec<(String, String)>) -> Vec<(String, String)> {
    let sorted: Pairs<String, String> = entries.into_iter().collect();
    let mut sorted = sorted.into_vec();
    sorted.reverse();
    sorted
}

/// An index key's (created, task id) parts, as [`index_key`] writes them.
fn split_key(key: &str) -> Option<(&str, &str)> {
    key.strip_prefix(INDEX_PREFIX)?.split_once(':')
}

/// Entries in the order given, into live ids and expired (or unreadable) keys.
fn classify(entries: Vec<(String, String)>, now_ms: u64) -> (Vec<String>, Vec<String>) {
    let mut live = Vec::new();
    let mut expired = Vec::new();
    for (key, value) in entries {
        let id = split_key(&key).map(|(_, id)| id.to_owned());
        match (id, value.parse::<u64>()) {
            (Some(id), Ok(until)) if now_ms < until => live.push(id),
            _ => expired.push(key),
        }
    }
    (live, expired)
}
