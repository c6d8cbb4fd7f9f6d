//! A session's requests for the modern handlers: dispatched with the session's
//! capabilities, performed by the core's interpreter for 2025-11-25; tool runs streamed
//! with their progress, logs and server→client requests; a client that takes no stream
//! gets JSON.

use super::SessionRunner;
use crate::cloudflare::effects::WorkerEffects;
use crate::cloudflare::leave::Tracked;
use crate::cloudflare::to_worker_response;
use crate::jsonrpc::Request as RpcRequest;
use crate::legacy::{Session, modern, notices};
use crate::server::Server;
use crate::server::era::Era;
use crate::server::perform::{perform, perform_streamed};
use crate::tools::Progress;
use std::rc::Rc;
use worker::wasm_bindgen_futures::spawn_local;
use worker::{Response, Result};

impl SessionRunner {
    /// Any other method: the modern handlers, with the session's capabilities, performed
    /// by the core's interpreter for 2025-11-25 (`server::perform`, `Era::Legacy`): a
    /// tool run counts against the session principal's quota; a client that takes a
    /// stream gets the call's progress, log messages and questions on it. One whose
    /// `Accept` refuses a stream gets JSON: its progress and log messages are dropped (only
    /// the call's own stream could carry them: 2025-11-25 transports, GET-stream messages
    /// SHOULD be unrelated to running requests), and a step that must ask it ends with a
    /// 406 saying what to accept (`SessionAsker` without a stream). Asked at `now`;
    /// `trace`: the Worker's request id, for the log lines.
    pub(super) async fn modern(
        &self,
        server: Rc<Server>,
        rpc: RpcRequest,
        session: Session,
        now: u64,
        accepts_sse: bool,
        trace: Option<String>,
    ) -> Result<Response> {
        let mut reacher = self.reacher(&server);
        let prepared = match modern::prepare(&mut reacher, &server, &rpc, &session, now).await {
            Ok(prepared) => prepared,
            Err(refused) => return to_worker_response(refused),
        };
        let call = match prepared.leavable {
            true => self.leaves.track(&rpc.id),
            false => Tracked::untracked(),
        };
        let asker = self.memory.asker(None, None);
        let fx = WorkerEffects::new(&server, &self.env, trace.as_deref(), call.leave());
        let no_progress = Progress::default();
        let stage = modern::stage(accepts_sse, false, &no_progress, &asker);
        let (action, ctx) = (prepared.action, prepared.ctx);
        let performed = perform(&server, &ctx, action, &fx, &stage).await;
        let streamed = match performed.streamed_or_answer(Era::Legacy) {
            Ok(streamed) => streamed,
            Err(answer) => return to_worker_response(answer),
        };
        // On a response stream: the call's progress, log messages and server→client
        // requests; a run that becomes a job (`server::jobs`) asks the job's questions on
        // it too, until the `call` is cancelled.
        let (out, response) = self.response_stream()?;
        let asker = self.memory.asker(Some(out.clone()), None);
        let progress = notices::call_progress(&session, out.clone(), streamed.token);
        let env = self.env.clone();
        spawn_local(async move {
            let fx = WorkerEffects::new(&server, &env, trace.as_deref(), call.leave());
            let stage = modern::stage(true, true, &progress, &asker);
            let answer = perform_streamed(&server, &ctx, streamed.action, &fx, &stage).await;
            out.finish(&answer.body);
        });
        Ok(response)
    }
}
