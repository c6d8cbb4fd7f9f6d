//! What `watchMyTasks` lists, in plain Rust: the caller's unfinished tasks from pages of
//! "my tasks" (`mcp-tasks-edge/tasks/list`, newest first), within bounds. The first
//! listing reads at most [`MAX_PAGES`] pages (the newest 500 tasks: an unfinished task
//! older than those is not found); a later one stops at the first page that reaches
//! tasks created before the newest an earlier listing saw (a task started elsewhere
//! since is newer than those), so a quiet relist reads one page.
//!
//! ```text
//! page → tasks: keep working / input_required; newest createdAt seen
//!      → nextCursor, unless: MAX_PAGES read, or a task older than `since` on this page
//! ```

use super::error::ClientError;
use super::hub_state::created_at;
use crate::tasks::task::StatusKind;
use serde_json::{Map, Value};

/// Pages one listing reads at most (50 tasks each).
pub const MAX_PAGES: usize = 10;
/// How often a watcher lists again by default (tasks started elsewhere show up then).
pub const DEFAULT_RELIST_MS: u64 = 10_000;
/// The shortest relist interval a page may ask for.
pub const MIN_RELIST_MS: u64 = 1_000;
/// The longest.
pub const MAX_RELIST_MS: u64 = 3_600_000;

/// `relistIntervalMs` as given (a number, or not), within bounds.
pub fn relist_interval(option: Option<f64>) -> u64 {
    match option {
        Some(ms) if ms.is_finite() => (ms as u64).clamp(MIN_RELIST_MS, MAX_RELIST_MS),
        _ => DEFAULT_RELIST_MS,
    }
}

/// One listing in progress.
#[derive(Debug, Default)]
pub struct Listing {
    /// The newest `createdAt` an earlier listing saw (none: the first listing).
    since: Option<String>,
    pages: usize,
    unfinished: Vec<Map<String, Value>>,
    /// Every task read, finished ones too (the store shows them; the watch does not).
    all: Vec<Map<String, Value>>,
    newest: Option<String>,
}

impl Listing {
    pub fn new(since: Option<String>) -> Self {
        Listing {
            since,
            ..Listing::default()
        }
    }

    /// Takes a page (a `TaskPage`); returns the cursor of the next page to read, or
    /// `None` when the listing is done.
    pub fn page(&mut self, page: &Map<String, Value>) -> Result<Option<String>, ClientError> {
        let Some(Value::Array(tasks)) = page.get("tasks") else {
            return Err(ClientError::new(
                ClientError::INVALID_REQUEST,
                "Invalid response: mcp-tasks-edge/tasks/list without a tasks array",
                None,
            ));
        };
        self.pages += 1;
        let mut reached_known = false;
        for task in tasks {
            let Value::Object(map) = task else { continue };
            let created = created_at(task);
            if self.newest.as_deref().is_none_or(|newest| created > newest) {
                self.newest = Some(created.to_owned());
            }
            reached_known |= self.since.as_deref().is_some_and(|since| created < since);
            if !map.contains_key("taskId") {
                continue;
            }
            let kind = StatusKind::of_task(task);
            if kind.is_some_and(|kind| !kind.is_terminal()) {
                self.unfinished.push(map.clone());
            }
            self.all.push(map.clone());
        }
        let next = page.get("nextCursor").and_then(Value::as_str);
        Ok(next
            .filter(|_| !reached_known && self.pages < MAX_PAGES)
            .map(str::to_owned))
    }

    /// What the listing found (see [`Listed`]).
    pub fn finish(self) -> Listed {
        let newest = match (self.newest, self.since) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        Listed {
            unfinished: self.unfinished,
            all: self.all,
            newest,
        }
    }
}

/// A finished listing.
#[derive(Debug, Default)]
pub struct Listed {
    /// The unfinished tasks (the watch follows them).
    pub unfinished: Vec<Map<String, Value>>,
    /// Every task read, in the server's order (the store shows the finished ones too).
    pub all: Vec<Map<String, Value>>,
    /// The newest `createdAt` seen so far (this listing's or the earlier ones'): the next
    /// listing's `since`.
    pub newest: Option<String>,
}
