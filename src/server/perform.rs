//! The one interpreter of [`Action`], for both eras: the stateless endpoint, a call's
//! progress stream and a 2025-11-25 session all perform what the core asked for here, and
//! the platform only does each effect ([`Effects`]). What is decided here and nowhere
//! else: which run is counted against the quota and when (before any answer is streamed,
//! so a refusal keeps its 429 and `Retry-After`), which answers go on a stream, how a
//! job's questions travel in each era, and the era's shape of every answer
//! ([`Era::answer`]).

use super::call::Asker;
use super::creation::{Creating, acquire_run, store_new_task};
use super::era::Era;
use super::jobs::JobRun;
use super::listen::Listen;
use super::my_tasks::Index;
use super::{Action, Context, Envelope, Server, my_tasks, operator, result_response};
use crate::host::Host;
use crate::http::HttpResponse;
use crate::jsonrpc::RequestId;
use crate::tasks::record::TaskRecord;
use crate::tools::Progress;
use serde_json::Value;

/// What performing an action needs of the platform: each effect, no decision.
// Futures here are never sent between threads (wasm is single threaded), so the `Send`
// bound `async fn` in a public trait cannot state is not needed.
#[allow(async_fn_in_trait)]
pub trait Effects {
    /// The ledgers and task objects (one type for every caller of `server::creation`,
    /// so its code is in the Worker once).
    type Objects: Creating + Index;
    fn objects(&self) -> &Self::Objects;
    /// The host a run's steps and a resource read use.
    fn host(&self) -> Host;
    /// A new task's id: 128 bits from the platform's CSPRNG, or why there are none.
    fn new_task_id(&self) -> Result<String, String>;
    /// Creates a job's task (`record`, the run already counted) and follows it; a caller
    /// that leaves before the answer cancels it.
    async fn detach(
        &self,
        ctx: &Context,
        record: Box<TaskRecord>,
        run: JobRun,
        via: &Via<'_>,
    ) -> HttpResponse;
    /// Follows a job until its follower answers or the wait is over.
    async fn follow(&self, ctx: &Context, run: JobRun, via: &Via<'_>) -> HttpResponse;
}

/// Where an action is performed.
pub struct Stage<'a> {
    pub era: Era,
    /// The client takes a stream as the answer (its `Accept`).
    pub streams: bool,
    /// The answer is a stream already: progress and questions go on it.
    pub streaming: bool,
    /// Where a run's progress reports go.
    pub progress: &'a Progress,
    /// How a 2025-11-25 session's run asks its client; `None` at the 2026-07-28
    /// endpoint, which asks by MRTR.
    pub asker: Option<&'a dyn Asker>,
    /// The endpoint's origin, for the challenge of a refusal.
    pub origin: &'a str,
}

impl<'a> Stage<'a> {
    /// The 2026-07-28 endpoint's stage: questions by MRTR, a refusal challenged at `origin`.
    pub fn modern(
        streams: bool,
        streaming: bool,
        progress: &'a Progress,
        origin: &'a str,
    ) -> Stage<'a> {
        Stage {
            era: Era::Modern,
            streams,
            streaming,
            progress,
            asker: None,
            origin,
        }
    }
}

/// Where a job's questions can go during this request, and where its progress goes.
pub struct Via<'a> {
    pub progress: &'a Progress,
    /// A 2025-11-25 session's response stream (`elicitation/create`); `None` for the
    /// 2026-07-28 endpoint, which asks by MRTR, or a session client that takes no stream.
    pub asker: Option<&'a dyn Asker>,
    /// Whether a question can be asked at all: MRTR with a signing key, or an asker.
    pub asks: bool,
}

/// An action performed as far as this stage can.
pub enum Performed {
    /// The answer, shaped for the era.
    Answer(HttpResponse),
    /// Answer on a stream: open it, then [`perform_streamed`] the action on it.
    Stream(Streamed),
    /// Open a `subscriptions/listen` stream.
    Listen(Box<Listen>),
}

impl Performed {
    /// For a door that opens no listen stream (a 2025-11-25 session, to which the
    /// interpreter never hands one): the stream to open, or the answer.
    pub fn streamed_or_answer(self, era: Era) -> Result<Streamed, HttpResponse> {
        match self {
            Performed::Stream(streamed) => Ok(streamed),
            Performed::Answer(response) => Err(response),
            Performed::Listen(listen) => Err(unexpected(&Action::Listen(listen), era)),
        }
    }
}

