//! A listen stream's slot in its principal's ledger (`QUOTA_LISTEN_STREAMS`), once for
//! every platform: taken before the stream opens, renewed every [`RENEW_MS`] while it is
//! open (the ledger holds it for twice that), given back when it ends. A stream dropped
//! by a disconnect frees its slot when the lease runs out, so a failed renewal or release
//! only costs a slot for a while: it is logged, and the stream goes on.

use crate::error::McpError;
use crate::ops::log::{Line, warning};
use crate::quota::{LedgerRequest, Quotas, RENEW_MS};
use std::cell::Cell;

/// What a slot needs of the platform: its principal's ledger.
// Single threaded, as `server::perform::Effects`.
#[allow(async_fn_in_trait)]
pub trait Ledgers {
    /// One request to `principal`'s ledger: done, or the refusal (a full quota names its
    /// limit) or why the ledger could not be reached.
    async fn ledger(&self, principal: &str, request: &LedgerRequest) -> Result<(), McpError>;
}

/// One listen stream's slot.
#[derive(Debug)]
pub struct StreamSlot {
    principal: String,
    stream_id: String,
    quotas: Quotas,
    renewed_at_ms: Cell<u64>,
}

impl StreamSlot {
    /// Takes a slot for the stream `stream_id` at `now_ms`: `None` without the quota, the
    /// refusal when the principal has too many streams open or its ledger cannot be
    /// reached (logged by the caller as every refusal, `ops::log::refused`).
    pub async fn acquire(
        l: &impl Ledgers,
        quotas: Quotas,
        principal: &str,
        stream_id: String,
        now_ms: u64,
    ) -> Result<Option<StreamSlot>, McpError> {
        if quotas.listen_streams.is_none() {
            return Ok(None);
        }
        let slot = StreamSlot {
            principal: principal.to_owned(),
            stream_id,
            quotas,
            renewed_at_ms: Cell::new(now_ms),
        };
        l.ledger(principal, &slot.acquire_request()).await?;
        Ok(Some(slot))
    }

    fn acquire_request(&self) -> LedgerRequest {
        LedgerRequest::AcquireStream {
            stream_id: self.stream_id.clone(),
            quotas: self.quotas,
        }
    }

    /// Renews the lease at `now_ms` if it is due; a line for the log when that failed.
    pub async fn keep(&self, l: &impl Ledgers, now_ms: u64) -> Option<Line> {
        if now_ms < self.renewed_at_ms.get() + RENEW_MS {
            return None;
        }
        self.renewed_at_ms.set(now_ms);
        let renewed = l.ledger(&self.principal, &self.acquire_request()).await;
        self.failed("renew", renewed)
    }

    /// Gives the slot back; a line for the log when that failed (the lease frees it).
    pub async fn release(self, l: &impl Ledgers) -> Option<Line> {
        let request = LedgerRequest::ReleaseStream {
            stream_id: self.stream_id.clone(),
        };
        let released = l.ledger(&self.principal, &request).await;
        self.failed("release", released)
    }

    fn failed(&self, what: &str, outcome: Result<(), McpError>) -> Option<Line> {
        let why = outcome.err()?.to_wire().message;
        let line = warning(&format!("could not {what} a listen stream's slot: {why}"));
        Some(line.principal(&self.principal))
    }
}
