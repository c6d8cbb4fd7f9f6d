//! Jobs for clients without the Tasks extension (`server::jobs`): the I/O only. The task
//! is created as any task is (`creation`); the call then follows it as every follower
//! does (`server::follower`, run by `watcher`): on the task's own push, the watch
//! WebSocket of `subscriptions/listen`, so a wait costs one object request however long
//! it lasts (docs/benchmarks.md, "Jobs"); a lost socket is reopened as listen's are. What
//! each state means is decided by the pure `jobs::Follow`.

use super::creation::Objects;
use super::leave::Leave;
use super::log;
use super::rpc::object;
use super::watcher::Watcher;
use super::{new_task_id, now_ms};
use crate::http::HttpResponse;
use crate::mcp::input;
use crate::ops::log as logs;
use crate::server::creation::store_new_task;
use crate::server::follower::Follower;
use crate::server::jobs::{self, Follow, JobRun, Next};
use crate::server::perform::Via;
use crate::server::{Context, Server, error_response, result_response};
use crate::tasks::protocol::{ObjectError, ObjectRequest};
use crate::tasks::record::TaskRecord;
use futures_util::future::{Either, select};
use serde_json::{Map, Value};
use std::pin::pin;
use worker::Env;

/// How a job's questions and progress travel in this request (the core's rule,
/// `perform::Via`), and the Worker's request id for the objects' log lines.
pub(crate) struct Channel<'a> {
    pub(crate) via: &'a Via<'a>,
    pub(crate) trace: Option<&'a str>,
}

/// [`crate::server::Action::Detach`]: creates the job's task under the caller's quotas
/// (the run was counted already), then follows it. A caller that `leave`s before the
/// handle is answered cancels the job: nobody else holds it (`leave`).
pub(crate) async fn detach(
    server: &Server,
    env: &Env,
    ctx: &Context,
    mut record: Box<TaskRecord>,
    mut run: JobRun,
    channel: &Channel<'_>,
    leave: &Leave,
) -> HttpResponse {
    match new_task_id() {
        Ok(id) => record.assign_id(id),
        Err(e) => return server.object_unreachable(&run.request_id, &e.to_string(), &run.cors),
    }
    run.job = record.task_id().to_owned();
    let objects = Objects {
        server,
        env,
        trace: channel.trace,
    };
    let quotas = server.config.quotas;
    let stored = store_new_task(&objects, quotas, &ctx.principal, record, true).await;
    match stored {
        Err(refused) => error_response(Some(&run.request_id), &refused, &run.cors),
        Ok(Ok((status, body))) if status != crate::tasks::protocol::RESULT_STATUS => {
            server.object_response(&run.request_id, status, &body, &run.cors)
        }
        Ok(Ok(_)) => {
            let (job, request_id, cors) =
                (run.job.clone(), run.request_id.clone(), run.cors.clone());
            match select(
                pin!(follow(server, env, ctx, run, channel)),
                pin!(leave.left()),
            )
            .await
            {
                Either::Left((answer, _)) => answer,
                Either::Right(_) => {
                    let cancel = jobs::abandoned(&job);
                    let (env, principal) = (env.clone(), ctx.principal.clone());
                    let trace = channel.trace.map(str::to_owned);
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
                    error_response(Some(&request_id), &jobs::left_error(&job), &cors)
                }
            }
        }
        Ok(Err(why)) => server.object_unreachable(&run.request_id, &why, &run.cors),
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
    let cancelled = object(env, cancel, principal, trace).await;
    cancelled.map(drop).map_err(|why| why.to_string())
}

/// [`crate::server::Action::Job`]: sends `run.first`, then follows the job
/// (`server::follower`, on its watch socket) until the job's follower answers or the wait
/// is over.
pub(crate) async fn follow(
    server: &Server,
    env: &Env,
    ctx: &Context,
    run: JobRun,
    channel: &Channel<'_>,
) -> HttpResponse {
    let mut job = Job {
        server,
        env,
        ctx,
        run: &run,
        channel,
        follow: Follow::new(&run, channel.via.asks),
    };
    if let Some(first) = &run.first
        && let Err(refusal) = object(env, first, &ctx.principal, channel.trace).await
    {
        return job.refusal(refusal);
    }
    let config = &server.config;
    let follower = Follower::start(
        now_ms(),
        Some(run.wait_ms),
        config.server_poll_ms(),
        config.listen_reconnects,
    );
    let mut watcher = Watcher::new(env, &run.job, &ctx.principal, channel.trace, follower);
    while let Some(state) = watcher.next().await {
        if let Some(answer) = job.next(state).await {
            return answer;
        }
    }
    job.follow.waited()
}

/// One follow in progress.
struct Job<'a> {
    server: &'a Server,
    env: &'a Env,
    ctx: &'a Context,
    run: &'a JobRun,
    channel: &'a Channel<'a>,
    follow: Follow<'a>,
}

impl Job<'_> {
    /// Carries out what the follower makes of a state: `Some` answers the request.
    async fn next(&mut self, state: Result<Value, ObjectError>) -> Option<HttpResponse> {
        let task = match state {
            Ok(task) => task,
            Err(refusal) => return Some(self.refusal(refusal)),
        };
        for next in self.follow.state(task) {
            match next {
                Next::Wait => {}
                Next::Progress(report) => self.channel.via.progress.report(report),
                Next::Answer(response) => return Some(response),
                Next::Ask(requests) => {
                    if let Some(answer) = self.ask(requests).await {
                        return Some(answer);
                    }
                }
            }
        }
        None
    }

    /// Puts the job's questions to the client: by MRTR (the answer ends this request),
    /// or on a session's stream, whose answers go to the job (`None`: follow on).
    async fn ask(&self, requests: Map<String, Value>) -> Option<HttpResponse> {
        let run = self.run;
        let Some(asker) = self.channel.via.asker else {
            let now = Context {
                principal: self.ctx.principal.clone(),
                now_ms: now_ms(),
            };
            return Some(
                match jobs::input_required(self.server, run, &requests, &now) {
                    Ok(result) => result_response(&run.request_id, &result, &run.cors),
                    Err(e) => error_response(Some(&run.request_id), &e, &run.cors),
                },
            );
        };
        let answers = match asker.ask(requests.clone()).await {
            Ok(answers) => answers,
            // Not answered here (the client refused or went quiet): the handle tools remain.
            Err(_) => return Some(self.follow.waited()),
        };
        let taken = match input::answered(&requests, answers) {
            Ok(taken) => taken,
            Err(e) => return Some(self.follow.refused(&e.to_wire())),
        };
        let update = ObjectRequest::Update {
            task_id: run.job.clone(),
            input_responses: taken,
        };
        let updated = object(self.env, &update, &self.ctx.principal, self.channel.trace).await;
        updated.err().map(|refusal| self.refusal(refusal))
    }

    fn refusal(&self, refusal: ObjectError) -> HttpResponse {
        match refusal {
            ObjectError::Refused(error) => self.follow.refused(&error),
            ObjectError::Unreachable(why) => self.follow.unreachable(&why),
        }
    }
}
