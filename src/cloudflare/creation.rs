//! Running tools and creating tasks, in both eras, under the principal's quotas: its
//! ledger counts every run (`QUOTA_TASKS_PER_MINUTE`), counts and indexes every task
//! (`crate::quota`), and the task's object stores it; a task that ends gives its place
//! back.

use super::principal_object;
use super::rpc::call_object_traced;
use super::{log, new_task_id};
use crate::auth::anonymous::{lists_tasks, task_principal};
use crate::error::McpError;
use crate::http::HttpResponse;
use crate::ops::log::{LogSettings, warning};
use crate::quota::LedgerRequest;
use crate::server::{self, Server};
use crate::tasks::protocol::{ObjectRequest, RESULT_STATUS};
use crate::tasks::record::TaskRecord;
use worker::Env;

/// Draws the task id, takes a place in the principal's task quota (429 naming the limit
/// when full), has the task's object store the record, and answers with its reply.
/// `counted`: the run was already counted ([`acquire_run`]); `trace`: the Worker's
/// request id, for the logs.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn create_task(
    server: &Server,
    env: &Env,
    principal: &str,
    request_id: crate::jsonrpc::RequestId,
    mut record: Box<TaskRecord>,
    counted: bool,
    cors: &server::Cors,
    origin: &str,
    trace: Option<&str>,
) -> HttpResponse {
    match new_task_id() {
        Ok(id) => record.assign_id(id),
        Err(e) => return server.object_unreachable(&request_id, &e.to_string(), cors),
    };
    match store_new_task(server, env, principal, record, counted, trace).await {
        Err(refused) => server.refuse(Some(&request_id), &refused, cors, origin),
        Ok(Ok((status, body))) => server.object_response(&request_id, status, &body, cors),
        Ok(Err(why)) => server.object_unreachable(&request_id, &why, cors),
    }
}

/// Counts one tool run against `QUOTA_TASKS_PER_MINUTE` before it starts (inline or
/// not): `Err` names the limit when it is reached. `trace`: the Worker's request id, for
/// the `quota.refused` line.
pub(crate) async fn acquire_run(
    server: &Server,
    env: &Env,
    principal: &str,
    trace: Option<&str>,
) -> Result<(), McpError> {
    let quotas = server.config.quotas;
    if quotas.tasks_per_minute.is_none() {
        return Ok(());
    }
    ledger(
        server,
        env,
        principal,
        &LedgerRequest::AcquireRun { quotas },
        trace,
    )
    .await
}

/// Enters a new task (its id drawn) in its principal's ledger and has the task's object
/// store it, for both eras: `Err` when a quota refuses it, else the object's reply
/// (status, body) or why the object could not be reached. A task that was not stored
/// gives its quota place back. An anonymous caller's task is its own principal
/// (`auth::anonymous`). `trace`: the Worker's request id, for the object's log lines.
pub(crate) async fn store_new_task(
    server: &Server,
    env: &Env,
    principal: &str,
    mut record: Box<TaskRecord>,
    counted: bool,
    trace: Option<&str>,
) -> Result<Result<(u16, Vec<u8>), String>, McpError> {
    let task_id = record.task_id().to_owned();
    record.assign_owner(task_principal(principal, &task_id).into_owned());
    let owner = record.owner().to_owned();
    let acquire = LedgerRequest::AcquireTask {
        task_id: task_id.clone(),
        until_ms: record.expires_at_ms(),
        quotas: server.config.quotas,
        counted,
        index: lists_tasks(principal),
    };
    let create = ObjectRequest::Create { record };
    let quotas = server.config.quotas;
    let decides = quotas.live_tasks.is_some() || (!counted && quotas.tasks_per_minute.is_some());
    if !decides && !lists_tasks(principal) {
        return Ok(call_object_traced(env, &create, &owner, trace).await);
    }
    if !decides {
        // Nothing to refuse: the ledger only indexes the task (tasks/list), so both
        // objects are asked at once and creation waits for one round trip, not two.
        let (indexed, reply) = futures_util::future::join(
            ledger(server, env, &owner, &acquire, trace),
            call_object_traced(env, &create, &owner, trace),
        )
        .await;
        if let Err(error) = indexed {
            // The task exists and runs; only its listing is missing. Said, not hidden.
            let why = error.to_wire().message;
            let line = warning(&format!("the task is not in its owner's index: {why}"))
                .principal(&owner)
                .field("taskId", task_id.as_str());
            log::print(&line, &server.config.log);
        }
        return Ok(reply);
    }
    // A quota decides whether the task may exist: the ledger answers first.
    ledger(server, env, &owner, &acquire, trace).await?;
    let reply = call_object_traced(env, &create, &owner, trace).await;
    if !matches!(reply, Ok((status, _)) if status == RESULT_STATUS) {
        release_task(server, env, &owner, task_id).await;
    }
    Ok(reply)
}

/// One request to the ledger counting `principal`'s work; a refusal names the limit
/// that is full and is logged (`quota.refused`, with the request's id `trace`).
async fn ledger(
    server: &Server,
    env: &Env,
    principal: &str,
    request: &LedgerRequest,
    trace: Option<&str>,
) -> Result<(), McpError> {
    let outcome = principal_object::ledger(env, principal, request).await;
    if let Err(error) = &outcome {
        log::print_all(
            crate::ops::log::refused(error, Some(principal), trace),
            &server.config.log,
        );
    }
    outcome
}

/// Gives back the place of a task that was not created (best effort: the ledger entry
/// expires with the task's TTL anyway).
async fn release_task(server: &Server, env: &Env, owner: &str, task_id: String) {
    if server.config.quotas.counts_tasks() {
        let release = LedgerRequest::ReleaseTask {
            task_id: task_id.clone(),
        };
        // Best effort by design: the entry's deadline is the fallback.
        if let Err(why) = principal_object::ledger(env, owner, &release).await {
            let line = warning(&format!("could not give back a task's quota place: {why}"))
                .principal(owner)
                .field("taskId", task_id);
            log::print(&line, &server.config.log);
        }
    }
}

/// Tells a task's owner's ledger that the task ended (best effort: the entry's deadline,
/// the task's expiry, is the fallback).
pub(crate) async fn task_ended(env: &Env, owner: &str, task_id: &str, settings: &LogSettings) {
    let release = LedgerRequest::ReleaseTask {
        task_id: task_id.to_owned(),
    };
    if let Err(why) = principal_object::ledger(env, owner, &release).await {
        let line = warning(&format!("could not release the task from its quota: {why}"))
            .principal(owner)
            .field("taskId", task_id);
        log::print(&line, settings);
    }
}
