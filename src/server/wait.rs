//! A job's wait, once for every platform: the request the call carries for the job's
//! task first (`run.first`: the answers of an MRTR retry, say), then each state of the
//! task as the platform's follower gives it (`server::follower`), which [`Follow`] makes
//! progress, questions or the answer. Questions travel as [`Via`] says: by MRTR (the
//! answer ends this request), or on a 2025-11-25 session's stream, whose answers go to
//! the task (`mcp::input::answered`: every question answered, each answer valid). A wait
//! that ends unanswered answers the job's handle. A new job ([`detach`]) is stored first,
//! and its caller leaving before the handle cancels it.

use super::follower::{Follower, Step};
use super::jobs::{Follow, JobRun, Next, abandoned, input_required, left_error};
use crate::concurrent::until;
use crate::http::HttpResponse;
use crate::mcp::input;
use crate::ops::log::{Line, warning};
use crate::server::creation::{Creating, store_new_task};
use crate::server::perform::Via;
use crate::server::{Context, Server, error_response, result_response};
use crate::tasks::protocol::{ObjectError, ObjectReply, ObjectRequest, RESULT_STATUS};
use crate::tasks::record::TaskRecord;
use serde_json::{Map, Value};

/// What a job's wait needs of the platform.
// Single threaded, as `server::perform::Effects`.
#[allow(async_fn_in_trait)]
pub trait Followed {
    /// The job's next state as the platform's follower gives it; `None` once the wait
    /// is over.
    async fn next(&mut self) -> Option<Result<Value, ObjectError>>;
    /// The platform's clock (a question asked by MRTR is signed now).
    fn now_ms(&self) -> u64;
}

/// What a job needs of the platform beyond its objects: a watch of its task, a caller who
/// may leave, and the cancellation of a job its caller left.
// Single threaded, as `server::perform::Effects`.
#[allow(async_fn_in_trait)]
pub trait Jobs {
    type Watch: Followed;
    /// The platform's follow of `job` as `principal`, by `follower`'s steps.
    fn watch(&self, job: &str, principal: &str, follower: (Follower, Step)) -> Self::Watch;
    fn now_ms(&self) -> u64;
    /// A new task's id, or why there is none (`perform::Effects::new_task_id`).
    fn new_task_id(&self) -> Result<String, String>;
    /// Resolves when the caller leaves; never for one that cannot.
    async fn left(&self);
    /// Sends `cancel` as `principal` to the task of a job its caller left, carried to its
    /// end although the caller has gone; a failure is printed ([`abandon_failed`]).
    async fn abandon(&self, principal: &str, cancel: ObjectRequest);
}

/// [`crate::server::Action::Detach`]: creates the job's task under the caller's quotas
/// (the run was counted already), then follows it. A caller that leaves before the handle
/// is answered cancels the job: nobody else holds it (basic/patterns/cancellation, a
/// disconnect is the request's cancellation), and is answered `left_error`.
pub async fn detach<C: Creating>(
    server: &Server,
    objects: &C,
    platform: &impl Jobs,
    ctx: &Context,
    mut record: Box<TaskRecord>,
    mut run: JobRun,
    via: &Via<'_>,
) -> HttpResponse {
    match platform.new_task_id() {
        Ok(id) => record.assign_id(id),
        Err(why) => return server.object_unreachable(&run.request_id, &why, &run.envelope),
    }
    run.job = record.task_id().to_owned();
    let quotas = server.config.quotas;
    match store_new_task(objects, quotas, &ctx.principal, record, true).await {
        Err(refused) => error_response(Some(&run.request_id), &refused, &run.envelope),
        Ok(Ok((status, body))) if status != RESULT_STATUS => {
            server.object_response(&run.request_id, status, &body, &run.envelope)
        }
        Ok(Err(why)) => server.object_unreachable(&run.request_id, &why, &run.envelope),
        Ok(Ok(_)) => {
            let followed = follow(server, objects, platform, ctx, &run, via);
            match until(followed, platform.left()).await {
                Some(answer) => answer,
                None => {
                    let cancel = abandoned(&run.job);
                    platform.abandon(&ctx.principal, cancel).await;
                    let left = left_error(&run.job);
                    error_response(Some(&run.request_id), &left, &run.envelope)
                }
            }
        }
    }
}

