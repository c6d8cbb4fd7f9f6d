//! Creating a task, in both eras: the principal's ledger counts it against the quotas and
//! indexes it (`crate::quota`), the task's object stores it; a task that ends gives its
//! place back.

use super::new_task_id;
use super::principal_object;
use super::rpc::call_object;
use crate::error::McpError;
use crate::http::HttpResponse;
use crate::quota::LedgerRequest;
use crate::server::{self, Server};
use crate::tasks::protocol::{ObjectRequest, RESULT_STATUS};
use worker::Env;

/// Draws the task id, takes a place in the principal's task quota (429 naming the limit
/// when full), has the task's object store the record, and answers with its reply.
pub(crate) async fn create_task(
    server: &Server,
    env: &Env,
    principal: &str,
    request_id: crate::jsonrpc::RequestId,
    mut record: Box<crate::tasks::record::TaskRecord>,
    cors: &server::Cors,
    origin: &str,
) -> HttpResponse {
    record.task_id = match new_task_id() {
        Ok(id) => id,
        Err(e) => return server.object_unreachable(&request_id, &e.to_string(), cors),
    };
    match store_new_task(server, env, principal, record).await {
        Err(refused) => server.refuse(Some(&request_id), &refused, cors, origin),
        Ok(Ok((status, body))) => server.object_response(&request_id, status, &body, cors),
        Ok(Err(why)) => server.object_unreachable(&request_id, &why, cors),
    }
}

/// Enters a new task (its id drawn) in its principal's ledger and has the task's object
/// store it, for both eras: `Err` when a quota refuses it, else the object's reply
/// (status, body) or why the object could not be reached. A task that was not stored
/// gives its quota place back.
pub(crate) async fn store_new_task(
    server: &Server,
    env: &Env,
    principal: &str,
    record: Box<crate::tasks::record::TaskRecord>,
) -> Result<Result<(u16, Vec<u8>), String>, McpError> {
    let task_id = record.task_id.clone();
    let until_ms = record.expires_at_ms();
    let create = ObjectRequest::Create { record };
    if !server.config.quotas.counts_tasks() {
        // Nothing to refuse: the ledger only indexes the task (tasks/list), so both
        // objects are asked at once and creation waits for one round trip, not two.
        let (indexed, reply) = futures_util::future::join(
            acquire_task(server, env, principal, &task_id, until_ms),
            call_object(env, &create, principal),
        )
        .await;
        if let Err(error) = indexed {
            // The task exists and runs; only its listing is missing. Said, not hidden.
            worker::console_warn!("task {task_id} is not in its owner's index: {error:?}");
        }
        return Ok(reply);
    }
    // A quota decides whether the task may exist: the ledger answers first.
    acquire_task(server, env, principal, &task_id, until_ms).await?;
    let reply = call_object(env, &create, principal).await;
    if !matches!(reply, Ok((status, _)) if status == RESULT_STATUS) {
        release_task(server, env, principal, task_id).await;
    }
    Ok(reply)
}

/// Counts a new task against the principal's quotas (`QUOTA_TASKS_PER_MINUTE`,
/// `QUOTA_LIVE_TASKS`) and indexes it; the error says which limit is full.
async fn acquire_task(
    server: &Server,
    env: &Env,
    principal: &str,
    task_id: &str,
    until_ms: Option<u64>,
) -> Result<(), McpError> {
    let acquire = LedgerRequest::AcquireTask {
        task_id: task_id.to_owned(),
        until_ms,
        quotas: server.config.quotas,
    };
    match principal_object::ledger(env, principal, &acquire).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(exceeded)) => Err(exceeded.to_error()),
        Err(why) => Err(McpError::Internal(format!(
            "quota ledger unavailable: {why}"
        ))),
    }
}

/// Gives back the place of a task that was not created (best effort: the ledger entry
/// expires with the task's TTL anyway).
async fn release_task(server: &Server, env: &Env, principal: &str, task_id: String) {
    if server.config.quotas.counts_tasks() {
        let release = LedgerRequest::ReleaseTask { task_id };
        // Best effort by design: the entry's deadline is the fallback.
        let _ = principal_object::ledger(env, principal, &release).await;
    }
}

/// Tells a task's owner's ledger that the task ended (best effort: the entry's deadline,
/// the task's expiry, is the fallback).
pub(crate) async fn task_ended(env: &Env, owner: &str, task_id: &str) {
    let release = LedgerRequest::ReleaseTask {
        task_id: task_id.to_owned(),
    };
    if let Err(why) = principal_object::ledger(env, owner, &release).await {
        worker::console_warn!("could not release task {task_id} from its quota: {why}");
    }
}
