//! One principal's counters ([`Ledger`]) and how each request changes them.

use super::index::{IndexEntry, MAX_INDEXED, index_key};
use super::{Exceeded, LedgerRequest, RETRY_SLOT_S, STREAM_LEASE_MS, WINDOW_MS};
use crate::pairs::Pairs;
use serde::{Deserialize, Serialize};

/// One principal's counters, stored as one small value. Its maps are [`Pairs`]: each is
/// bounded by its quota (an entry is kept only while the quota is set) and written whole
/// on every change.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ledger {
    /// Creation times within the last [`WINDOW_MS`].
    pub created: Vec<u64>,
    /// Unfinished tasks and when each stops counting at the latest (its expiry).
    pub live: Pairs<String, u64>,
    /// Open listen streams and their lease deadlines.
    pub streams: Pairs<String, u64>,
    /// Open 2025-11-25 sessions and when each expires unless renewed.
    #[serde(default, skip_serializing_if = "Pairs::is_empty")]
    pub sessions: Pairs<String, u64>,
    /// How many entries the task index holds (its entries are keys of their own, see
    /// [`index_key`]: one small write per task, never a rewrite of the whole index).
    #[serde(default)]
    pub indexed: u64,
    /// The latest expiry among the indexed tasks: after it (and every other deadline
    /// here), the ledger holds nothing and its object deletes itself.
    #[serde(default)]
    pub index_until_ms: u64,
    /// The index as format 1 kept it, inside this value: read once, moved to keys.
    #[serde(default, rename = "tasks", skip_serializing)]
    pub legacy_index: Pairs<String, (u64, u64)>,
}

impl Ledger {
    fn purge(&mut self, now_ms: u64) {
        self.created
            .retain(|t| now_ms < t.saturating_add(WINDOW_MS));
        self.live.retain(|_, until| now_ms < *until);
        self.streams.retain(|_, until| now_ms < *until);
        self.sessions.retain(|_, until| now_ms < *until);
    }

    /// When everything this ledger holds has expired (`u64::MAX`: never, a task without
    /// a TTL is indexed).
    pub fn latest_ms(&self) -> u64 {
        let window = self
            .created
            .iter()
            .max()
            .map_or(0, |t| t.saturating_add(WINDOW_MS));
        // A ledger stored before `index_until_ms` existed may index tasks of unknown
        // expiry: it is kept.
        let index = match (self.indexed, self.index_until_ms) {
            (0, until) => until,
            (_, 0) => u64::MAX,
            (_, until) => until,
        };
        let deadlines = self
            .live
            .values()
            .chain(self.streams.values())
            .chain(self.sessions.values());
        deadlines.copied().fold(window.max(index), u64::max)
    }

    /// Counts one run in the `QUOTA_TASKS_PER_MINUTE` window, or says when to retry.
    fn count_run(&mut self, quotas: &super::Quotas, now_ms: u64) -> Result<(), Exceeded> {
        let Some(max) = quotas.tasks_per_minute else {
            return Ok(());
        };
        if self.created.len() as u64 >= max {
            let oldest = self.created.iter().min().copied().unwrap_or(now_ms);
            let wait_ms = oldest.saturating_add(WINDOW_MS).saturating_sub(now_ms);
            return Err(Exceeded {
                limit: "QUOTA_TASKS_PER_MINUTE".into(),
                max,
                retry_after_s: wait_ms.div_ceil(1000).max(1),
            });
        }
        self.created.push(now_ms);
        Ok(())
    }

    /// Moves a format-1 index out of the value: the entries to write as keys.
    pub fn take_legacy_index(&mut self) -> Vec<IndexEntry> {
        let until = self.legacy_index.values().map(|(_, until)| *until).max();
        self.index_until_ms = self.index_until_ms.max(until.unwrap_or(0));
        let entries: Vec<IndexEntry> = std::mem::take(&mut self.legacy_index)
            .into_vec()
            .into_iter()
            .map(|(id, (created, until))| IndexEntry {
                key: index_key(created, &id),
                until_ms: until,
            })
            .collect();
        self.indexed += entries.len() as u64;
        entries
    }

