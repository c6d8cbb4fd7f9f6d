//! The Worker's fetch handler: authenticates the caller, reads the body, lets the core
//! decide ([`Server::handle`]) and has the core's interpreter perform what it asks for.

use super::effects::WorkerEffects;
use super::http::{read_body, request_headers, to_response};
use super::leave::Leave;
use super::rpc::relay;
use super::{SESSIONS_BINDING, auth, built, listen, log, new_task_id, now_ms, progress};
use super::{rust_error, upstreams};
use crate::auth::AuthConfig;
use crate::auth::jwt::Token;
use crate::error::McpError;
use crate::http::{HttpRequest, HttpResponse};
use crate::legacy::Heads;
use crate::ops::log::{Line, LogSettings};
use crate::server::admit::Admitted;
use crate::server::perform::{Performed, Stage, perform};
use crate::server::slot::StreamSlot;
use crate::server::{self, Context, Server};
use crate::tasks::protocol::OBJECT_URL;
use crate::tools::Progress;
use std::rc::Rc;
use worker::{Env, Request, web_sys};

/// The Worker's fetch handler: MCP at `/mcp`, the Protected Resource Metadata at its
/// well-known paths. `build` defines the server (it runs once per isolate).
///
/// A pipeline of named steps: the deployment's configuration, the request's headers,
/// its admission (`server::admit`: authenticated before any of the body is read), the
/// 2025-11-25 route, the core's decision, then the core's interpreter
/// (`server::perform`) with the Worker's effects; what it leaves here is opening a
/// stream. It answers a `web_sys::Response` (what the `fetch` export hands the runtime):
/// built straight from the core's bytes, without `worker::Response`'s extra copy of the
/// body.
pub async fn fetch(
    req: Request,
    env: Env,
    build: fn() -> Server,
) -> worker::Result<web_sys::Response> {
    serve(Clone::clone(req.inner()), env, None, build).await
}

/// [`fetch`] with the invocation's context (what `export_worker!` hands it): a job whose
/// caller disconnects before its handle is cancelled under `waitUntil` (`leave`). It takes
/// the runtime's request as it is: `worker::Request` would read its `cf` object and URL on
/// every request, which nothing here needs.
pub(crate) async fn serve(
    req: web_sys::Request,
    env: Env,
    invocation: Option<worker::Context>,
    build: fn() -> Server,
) -> worker::Result<web_sys::Response> {
    let server = match configured(&env, build) {
        Ok(server) if server.has_upstreams() => upstreams::current(&env, build).await?,
        Ok(server) => server,
        Err(refusal) => return to_response(refusal),
    };
    let (origin, path) = crate::http::split_url(&req.url()).map_err(rust_error)?;
    let request = HttpRequest {
        method: req.method(),
        path,
        headers: request_headers(&req),
        body: Vec::new(),
    };
    let trace = log::request_id(&request.headers);
    let door = Door {
        req: &req,
        settings: &server.config.log,
    };
    let (request, ctx) = match server.admit(request, &origin, &trace, &door).await {
        Ok(Admitted::Caller(request, ctx)) => (request, ctx),
        Ok(Admitted::Answer(response)) => return to_response(response),
        Err(e) => return Err(rust_error(e)),
    };
    if let Some(session) = crate::legacy::route(&server, &request) {
        return legacy(&env, request, session, &ctx.principal, &trace).await;
    }
    let action = server.handle(&request, &ctx);
    let streams = crate::http::names(&request.headers, crate::http::EVENT_STREAM);
    // The handle to the same JS request (not `Request.clone()`, which copies it).
    let leave = Leave::on_abort(req, invocation);
    let fx = WorkerEffects::new(&server, &env, Some(&trace), &leave);
    let progress = Progress::default();
    let stage = Stage::modern(streams, false, &progress, &origin);
    match perform(&server, &ctx, action, &fx, &stage).await {
        Performed::Answer(response) => to_response(response),
        Performed::Stream(streamed) => {
            progress::stream(server, env, streamed, ctx, origin, trace, leave)
                .await
                .map(Into::into)
        }
        Performed::Listen(listen) => {
            let slot = match listen_slot(&server, &env, &ctx, &trace).await? {
                Ok(slot) => slot,
                Err(error) => {
                    let id = &listen.request_id;
                    return to_response(server.refuse(Some(id), &error, &listen.envelope, &origin));
                }
            };
            listen::stream(env, build, *listen, ctx.principal, slot)
                .await
                .map(Into::into)
        }
    }
}

/// The server this deployment defines, or the refusal every request gets while its
/// configuration is broken: the variable to fix (not its value); the log has the reason.
fn configured(env: &Env, build: fn() -> Server) -> Result<Rc<Server>, HttpResponse> {
    built(env, build).map_err(|(refusal, why)| {
        worker::console_error!("{why}");
        server::error_response(None, &refusal, &Default::default())
    })
}

/// The runtime's side of a request's admission (`server::admit`).
struct Door<'a> {
    req: &'a web_sys::Request,
    settings: &'a LogSettings,
}

impl server::admit::Door for Door<'_> {
    async fn verify(&self, auth: &AuthConfig, token: &Token, now_ms: u64) -> Result<(), McpError> {
        auth::verify(auth, token, now_ms).await
    }

    async fn body(&self, declared: Option<usize>, limit: usize) -> Result<Vec<u8>, String> {
        read_body(self.req, declared, limit)
            .await
            .map_err(|e| e.to_string())
    }

    fn now_ms(&self) -> u64 {
        now_ms()
    }

    fn print(&self, line: &Line) {
        log::print(line, self.settings);
    }
}

/// A listen stream's slot under `QUOTA_LISTEN_STREAMS` (`server::slot`: none without
/// that quota), or the refusal, logged.
async fn listen_slot(
    server: &Server,
    env: &Env,
    ctx: &Context,
    trace: &str,
) -> worker::Result<Result<Option<StreamSlot>, McpError>> {
    let (quotas, principal) = (server.config.quotas, &ctx.principal);
    let acquired = StreamSlot::acquire(env, quotas, principal, new_task_id()?, now_ms()).await;
    if let Err(error) = &acquired {
        let line = crate::ops::log::refused(error, Some(principal), Some(trace));
        log::print_all(line, &server.config.log);
    }
    Ok(acquired)
}

/// A 2025-11-25 request: to the session's object (a new one for `initialize`), with the
/// caller's principal; its answer (JSON or a stream) goes back as it comes.
async fn legacy(
    env: &Env,
    request: HttpRequest,
    session: crate::legacy::Route,
    principal: &str,
    trace: &str,
) -> worker::Result<web_sys::Response> {
    let (session_id, envelope) = match session {
        crate::legacy::Route::Refused(response) => return to_response(response),
        crate::legacy::Route::New(envelope) => (new_task_id()?, envelope),
        crate::legacy::Route::Existing(id, envelope) => (id, envelope),
    };
    let forward = Heads::forward(&request.headers, &session_id, principal, trace);
    let stub = env
        .durable_object(SESSIONS_BINDING)?
        .get_by_name(&session_id)?;
    // CORS added to the session's own headers.
    let cors = envelope.apply(HttpResponse::empty(200)).headers;
    relay(
        stub,
        OBJECT_URL,
        &request.method,
        &forward,
        &request.body,
        &cors,
    )
    .await
}