/// An action whose answer goes on a stream, with the progress token and CORS it opens with.
pub struct Streamed {
    pub action: Action,
    pub token: Option<Value>,
    pub envelope: Envelope,
}

/// Performs `action` until there is an answer, a stream to open, or a listen stream.
pub async fn perform<E: Effects>(
    server: &Server,
    ctx: &Context,
    mut action: Action,
    fx: &E,
    stage: &Stage<'_>,
) -> Performed {
    if !stage.streaming
        && let Err(refusal) = admit(server, ctx, &action, fx, stage).await
    {
        return Performed::Answer(stage.era.answer(refusal));
    }
    loop {
        if let Some((token, envelope)) = stage.streamed(&action) {
            return Performed::Stream(Streamed {
                action,
                token,
                envelope,
            });
        }
        action = match action {
            Action::Respond(response) => return Performed::Answer(stage.era.answer(response)),
            Action::Listen(listen) if stage.era == Era::Modern && !stage.streaming => {
                return Performed::Listen(listen);
            }
            Action::Listen(listen) => {
                return Performed::Answer(unexpected(&Action::Listen(listen), stage.era));
            }
            Action::Run(run) => {
                let (host, print) = (fx.host(), |line| fx.objects().print(line));
                let (progress, asker) = (stage.progress, stage.asker);
                server.run(*run, ctx, &host, progress, asker, &print).await
            }
            Action::Read(read) => Action::Respond(server.read(*read, &fx.host()).await),
            Action::ListTasks {
                request_id,
                params,
                envelope,
            } => Action::Respond(
                match my_tasks::page(fx.objects(), &ctx.principal, params.cursor.as_deref()).await {
                    Ok((tasks, next)) => {
                        let page = my_tasks::page_result(tasks, next, &params.filter);
                        result_response(&request_id, &page, &envelope)
                    }
                    Err(e) => server.refuse(Some(&request_id), &e, &envelope, stage.origin),
                },
            ),
            Action::CreateTask {
                request_id,
                record,
                envelope,
            } => Action::Respond(
                create_task(server, ctx, fx, request_id, record, &envelope, stage.origin).await,
            ),
            Action::Forward {
                request_id,
                request,
                envelope,
            } => Action::Respond(match fx.objects().forward(&ctx.principal, &request).await {
                Ok((status, body)) => server.object_response(&request_id, status, &body, &envelope),
                Err(why) => server.object_unreachable(&request_id, &why, &envelope),
            }),
            Action::Admin {
                request_id,
                request,
                envelope,
            } => Action::Respond(
                operator::perform(
                    server,
                    fx.objects(),
                    &ctx.principal,
                    &request_id,
                    *request,
                    &envelope,
                )
                .await,
            ),
            Action::Detach { record, run } => {
                Action::Respond(fx.detach(ctx, record, *run, &stage.via(server)).await)
            }
            Action::Job(run) => Action::Respond(fx.follow(ctx, *run, &stage.via(server)).await),
        };
    }
}

/// The task a job's handle follows, when `action` is one: a 2025-11-25 session follows
/// it as the principal it reaches that task as (`legacy::reach`), not as itself.
pub fn followed_job(action: &Action) -> Option<&str> {
    match action {
        Action::Job(run) => Some(&run.job),
        Action::Respond(_)
        | Action::CreateTask { .. }
        | Action::Forward { .. }
        | Action::Run(_)
        | Action::Detach { .. }
        | Action::Read(_)
        | Action::ListTasks { .. }
        | Action::Listen(_)
        | Action::Admin { .. } => None,
    }
}

/// Whether `action` runs a call its client may leave (`notifications/cancelled`, a
/// disconnect): a run, which may become a job that the leaving cancels.
pub fn leavable(action: &Action) -> bool {
    match action {
        Action::Run(_) | Action::Detach { .. } => true,
        Action::Respond(_)
        | Action::CreateTask { .. }
        | Action::Forward { .. }
        | Action::Job(_)
        | Action::Read(_)
        | Action::ListTasks { .. }
        | Action::Listen(_)
        | Action::Admin { .. } => false,
    }
}