    /// How many of the oldest index entries to drop to stay within [`MAX_INDEXED`]
    /// (counted as dropped already).
    pub fn trim_index(&mut self) -> u64 {
        let excess = self.indexed.saturating_sub(MAX_INDEXED);
        self.indexed -= excess;
        excess
    }

    /// Applies one request at `now_ms` (expired entries are dropped first): `Ok` when
    /// granted, with the index entry to write for a new task; `Err` when a limit refuses
    /// it (nothing is recorded).
    pub fn apply(
        &mut self,
        request: &LedgerRequest,
        now_ms: u64,
    ) -> Result<Option<IndexEntry>, Exceeded> {
        self.purge(now_ms);
        match request {
            LedgerRequest::AcquireRun { quotas } => self.count_run(quotas, now_ms).map(|()| None),
            LedgerRequest::AcquireTask {
                task_id,
                until_ms,
                quotas,
                counted,
                index,
            } => {
                if self.live.contains_key(task_id) {
                    return Ok(None);
                }
                if let Some(max) = quotas.live_tasks
                    && self.live.len() as u64 >= max
                {
                    return Err(Exceeded {
                        limit: "QUOTA_LIVE_TASKS".into(),
                        max,
                        retry_after_s: RETRY_SLOT_S,
                    });
                }
                if !counted {
                    self.count_run(quotas, now_ms)?;
                }
                if quotas.live_tasks.is_some() {
                    self.live
                        .insert(task_id.clone(), until_ms.unwrap_or(u64::MAX));
                }
                if !index {
                    return Ok(None);
                }
                self.indexed += 1;
                self.index_until_ms = self.index_until_ms.max(until_ms.unwrap_or(u64::MAX));
                Ok(Some(IndexEntry {
                    key: index_key(now_ms, task_id),
                    until_ms: until_ms.unwrap_or(u64::MAX),
                }))
            }
            LedgerRequest::ReleaseTask { task_id } => {
                self.live.remove(task_id);
                Ok(None)
            }
            LedgerRequest::AcquireStream { stream_id, quotas } => {
                if let Some(max) = quotas.listen_streams
                    && !self.streams.contains_key(stream_id)
                    && self.streams.len() as u64 >= max
                {
                    return Err(Exceeded {
                        limit: "QUOTA_LISTEN_STREAMS".into(),
                        max,
                        retry_after_s: RETRY_SLOT_S,
                    });
                }
                if quotas.listen_streams.is_some() {
                    self.streams
                        .insert(stream_id.clone(), now_ms.saturating_add(STREAM_LEASE_MS));
                }
                Ok(None)
            }
            LedgerRequest::ReleaseStream { stream_id } => {
                self.streams.remove(stream_id);
                Ok(None)
            }
            LedgerRequest::AcquireSession {
                session_id,
                until_ms,
                quotas,
            } => {
                if let Some(max) = quotas.sessions
                    && !self.sessions.contains_key(session_id)
                    && self.sessions.len() as u64 >= max
                {
                    // A slot frees when a session ends or its idle time runs out.
                    let soonest = self.sessions.values().min().copied().unwrap_or(now_ms);
                    return Err(Exceeded {
                        limit: "QUOTA_SESSIONS".into(),
                        max,
                        retry_after_s: soonest.saturating_sub(now_ms).div_ceil(1000).max(1),
                    });
                }
                if quotas.sessions.is_some() {
                    self.sessions.insert(session_id.clone(), *until_ms);
                }
                Ok(None)
            }
            LedgerRequest::ReleaseSession { session_id } => {
                self.sessions.remove(session_id);
                Ok(None)
            }
            LedgerRequest::ListTasks { .. } => Ok(None),
        }
    }
}
