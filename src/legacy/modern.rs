//! A 2025-11-25 session's requests for the modern handlers (`object::Serve::Modern`), once
//! for every platform: routed with the session's capabilities (`server::dispatch`) and
//! performed by the core's interpreter for the era (`server::perform`, `Era::Legacy`).
//! What is decided before anything is performed is [`prepare`]'s; the platform tracks the
//! call for `notifications/cancelled` and opens its stream.

use super::object::answer;
use super::reach::{self, Reaching};
use super::session::Session;
use crate::error::McpError;
use crate::http::HttpResponse;
use crate::jsonrpc::Request;
use crate::server::call::Asker;
use crate::server::dispatch;
use crate::server::era::Era;
use crate::server::perform::{Stage, followed_job, leavable};
use crate::server::{Action, Context, Envelope, Server};
use crate::tools::Progress;

/// A request ready for the interpreter.
#[derive(Debug)]
pub struct Prepared {
    pub action: Action,
    /// The caller: the session's principal; for a job's handle, the principal that
    /// reaches its task.
    pub ctx: Context,
    /// A run its client may leave: until it is answered, `notifications/cancelled` for
    /// it reaches its job (`server::perform::leavable`).
    pub leavable: bool,
}

/// Routes `rpc` with the session's capabilities, or answers its refusal. A job is a task,
/// and its handle is reached as the session reaches a task's id (`legacy::reach`): an
/// anonymous session's job from any anonymous session, which then lists it. A handle
/// this session cannot reach keeps the session's principal, and the follower says the
/// job is unknown, as for any handle.
pub async fn prepare<R: Reaching>(
    r: &mut R,
    server: &Server,
    rpc: &Request,
    session: &Session,
    now_ms: u64,
) -> Result<Prepared, HttpResponse> {
    let mut ctx = Context {
        principal: session.principal.clone(),
        now_ms,
    };
    let envelope = Envelope::default();
    let action = dispatch::route(server, rpc, None, &session.meta(), &ctx, &envelope)
        .map_err(|e| answer(Some(&rpc.id), Err(e)))?;
    if let Some(job) = followed_job(&action) {
        match reach::principal(r, session, job).await {
            Ok((principal, _)) => ctx.principal = principal,
            // The session's storage or the task's object failed: said, not hidden.
            Err(failed @ McpError::Internal(_)) => return Err(answer(Some(&rpc.id), Err(failed))),
            // Not this session's to reach: followed as itself, unknown as any handle's.
            Err(_) => {}
        }
    }
    let leavable = leavable(&action);
    Ok(Prepared {
        action,
        ctx,
        leavable,
    })
}

/// The interpreter's stage for a session's request: `streams`, its `Accept` takes a
/// stream; `streaming`, its answer is a stream already, carrying `progress`; questions
/// go through the session's `asker`.
pub fn stage<'a>(
    streams: bool,
    streaming: bool,
    progress: &'a Progress,
    asker: &'a dyn Asker,
) -> Stage<'a> {
    Stage {
        era: Era::Legacy,
        streams,
        streaming,
        progress,
        asker: Some(asker),
        origin: "",
    }
}
