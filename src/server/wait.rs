//! A job's wait, once for every platform: the request the call carries for the job's
//! task first (`run.first`: the answers of an MRTR retry, say), then each state of the
//! task as the platform's follower gives it (`server::follower`), which [`Follow`] makes
//! progress, questions or the answer. Questions travel as [`Via`] says: by MRTR (the
//! answer ends this request), or on a 2025-11-25 session's stream, whose answers go to
//! the task (`mcp::input::answered`: every question answered, each answer valid). A wait
//! that ends unanswered answers the job's handle.

use super::jobs::{Follow, JobRun, Next, input_required};
use crate::http::HttpResponse;
use crate::mcp::input;
use crate::server::creation::Creating;
use crate::server::perform::Via;
use crate::server::{Context, Server, error_response, result_response};
use crate::tasks::protocol::{ObjectError, ObjectReply, ObjectRequest};
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

/// Follows the job `run.job` for `ctx`'s caller until its follower answers or the wait
/// is over.
pub async fn follow<C: Creating>(
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
