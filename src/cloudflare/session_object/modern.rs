//! A session's requests for the modern handlers: dispatched with the session's
//! capabilities, results reshaped for 2025-11-25, tool runs streamed with their progress,
//! logs and server→client requests; a client that takes no stream gets JSON.

use super::asker::SessionAsker;
use super::{SessionRunner, Stream, json_reply};
use crate::cloudflare::creation::acquire_run;
use crate::cloudflare::leave::Tracked;
use crate::cloudflare::sse::Channel;
use crate::cloudflare::{WorkerHost, job, log};
use crate::http::HttpResponse;
use crate::jsonrpc::{self, Request as RpcRequest};
use crate::legacy::{self, Session, reach};
use crate::server::call::progress_notification;
use crate::server::dispatch;
use crate::server::{Action, Context, Cors, Server};
use crate::tools::Progress;
use serde::Serialize;
use serde_json::Value;
use std::rc::Rc;
use worker::{Response, Result};

/// How a request for the modern handlers was asked: when, whether its `Accept` takes a
/// stream, and the Worker's request id (`trace`) for its log lines.
pub(super) struct Asked {
    pub(super) now: u64,
    pub(super) accepts_sse: bool,
    pub(super) trace: Option<String>,
}

impl SessionRunner {
    /// Any other method: the modern handlers, with the session's capabilities, results
    /// reshaped for 2025-11-25. A tool run counts against the session principal's quota.
    pub(super) async fn modern(
        &self,
        server: Rc<Server>,
        rpc: RpcRequest,
        session: Session,
        asked: Asked,
    ) -> Result<Response> {
        let Asked {
            now,
            accepts_sse,
            trace,
        } = asked;
        let ctx = Context {
            principal: session.principal.clone(),
            now_ms: now,
        };
        let action =
            match dispatch::route(&server, &rpc, None, &session.meta(), &ctx, &Cors::default()) {
                Ok(action) => action,
                Err(e) => return json_reply(Some(&rpc.id), Err(e)),
            };
        let host = WorkerHost::host(self.env.clone(), &server);
        match action {
            Action::Respond(response) => legacy_answer(response),
            Action::Read(read) => legacy_answer(server.read(*read, &host).await),
            Action::Run(run) => {
                if run.target.is_tool()
                    && let Err(refused) =
                        acquire_run(&server, &self.env, &ctx.principal, trace.as_deref()).await
                {
                    return json_reply(Some(&rpc.id), Err(refused));
                }
                // Until answered, `notifications/cancelled` for it reaches its job.
                let call = self.leaves.track(&rpc.id);
                if !accepts_sse {
                    let trace = trace.as_deref();
                    return self
                        .run_for_json(&server, *run, &ctx, &host, trace, &call)
                        .await;
                }
                let token = run.progress_token.clone();
                self.streamed(server, session, Action::Run(run), ctx, token, trace, call)
            }
            // A job's handle tool (`server::jobs`). A job is a task, and its handle is
            // reached as the session reaches a task's id (`legacy::reach`): an anonymous
            // session's job from any anonymous session, which then lists it.
            Action::Job(run) => {
                let mut reacher = self.reacher(&server);
                let ctx = match reach::principal(&mut reacher, &session, &run.job).await {
                    Ok((principal, _)) => Context {
                        principal,
                        now_ms: now,
                    },
                    // Unknown to this session: the follower says so, as for any handle.
                    Err(_) => ctx,
                };
                if accepts_sse {
                    let token = run.progress_token.clone();
                    let call = Tracked::untracked();
                    return self.streamed(
                        server,
                        session,
                        Action::Job(run),
                        ctx,
                        token,
                        trace,
                        call,
                    );
                }
                let progress = Progress::default();
                let channel = job::Channel::session(&progress, None, trace.as_deref());
                let response = job::follow(&server, &self.env, &ctx, *run, &channel).await;
                legacy_answer(response)
            }
            // Each named, so that a new kind of action is a compile error here.
            other @ (Action::CreateTask { .. }
            | Action::Forward { .. }
            | Action::Detach { .. }
            | Action::ListTasks { .. }
            | Action::Listen(_)
            | Action::Admin { .. }) => json_reply(Some(&rpc.id), Err(other.unexpected())),
        }
    }

