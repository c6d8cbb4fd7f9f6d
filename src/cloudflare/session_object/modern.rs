//! A session's requests for the modern handlers: dispatched with the session's
//! capabilities, performed by the core's interpreter for 2025-11-25; tool runs streamed
//! with their progress, logs and server→client requests; a client that takes no stream
//! gets JSON.

use super::asker::SessionAsker;
use super::{SessionRunner, Stream, json_reply};
use crate::cloudflare::effects::WorkerEffects;
use crate::cloudflare::leave::Tracked;
use crate::cloudflare::sse::{self, Channel};
use crate::cloudflare::to_worker_response;
use crate::http::HttpResponse;
use crate::jsonrpc::Request as RpcRequest;
use crate::legacy::{Session, notices, reach};
use crate::server::dispatch;
use crate::server::era::Era;
use crate::server::perform::{Stage, Streamed, followed_job, leavable, perform, perform_streamed};
use crate::server::{Context, Envelope, Server};
use crate::tools::Progress;
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
    /// Any other method: the modern handlers, with the session's capabilities, performed
    /// by the core's interpreter for 2025-11-25 (`server::perform`, `Era::Legacy`): a
    /// tool run counts against the session principal's quota; a client that takes a
    /// stream gets the call's progress, log messages and questions on it. One whose
    /// `Accept` refuses a stream gets JSON: its progress and log messages are dropped (only
    /// the call's own stream could carry them: 2025-11-25 transports, GET-stream messages
    /// SHOULD be unrelated to running requests), and a step that must ask it ends with a
    /// 406 saying what to accept (`SessionAsker` without a stream).
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
        let mut ctx = Context {
            principal: session.principal.clone(),
            now_ms: now,
        };
        let action = match dispatch::route(
            &server,
            &rpc,
            None,
            &session.meta(),
            &ctx,
            &Envelope::default(),
        ) {
            Ok(action) => action,
            Err(e) => return json_reply(Some(&rpc.id), Err(e)),
        };
        // A job is a task, and its handle is reached as the session reaches a task's id
        // (`legacy::reach`): an anonymous session's job from any anonymous session, which
        // then lists it. Unknown to this session, the follower says so, as for any handle.
        if let Some(job) = followed_job(&action) {
            let mut reacher = self.reacher(&server);
            if let Ok((principal, _)) = reach::principal(&mut reacher, &session, job).await {
                ctx.principal = principal;
            }
        }
        // Until a run is answered, `notifications/cancelled` for it reaches its job.
        let call = match leavable(&action) {
            true => self.leaves.track(&rpc.id),
            false => Tracked::untracked(),
        };
        let asker = self.asker(None, None);
        let fx = WorkerEffects::new(&server, &self.env, trace.as_deref(), &call.leave);
        let stage = Stage {
            era: Era::Legacy,
            streams: accepts_sse,
            streaming: false,
            progress: &Progress::default(),
            asker: Some(&asker),
            origin: "",
        };
        let performed = perform(&server, &ctx, action, &fx, &stage).await;
        match performed.streamed_or_answer(Era::Legacy) {
            Ok(streamed) => self.streamed(server, session, streamed, ctx, trace, call),
            Err(answer) => to_worker_response(answer),
        }
    }

    /// A call answered on a response stream, with its progress, log messages and
    /// server→client requests; a run that becomes a job (`server::jobs`) asks the job's
    /// questions on it too, until the `call` is cancelled.
    fn streamed(
        &self,
        server: Rc<Server>,
        session: Session,
        streamed: Streamed,
        ctx: Context,
        trace: Option<String>,
        call: Tracked,
    ) -> Result<Response> {
        let channel = Channel::default();
        let out = self.resumable.open(channel.clone());
        let asker = self.asker(Some(out.clone()), None);
        let progress = notices::call_progress(&session, out.clone(), streamed.token);
        let env = self.env.clone();
        worker::wasm_bindgen_futures::spawn_local(async move {
            let fx = WorkerEffects::new(&server, &env, trace.as_deref(), &call.leave);
            let stage = Stage {
                era: Era::Legacy,
                streams: true,
                streaming: true,
                progress: &progress,
                asker: Some(&asker),
                origin: "",
            };
            let answer = perform_streamed(&server, &ctx, streamed.action, &fx, &stage).await;
            out.finish(&answer.body);
        });
        sse::response(&channel, HttpResponse::empty(200))
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