/// [`crate::server::Action::Job`]: follows the job `run.job` for `ctx`'s caller on the
/// platform's watch until its follower answers or the wait is over.
pub async fn follow<C: Creating>(
    server: &Server,
    objects: &C,
    platform: &impl Jobs,
    ctx: &Context,
    run: &JobRun,
    via: &Via<'_>,
) -> HttpResponse {
    let follower = Follower::of_server(&server.config, platform.now_ms(), Some(run.wait_ms));
    let mut watch = platform.watch(&run.job, &ctx.principal, follower);
    follow_on(server, objects, &mut watch, ctx, run, via).await
}

/// The log line of a job its caller left that could not be cancelled (it had ended
/// meanwhile, or its object was unreachable): nobody is left to be told.
pub fn abandon_failed(why: &str, principal: &str) -> Line {
    warning(&format!("cancelling a job its caller left: {why}")).principal(principal)
}

/// Follows the job `run.job` on `followed` for `ctx`'s caller until its follower answers
/// or the wait is over.
pub async fn follow_on<C: Creating>(
    server: &Server,
    objects: &C,
    followed: &mut impl Followed,
    ctx: &Context,
    run: &JobRun,
    via: &Via<'_>,
) -> HttpResponse {
    let mut job = Job {
        server,
        objects,
        ctx,
        run,
        via,
        follow: Follow::new(run, via.asks),
    };
    if let Some(first) = &run.first
        && let Err(refusal) = job.send(first).await
    {
        return job.refusal(refusal);
    }
    while let Some(state) = followed.next().await {
        let task = match state {
            Ok(task) => task,
            Err(refusal) => return job.refusal(refusal),
        };
        for next in job.follow.state(task) {
            match next {
                Next::Wait => {}
                Next::Progress(report) => via.progress.report(report),
                Next::Answer(response) => return response,
                Next::Ask(requests) => {
                    if let Some(answer) = job.ask(requests, followed.now_ms()).await {
                        return answer;
                    }
                }
            }
        }
    }
    job.follow.waited()
}

/// One wait in progress.
struct Job<'a, C> {
    server: &'a Server,
    objects: &'a C,
    ctx: &'a Context,
    run: &'a JobRun,
    via: &'a Via<'a>,
    follow: Follow<'a>,
}

impl<C: Creating> Job<'_, C> {
    /// `request` to the job's task, as its caller.
    async fn send(&self, request: &ObjectRequest) -> Result<Value, ObjectError> {
        ObjectReply::outcome(self.objects.forward(&self.ctx.principal, request).await)
    }

    /// Puts the job's questions to the client: by MRTR (the answer ends this request),
    /// or on a session's stream, whose answers go to the job (`None`: follow on).
    async fn ask(&self, requests: Map<String, Value>, now_ms: u64) -> Option<HttpResponse> {
        let run = self.run;
        let Some(asker) = self.via.asker else {
            let now = Context {
                principal: self.ctx.principal.clone(),
                now_ms,
            };
            return Some(match input_required(self.server, run, &requests, &now) {
                Ok(result) => result_response(&run.request_id, &result, &run.envelope),
                Err(e) => error_response(Some(&run.request_id), &e, &run.envelope),
            });
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
        self.send(&update)
            .await
            .err()
            .map(|refusal| self.refusal(refusal))
    }

    fn refusal(&self, refusal: ObjectError) -> HttpResponse {
        match refusal {
            ObjectError::Refused(error) => self.follow.refused(&error),
            ObjectError::Unreachable(why) => self.follow.unreachable(&why),
        }
    }
}