    /// A tool run (or a job's handle tool) answered on a response stream, with its
    /// progress, log messages and server→client requests; a run that becomes a job
    /// (`server::jobs`) asks the job's questions on it too, until the `call` is cancelled.
    #[allow(clippy::too_many_arguments)]
    fn streamed(
        &self,
        server: Rc<Server>,
        session: Session,
        action: Action,
        ctx: Context,
        token: Option<Value>,
        trace: Option<String>,
        call: Tracked,
    ) -> Result<Response> {
        let channel = Channel::default();
        let out = self.resumable.open(channel.clone());
        let asker = self.asker(Some(out.clone()), None);
        let progress = self.progress(&session, out.clone(), token);
        let host = WorkerHost::host(self.env.clone(), &server);
        let env = self.env.clone();
        worker::wasm_bindgen_futures::spawn_local(async move {
            let steps = log::traced(&server.config.log, trace.as_deref());
            let jobs = job::Channel::session(&progress, Some(&asker), trace.as_deref());
            let action = match action {
                Action::Run(run) => {
                    server
                        .run(*run, &ctx, &host, &progress, Some(&asker), &steps)
                        .await
                }
                other => other,
            };
            let response = match action {
                Action::Respond(response) => Ok(response),
                Action::Detach { record, run } => {
                    let leave = &call.leave;
                    Ok(job::detach(&server, &env, &ctx, record, *run, &jobs, leave).await)
                }
                Action::Job(run) => Ok(job::follow(&server, &env, &ctx, *run, &jobs).await),
                other @ (Action::CreateTask { .. }
                | Action::Forward { .. }
                | Action::Run(_)
                | Action::Read(_)
                | Action::ListTasks { .. }
                | Action::Listen(_)
                | Action::Admin { .. }) => Err(other.unexpected()),
            };
            let body = match response {
                Ok(response) => legacy::legacy_body(&response.body),
                Err(e) => jsonrpc::error_response(None, &e.to_wire()),
            };
            out.finish(&body);
        });
        channel.response(HttpResponse::empty(200))
    }

    /// A run for a client whose `Accept` refuses `text/event-stream`: the answer is JSON.
    /// Progress and log messages relate to this request, which only its own stream could
    /// carry (2025-11-25 transports: GET-stream messages SHOULD be unrelated to running
    /// requests), so they are dropped; a step that must ask the client ends with a clear
    /// error saying what to accept.
    async fn run_for_json(
        &self,
        server: &Server,
        run: crate::server::call::InlineRun,
        ctx: &Context,
        host: &crate::host::Host,
        trace: Option<&str>,
        call: &Tracked,
    ) -> Result<Response> {
        let id = run.request_id.clone();
        let asker = self.asker(None, None);
        let steps = log::traced(&server.config.log, trace);
        let progress = Progress::default();
        match server
            .run(run, ctx, host, &progress, Some(&asker), &steps)
            .await
        {
            // A run that must ask this client (whose Accept refuses a stream) is a 406, as
            // every refusal of its Accept (`error::legacy_status`).
            Action::Respond(response) => legacy_answer(response),
            // A job's questions cannot travel on JSON: the handle tools answer them.
            Action::Detach { record, run } => {
                let channel = job::Channel::session(&progress, None, trace);
                let leave = &call.leave;
                let response =
                    job::detach(server, &self.env, ctx, record, *run, &channel, leave).await;
                legacy_answer(response)
            }
            other @ (Action::CreateTask { .. }
            | Action::Forward { .. }
            | Action::Run(_)
            | Action::Job(_)
            | Action::Read(_)
            | Action::ListTasks { .. }
            | Action::Listen(_)
            | Action::Admin { .. }) => json_reply(Some(&id), Err(other.unexpected())),
        }
    }

    /// Progress (if the request asked) and log messages (at the session's level) onto
    /// the response stream.
    fn progress(&self, session: &Session, channel: Stream, token: Option<Value>) -> Progress {
        let sink = channel.clone();
        let progress = Progress::to(move |report| {
            if let Some(token) = &token {
                sink.send(progress_notification(token, report).to_string().as_bytes());
            }
        });
        let session = session.clone();
        let stream = channel.clone();
        let progress = progress.disconnecting_to(move || stream.disconnect());
        progress.logging_to(move |level, data| {
            if session.logs(level) {
                let message = crate::jsonrpc::notification(
                    "notifications/message",
                    crate::jsonrpc::payload(&LoggingMessage { level, data }),
                );
                channel.send(message.to_string().as_bytes());
            }
        })
    }

    /// Server→client requests on `channel` (none: the client takes no stream and cannot
    /// be asked), answered by later POSTs to this object.
    pub(super) fn asker(
        &self,
        channel: Option<Stream>,
        related_task: Option<String>,
    ) -> SessionAsker {
        SessionAsker {
            channel,
            pending: self.pending.clone(),
            related_task,
        }
    }
}

/// An answer of the modern handlers for a 2025-11-25 client: the body reshaped for that
/// revision, the status its transport gives it (`error::legacy_status`: a 429 or 406 stays,
/// any other error is a 200 carrying it), and a 429's `Retry-After` kept, as every other door
/// keeps it.
fn legacy_answer(response: HttpResponse) -> Result<Response> {
    let mut answer = HttpResponse::json(
        crate::error::legacy_status(response.status),
        legacy::legacy_body(&response.body),
    );
    let retry = response
        .headers
        .into_iter()
        .filter(|(name, _)| *name == "retry-after");
    answer.headers.extend(retry);
    crate::cloudflare::to_worker_response(answer)
}

/// `notifications/message`'s params (2025-11-25 logging).
#[derive(Serialize)]
struct LoggingMessage<'a> {
    level: &'a str,
    data: &'a Value,
}
