//! The principal object's runner: one object per quota ledger (named by
//! `auth::anonymous::ledger_name`), holding the counters under one row ([`LEDGER_KEY`])
//! and the task index as one row per task (`quota::index_key`). The object handles its
//! requests one at a time around its storage, so read-decide-write is atomic and the
//! counters hold across every isolate.
//!
//! Per request: load the ledger (and, for a listing, one page of the index, newest
//! first), plan ([`quota::plan`]), read the oldest index rows a trim needs, then **one
//! write** (the ledger, the index rows put and deleted, the alarm) and the reply, which
//! leaves after the write. Per alarm: once everything the ledger holds has expired, the
//! object erases itself (an abandoned principal leaves nothing behind); otherwise it
//! looks again at the latest deadline.

use super::Write;
use crate::error::McpError;
use crate::quota::{self, LedgerRequest, Reply};
use crate::tasks::protocol::ObjectReply;
use std::fmt;

/// The row holding the ledger's counters.
pub const LEDGER_KEY: &str = "ledger";

/// Why the runner could not answer.
#[derive(Debug, Clone, PartialEq)]
pub enum LedgerError {
    Storage(String),
    /// The stored ledger does not decode: an error to surface, never a reset of quotas.
    Corrupt(String),
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LedgerError::Storage(why) => write!(f, "quota ledger storage failed: {why}"),
            LedgerError::Corrupt(why) => f.write_str(why),
        }
    }
}

/// What a principal object needs of its platform: its rows, one write, a clock.
// Futures here are never sent between threads (wasm and the tests' executor are single
// threaded), so the `Send` bound `async fn` in a public trait cannot state is not needed.
#[allow(async_fn_in_trait)]
pub trait LedgerPlatform {
    /// The [`LEDGER_KEY`] row, if the ledger exists.
    async fn ledger(&mut self) -> Result<Option<String>, String>;
    /// Index rows (key, value) under [`quota::INDEX_PREFIX`], newest first when `newest`
    /// (else oldest first), at most `limit`, only keys before `before` when given.
    async fn index(
        &mut self,
        newest: bool,
        limit: usize,
        before: Option<&str>,
    ) -> Result<Vec<(String, String)>, String>;
    /// Issues `write` as one transaction.
    async fn write(&mut self, write: Write) -> Result<(), String>;
    /// Unix milliseconds.
    fn now_ms(&self) -> u64;
}

/// One request as it arrived (JSON), answered as every object answers
/// (`tasks::protocol::ObjectReply`): its [`Reply`], or a -32603 saying why not (a request
/// that does not decode is the Worker's bug; storage that fails or a ledger that does not
/// decode, this object's).
pub async fn serve<P: LedgerPlatform>(p: &mut P, body: Result<Vec<u8>, String>) -> ObjectReply {
    let request = body.and_then(|body| crate::jsonrpc::read(&body).map_err(|e| e.to_string()));
    match request {
        Ok(request) => match self::request(p, &request).await {
            Ok(reply) => ObjectReply::Result(crate::jsonrpc::payload(&reply)),
            Err(e) => ObjectReply::Error(McpError::Internal(e.to_string()).to_wire()),
        },
        Err(e) => {
            let bug = McpError::Internal(format!("a ledger request that does not decode: {e}"));
            ObjectReply::Error(bug.to_wire())
        }
    }
}

/// One [`LedgerRequest`]: its reply, after its write.
pub async fn request<P: LedgerPlatform>(
    p: &mut P,
    request: &LedgerRequest,
) -> Result<Reply, LedgerError> {
    let stored = p.ledger().await.map_err(LedgerError::Storage)?;
    let listed = match quota::listing(request) {
        Some((before, limit)) => Some(
            p.index(true, limit, before)
                .await
                .map_err(LedgerError::Storage)?,
        ),
        None => None,
    };
    let mut plan = quota::plan(stored.as_deref(), request, p.now_ms(), listed)
        .map_err(LedgerError::Corrupt)?;
    if plan.trim > 0 {
        let oldest = p
            .index(false, plan.trim, None)
            .await
            .map_err(LedgerError::Storage)?;
        plan.trimmed(oldest).map_err(LedgerError::Corrupt)?;
    }
    let mut put = std::mem::take(&mut plan.put);
    if let Some(ledger) = plan.ledger.take() {
        put.push((LEDGER_KEY.to_owned(), ledger));
    }
    let write = Write {
        erase: false,
        put,
        delete: std::mem::take(&mut plan.delete),
        alarm: plan.alarm.map(Some),
    };
    if write != Write::default() {
        p.write(write).await.map_err(LedgerError::Storage)?;
    }
    Ok(plan.reply)
}

/// The object's alarm: erase everything once all the ledger holds has expired, else set
/// the alarm again at its latest deadline.
pub async fn alarm<P: LedgerPlatform>(p: &mut P) -> Result<(), LedgerError> {
    let stored = p.ledger().await.map_err(LedgerError::Storage)?;
    let write = match quota::expired(stored.as_deref(), p.now_ms()).map_err(LedgerError::Corrupt)? {
        None => Write::erase(),
        Some(at_ms) => Write {
            alarm: Some(Some(at_ms)),
            ..Write::default()
        },
    };
    p.write(write).await.map_err(LedgerError::Storage)
}
