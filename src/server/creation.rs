//! Running tools and creating tasks under the principal's quotas, once for every platform
//! and both eras (a 2026-07-28 task, a job, a 2025-11-25 task): the principal's ledger
//! (`crate::quota`) counts every run (`QUOTA_TASKS_PER_MINUTE`), counts and indexes every
//! task, and the task's object stores it; a task that was not stored gives its place back.
//! The platform only sends ([`Creating`]).
//!
//! ```text
//! a quota decides (live tasks, or an uncounted run)  ledger, then the object; the object
//!                                                    failed? the place is given back
//! the ledger only indexes (an unlimited key)         ledger and object at once: one
//!                                                    round trip; a lost index entry is
//!                                                    logged, the task exists
//! neither (unlimited, anonymous)                     the object only
//! an anonymous 2025-11-25 session's uncounted run    the shared anonymous ledger, then
//!                                                    its own, as above
//! ```

use crate::auth::ANONYMOUS;
use crate::auth::anonymous::{lists_tasks, task_principal};
use crate::concurrent::join;
use crate::error::McpError;
use crate::ops::log::{Line, refused, warning};
use crate::quota::{LedgerRequest, Quotas, shared_run};
use crate::tasks::protocol::{ObjectRequest, RESULT_STATUS};
use crate::tasks::record::TaskRecord;

/// An object's reply as sent (status, body), or why it could not be reached.
pub type Reply = Result<(u16, Vec<u8>), String>;

/// What running and creating need of the platform: each effect, no decision.
// Single threaded, as `server::perform::Effects`.
#[allow(async_fn_in_trait)]
pub trait Creating {
    /// One request to `principal`'s ledger: done, or the refusal (a full quota names its
    /// limit) or why the ledger could not be reached.
    async fn ledger(&self, principal: &str, request: &LedgerRequest) -> Result<(), McpError>;
    /// Sends `request` to its task's object as `principal`.
    async fn forward(&self, principal: &str, request: &ObjectRequest) -> Reply;
    /// Prints a log line (with the request's id).
    fn print(&self, line: Line);
}

/// One request to the ledger; a refusal is logged (`quota.refused`). An anonymous
/// session's run takes a place among all anonymous callers' runs first (`shared_run`), so
/// opening sessions does not multiply an anonymous caller's runs.
async fn ledger(
    c: &impl Creating,
    principal: &str,
    request: &LedgerRequest,
) -> Result<(), McpError> {
    let shared = match shared_run(principal, request) {
        Some(shared) => c.ledger(ANONYMOUS, &shared).await,
        None => Ok(()),
    };
    let outcome = match shared {
        Ok(()) => c.ledger(principal, request).await,
        refused => refused,
    };
    if let Err(error) = &outcome
        && let Some(line) = refused(error, Some(principal), None)
    {
        c.print(line);
    }
    outcome
}

/// Counts one tool run against `QUOTA_TASKS_PER_MINUTE` before it starts (inline or
/// not): `Err` names the limit when it is reached.
pub async fn acquire_run(
    c: &impl Creating,
    quotas: Quotas,
    principal: &str,
) -> Result<(), McpError> {
    if quotas.tasks_per_minute.is_none() {
        return Ok(());
    }
    ledger(c, principal, &LedgerRequest::AcquireRun { quotas }).await
}

/// Enters the new task `record` (its id drawn) in its principal's ledger and has the
/// task's object store it: `Err` when a quota refuses it, else the object's reply. An
/// anonymous caller's task is its own principal (`auth::anonymous`). `counted`: its run
/// was already counted ([`acquire_run`]).
pub async fn store_new_task(
    c: &impl Creating,
    quotas: Quotas,
    principal: &str,
    mut record: Box<TaskRecord>,
    counted: bool,
) -> Result<Reply, McpError> {
    let task_id = record.task_id().to_owned();
    record.assign_owner(task_principal(principal, &task_id).into_owned());
    let owner = record.owner().to_owned();
    let acquire = LedgerRequest::AcquireTask {
        task_id: task_id.clone(),
        until_ms: record.expires_at_ms(),
        quotas,
        counted,
        index: lists_tasks(principal),
    };
    let create = ObjectRequest::Create { record };
    let decides = quotas.live_tasks.is_some() || (!counted && quotas.tasks_per_minute.is_some());
    if !decides && !lists_tasks(principal) {
        return Ok(c.forward(&owner, &create).await);
    }
    if !decides {
        // Nothing to refuse: the ledger only indexes the task (tasks/list), so both
        // objects are asked at once and creation waits for one round trip, not two.
        let (indexed, reply) = join(ledger(c, &owner, &acquire), c.forward(&owner, &create)).await;
        if let Err(error) = indexed {
            // The task exists and runs; only its listing is missing. Said, not hidden.
            let why = error.to_wire().message;
            let line = warning(&format!("the task is not in its owner's index: {why}"));
            c.print(line.principal(&owner).field("taskId", task_id.as_str()));
        }
        return Ok(reply);
    }
    // A quota decides whether the task may exist: the ledger answers first.
    ledger(c, &owner, &acquire).await?;
    let reply = c.forward(&owner, &create).await;
    if !matches!(reply, Ok((status, _)) if status == RESULT_STATUS) {
        release_task(c, quotas, &owner, task_id).await;
    }
    Ok(reply)
}

/// Gives back the place of a task that was not created (best effort: the ledger entry
/// expires with the task's TTL anyway).
async fn release_task(c: &impl Creating, quotas: Quotas, owner: &str, task_id: String) {
    if !quotas.counts_tasks() {
        return;
    }
    let release = LedgerRequest::ReleaseTask {
        task_id: task_id.clone(),
    };
    // Best effort by design: the entry's deadline is the fallback.
    if let Err(why) = c.ledger(owner, &release).await {
        let line = warning(&format!("could not give back a task's quota place: {why}"));
        c.print(line.principal(owner).field("taskId", task_id));
    }
}