/// [`perform`] on a stream that is open: the answer that ends it.
pub async fn perform_streamed<E: Effects>(
    server: &Server,
    ctx: &Context,
    action: Action,
    fx: &E,
    stage: &Stage<'_>,
) -> HttpResponse {
    match Box::pin(perform(server, ctx, action, fx, stage)).await {
        Performed::Answer(response) => response,
        // A stage that is streaming answers every action (`Stage::streamed`, `Listen`).
        Performed::Stream(Streamed { action, .. }) => unexpected(&action, stage.era),
        Performed::Listen(listen) => unexpected(&Action::Listen(listen), stage.era),
    }
}

fn unexpected(action: &Action, era: Era) -> HttpResponse {
    let bug = action.unexpected();
    let body = crate::jsonrpc::error_response(None, &bug.to_wire());
    era.answer(HttpResponse::json(bug.http_status(), body))
}

/// Creates the task `record` (its run already counted) under its principal's quotas
/// (`creation`) with an id drawn now, and answers with its object's reply.
async fn create_task<E: Effects>(
    server: &Server,
    ctx: &Context,
    fx: &E,
    request_id: RequestId,
    mut record: Box<TaskRecord>,
    envelope: &Envelope,
    origin: &str,
) -> HttpResponse {
    match fx.new_task_id() {
        Ok(id) => record.assign_id(id),
        Err(why) => return server.object_unreachable(&request_id, &why, envelope),
    }
    let quotas = server.config.quotas;
    match store_new_task(fx.objects(), quotas, &ctx.principal, record, true).await {
        Err(refused) => server.refuse(Some(&request_id), &refused, envelope, origin),
        Ok(Ok((status, body))) => server.object_response(&request_id, status, &body, envelope),
        Ok(Err(why)) => server.object_unreachable(&request_id, &why, envelope),
    }
}

/// Counts a tool run against the caller's quota before it starts, inline or not (a task
/// it becomes is not counted twice): the refusal when the caller is over.
async fn admit<E: Effects>(
    server: &Server,
    ctx: &Context,
    action: &Action,
    fx: &E,
    stage: &Stage<'_>,
) -> Result<(), HttpResponse> {
    if let Action::Run(run) = action
        && run.target.is_tool()
        && let Err(refused) = acquire_run(fx.objects(), server.config.quotas, &ctx.principal).await
    {
        return Err(server.refuse(Some(&run.request_id), &refused, &run.envelope, stage.origin));
    }
    Ok(())
}

impl Stage<'_> {
    /// The progress token and CORS of an action answered on a stream, when it is one and
    /// the answer is not on a stream yet.
    fn streamed(&self, action: &Action) -> Option<(Option<Value>, Envelope)> {
        if self.streaming {
            return None;
        }
        let (token, envelope, waits) = match action {
            Action::Run(run) => (&run.progress_token, &run.envelope, false),
            Action::Job(run) => (&run.progress_token, &run.envelope, false),
            Action::Detach { run, .. } => (&run.progress_token, &run.envelope, true),
            Action::Respond(_)
            | Action::CreateTask { .. }
            | Action::Forward { .. }
            | Action::Read(_)
            | Action::ListTasks { .. }
            | Action::Listen(_)
            | Action::Admin { .. } => return None,
        };
        let stream = match self.era {
            // A call that asked for progress; a wait the client can leave, streamed so
            // that its leaving is noticed (a heartbeat).
            Era::Modern => token.is_some() || (waits && self.streams),
            // A session's call carries its progress, log messages and questions on its
            // response stream when the client takes one (2025-11-25 transports).
            Era::Legacy => self.streams,
        };
        stream.then(|| (token.clone(), envelope.clone()))
    }

    /// How a job's questions travel here: by MRTR at the 2026-07-28 endpoint (when the
    /// server can sign a `requestState`); as `elicitation/create` on a session's response
    /// stream, so not at all for a session client that takes no stream (the handle tools
    /// answer them).
    fn via(&self, server: &Server) -> Via<'_> {
        match self.era {
            Era::Modern => Via {
                progress: self.progress,
                asker: None,
                asks: server.config.request_state_secret.is_some(),
            },
            Era::Legacy => {
                let asker = self.asker.filter(|_| self.streaming);
                Via {
                    progress: self.progress,
                    asker,
                    asks: asker.is_some(),
                }
            }
        }
    }
}
