//! Jobs for clients without the Tasks extension (`server::jobs`): the I/O only. The task
//! is created as any task is (`server::creation`); the call then follows it as every
//! follower does (`server::follower`, run by `watcher`): on the task's own push, the watch
//! WebSocket of `subscriptions/listen`, so a wait costs one object request however long
//! it lasts (docs/benchmarks.md, "Jobs"); a lost socket is reopened as listen's are. What
//! each state means, and where its questions go, is decided by `server::wait`.

use super::creation::Objects;
use super::leave::Leave;
use super::log;
use super::watcher::Watcher;
use super::{new_task_id, now_ms};
use crate::http::HttpResponse;
use crate::ops::log as logs;
use crate::server::creation::store_new_task;
use crate::server::follower::Follower;
use crate::server::jobs::{self, JobRun};
use crate::server::perform::Via;
use crate::server::wait::{self, Followed};
use crate::server::{Context, error_response};
use crate::tasks::calls;
use crate::tasks::protocol::{ObjectError, ObjectRequest};
use crate::tasks::record::TaskRecord;
use futures_util::future::{Either, select};
use serde_json::Value;
use std::pin::pin;
use worker::Env;

/// [`crate::server::Action::Detach`]: creates the job's task under the caller's quotas
/// (the run was counted already), then follows it. A caller that `leave`s before the
/// handle is answered cancels the job: nobody else holds it (`leave`). `via`: how its
/// questions and progress travel in this request (the core's rule, `perform::Via`).
pub(crate) async fn detach(
    objects: &Objects<'_>,
    ctx: &Context,
    mut record: Box<TaskRecord>,
    mut run: JobRun,
    via: &Via<'_>,
    leave: &Leave,
) -> HttpResponse {
    let Objects { server, env, trace } = *objects;
    match new_task_id() {
        Ok(id) => record.assign_id(id),
        Err(e) => return server.object_unreachable(&run.request_id, &e.to_string(), &run.envelope),
    }
    run.job = record.task_id().to_owned();
    let quotas = server.config.quotas;
    let stored = store_new_task(objects, quotas, &ctx.principal, record, true).await;
    match stored {
        Err(refused) => error_response(Some(&run.request_id), &refused, &run.envelope),
        Ok(Ok((status, body))) if status != crate::tasks::protocol::RESULT_STATUS => {
            server.object_response(&run.request_id, status, &body, &run.envelope)
        }
        Ok(Ok(_)) => {
            let (job, request_id, envelope) = (
                run.job.clone(),
                run.request_id.clone(),
                run.envelope.clone(),
            );
            match select(pin!(follow(objects, ctx, run, via)), pin!(leave.left())).await {
                Either::Left((answer, _)) => answer,
                Either::Right(_) => {
                    let cancel = jobs::abandoned(&job);
                    let (env, principal) = (env.clone(), ctx.principal.clone());
                    let trace = trace.map(str::to_owned);
                    let settings = server.config.log;
                    leave
                        .keep(async move {
                            let left = abandon(&env, &cancel, &principal, trace.as_deref());
                            if let Err(why) = left.await {
                                let line = logs::warning(&format!(
                                    "cancelling a job its caller left: {why}"
                                ))
                                .principal(&principal);
                                log::print(&line.request_id(trace.as_deref()), &settings);
                            }
                        })
                        .await;
                    error_response(Some(&request_id), &jobs::left_error(&job), &envelope)
                }
            }
        }
        Ok(Err(why)) => server.object_unreachable(&run.request_id, &why, &run.envelope),
    }
}

/// Cancels a job its caller left: why not, if it was refused (it had ended meanwhile)
/// or the object was unreachable, for the log, as nobody is left to be told.
async fn abandon(
    env: &Env,
    cancel: &ObjectRequest,
    principal: &str,
    trace: Option<&str>,
) -> Result<(), String> {
    let cancelled = calls::task(env, cancel, principal, trace).await;
    cancelled.map(drop).map_err(|why| why.to_string())
}

/// [`crate::server::Action::Job`]: follows the job (`server::wait`) on its watch
/// socket (`watcher`) until the job's follower answers or the wait is over.
pub(crate) async fn follow(
    objects: &Objects<'_>,
    ctx: &Context,
    run: JobRun,
    via: &Via<'_>,
) -> HttpResponse {
    let Objects { server, env, trace } = *objects;
    let follower = Follower::of_server(&server.config, now_ms(), Some(run.wait_ms));
    let mut watcher = Watcher::new(env, &run.job, &ctx.principal, trace, follower);
    wait::follow(server, objects, &mut watcher, ctx, &run, via).await
}

impl Followed for Watcher {
    async fn next(&mut self) -> Option<Result<Value, ObjectError>> {
        Watcher::next(self).await
    }

    fn now_ms(&self) -> u64 {
        now_ms()
    }
}
