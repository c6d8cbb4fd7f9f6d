//! An in-memory PrincipalObject: the core's runner (`objects::principal`) on a platform
//! of a map of rows, one alarm and the list of what the runner asked of it, in order. The
//! double decides nothing: reorder the runner's reads and its write, or split the write,
//! and the tests that use it see it.

use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::objects::Write;
use mcp_tasks_edge::objects::principal::{self, LEDGER_KEY, LedgerError, LedgerPlatform};
use mcp_tasks_edge::quota::{INDEX_PREFIX, LedgerRequest, Reply};
use std::collections::BTreeMap;

/// What the runner asked of its platform.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    Ledger,
    Index {
        newest: bool,
        limit: usize,
        before: Option<String>,
    },
    Write(Write),
}

#[derive(Default)]
pub struct LedgerObject {
    pub rows: BTreeMap<String, String>,
    pub alarm: Option<u64>,
    pub calls: Vec<Call>,
    pub now: u64,
    /// Every write fails (storage unavailable).
    pub broken: bool,
}

impl LedgerPlatform for LedgerObject {
    async fn ledger(&mut self) -> Result<Option<String>, String> {
        self.calls.push(Call::Ledger);
        Ok(self.rows.get(LEDGER_KEY).cloned())
    }

    async fn index(
        &mut self,
        newest: bool,
        limit: usize,
        before: Option<&str>,
    ) -> Result<Vec<(String, String)>, String> {
        self.calls.push(Call::Index {
            newest,
            limit,
            before: before.map(str::to_owned),
        });
        let rows = self
            .rows
            .iter()
            .filter(|(k, _)| k.starts_with(INDEX_PREFIX))
            .filter(|(k, _)| before.is_none_or(|b| k.as_str() < b))
            .map(|(k, v)| (k.clone(), v.clone()));
        let rows: Vec<_> = if newest {
            rows.rev().take(limit).collect()
        } else {
            rows.take(limit).collect()
        };
        Ok(rows)
    }

    async fn write(&mut self, write: Write) -> Result<(), String> {
        self.calls.push(Call::Write(write.clone()));
        if self.broken {
            return Err("storage unavailable".into());
        }
        if write.erase {
            self.rows.clear();
            self.alarm = None;
            return Ok(());
        }
        for key in write.delete {
            self.rows.remove(&key);
        }
        self.rows.extend(write.put);
        if let Some(alarm) = write.alarm {
            self.alarm = alarm;
        }
        Ok(())
    }

    fn now_ms(&self) -> u64 {
        self.now
    }
}

impl LedgerObject {
    pub fn at(now: u64) -> LedgerObject {
        LedgerObject {
            now,
            ..LedgerObject::default()
        }
    }

    /// `request`, with the calls it made (the list is emptied first).
    pub fn ask(&mut self, request: &LedgerRequest) -> (Result<Reply, LedgerError>, Vec<Call>) {
        self.calls.clear();
        let reply = block_on(principal::request(self, request));
        (reply, std::mem::take(&mut self.calls))
    }

    pub fn index_rows(&self) -> Vec<&String> {
        let rows = self.rows.keys();
        rows.filter(|k| k.starts_with(INDEX_PREFIX)).collect()
    }

    /// The object's alarm, with the calls it made (the list is emptied first).
    pub fn alarm_fired(&mut self) -> (Result<(), LedgerError>, Vec<Call>) {
        self.calls.clear();
        let done = block_on(principal::alarm(self));
        (done, std::mem::take(&mut self.calls))
    }
}
