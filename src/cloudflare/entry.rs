//! The Worker's fetch handler: authenticates the caller, reads the body, lets the core
//! decide ([`Server::handle`]) and performs the [`Action`] it asks for.

use super::creation::{acquire_run, create_task};
use super::http::outgoing;
use super::http::{read_body, request_headers, to_response, to_worker_response};
use super::leave::Leave;
use super::principal_object::StreamSlot;
use super::rpc::call_object_traced;
use super::{
    SESSIONS_BINDING, WorkerHost, admin, auth, built, job, listen, log, my_tasks, new_task_id,
    now_ms, progress, upstreams,
};
use crate::auth::Outcome;
use crate::error::McpError;
use crate::http::{HttpRequest, HttpResponse};
use crate::server::{self, Action, Context, Server};
use crate::tasks::protocol::{OBJECT_URL, PRINCIPAL_HEADER, REQUEST_ID_HEADER};
use crate::tools::Progress;
use std::rc::Rc;
use worker::web_sys::RequestRedirect;
use worker::{Env, Request, Response, web_sys};

/// The Worker's fetch handler: MCP at `/mcp`, the Protected Resource Metadata at its
/// well-known paths. `build` defines the server (it runs once per isolate).
///
/// A pipeline of named steps: the deployment's configuration, the request read,
/// authentication (before any of the body is read), the 2025-11-25 route, the core's
/// decision, metering, then performing what the core asked for. It answers a
/// `web_sys::Response` (what the `fetch` export hands the runtime): built straight from
/// the core's bytes, without `worker::Response`'s extra copy of the body.
pub async fn fetch(
    req: Request,
    env: Env,
    build: fn() -> Server,
) -> worker::Result<web_sys::Response> {
    serve(req, env, None, build).await
}

/// [`fetch`] with the invocation's context (what `export_worker!` hands it): a job whose
/// caller disconnects before its handle is cancelled under `waitUntil` (`leave`).
pub(crate) async fn serve(
    req: Request,
    env: Env,
    invocation: Option<worker::Context>,
    build: fn() -> Server,
) -> worker::Result<web_sys::Response> {
    let server = match configured(&env, build) {
        Ok(server) if server.has_upstreams() => upstreams::current(&env, build).await?,
        Ok(server) => server,
        Err(refusal) => return to_response(refusal),
    };
    let trace = log::request_id(&req);
    let url = worker::Url::parse(&req.inner().url())?;
    let origin = url.origin().ascii_serialization();
    let mut request = HttpRequest {
        method: req.method().to_string(),
        path: url.path().to_owned(),
        headers: request_headers(&req),
        body: Vec::new(),
    };
    if let Some(response) = server.well_known(&request, &origin) {
        return to_response(response);
    }
    let principal = match authenticate(&server, &request, &origin, &trace).await {
        Ok(principal) => principal,
        Err(refusal) => return to_response(refusal),
    };
    read_body_within_limit(&req, &mut request, &server).await?;
    let ctx = Context {
        principal,
        now_ms: now_ms(),
    };
    if let Some(session) = crate::legacy::route(&server, &request) {
        return legacy(&env, request, session, &ctx.principal, &trace)
            .await
            .map(Into::into);
    }
    let action = server.handle(&request, &ctx);
    if let Err(refusal) = meter(&server, &env, &ctx, &action, &origin, &trace).await {
        return to_response(refusal);
    }
    let streams = crate::http::names(&request.headers, crate::http::EVENT_STREAM);
    // The handle to the same JS request (not `Request.clone()`, which copies it).
    let leave = Leave::on_abort(Clone::clone(req.inner()), invocation, streams);
    perform(server, env, ctx, origin, trace, leave, action).await
}

/// The server this deployment defines, or the refusal every request gets while its
/// configuration is broken: the variable to fix (not its value); the log has the reason.
fn configured(env: &Env, build: fn() -> Server) -> Result<Rc<Server>, HttpResponse> {
    built(env, build).map_err(|(refusal, why)| {
        worker::console_error!("{why}");
        let body = crate::jsonrpc::error_response(None, &refusal.to_wire());
        HttpResponse::json(refusal.http_status(), body)
    })
}

/// Who is calling (API key, OAuth token, anonymous), from the headers alone; a refusal is
/// logged (`auth.refused`) and answered 401/403.
async fn authenticate(
    server: &Server,
    request: &HttpRequest,
    origin: &str,
    trace: &str,
) -> Result<String, HttpResponse> {
    let granted = match server.authenticate(request) {
        Outcome::Principal(principal) => Ok(principal),
        Outcome::Refused(error) => Err(error),
        Outcome::Jwt(token) => {
            let now = now_ms();
            match auth::verify(&server.config.auth, &token, now).await {
                Ok(()) => server.grant(&token, origin, now),
                Err(error) => Err(error),
            }
        }
    };
    granted.map_err(|error| {
        log::print_all(
            crate::ops::log::refused(&error, None, Some(trace)),
            &server.config.log,
        );
        let cors = server.cors_for(request);
        server.refuse(None, &error, &cors, origin)
    })
}

/// Reads a POST's body, unless it is declared larger than `MAX_BODY_BYTES` (the core
/// then answers 413 from the header, and nothing is read).
async fn read_body_within_limit(
    req: &Request,
    request: &mut HttpRequest,
    server: &Server,
) -> worker::Result<()> {
    let declared = request.headers.content_length();
    let limit = server.config.max_body_bytes;
    if declared.is_none_or(|n| n <= limit) && request.method == "POST" {
        request.body = read_body(req, declared, limit).await?;
    }
    Ok(())
}

/// Every tool run counts against `QUOTA_TASKS_PER_MINUTE`, whether it ends inline or as
/// a task (a task it becomes is not counted twice): the refusal if the caller is over.
async fn meter(
    server: &Server,
    env: &Env,
    ctx: &Context,
    action: &Action,
    origin: &str,
    trace: &str,
) -> Result<(), HttpResponse> {
    if let Action::Run(run) = action
        && run.target.is_tool()
        && let Err(refused) = acquire_run(server, env, &ctx.principal, Some(trace)).await
    {
        return Err(server.refuse(Some(&run.request_id), &refused, &run.cors, origin));
    }
    Ok(())
}

/// Performs what the core asked for, until there is a response: running steps may lead
/// to another action (a task to create, say). `leave`: the client disconnecting.
async fn perform(
    server: Rc<Server>,
    env: Env,
    ctx: Context,
    origin: String,
    trace: String,
    leave: Leave,
    mut action: Action,
) -> worker::Result<web_sys::Response> {
    loop {
        action = match action {
            Action::Respond(response) => return to_response(response),
            Action::Run(run) if run.progress_token.is_some() => {
                let action = Action::Run(run);
                return progress::stream(server, env, action, ctx, origin, trace, leave)
                    .await
                    .map(Into::into);
            }
            Action::Job(run) if run.progress_token.is_some() => {
                let action = Action::Job(run);
                return progress::stream(server, env, action, ctx, origin, trace, leave)
                    .await
                    .map(Into::into);
            }
            // A wait the client can leave: streamed, so that its leaving is noticed.
            Action::Detach { record, run } if leave.streams => {
                let action = Action::Detach { record, run };
                return progress::stream(server, env, action, ctx, origin, trace, leave)
                    .await
                    .map(Into::into);
            }
            Action::Detach { record, run } => {
                let progress = Progress::default();
                let channel = job::Channel::modern(&server, &progress, Some(&trace));
                let response =
                    job::detach(&server, &env, &ctx, record, *run, &channel, &leave).await;
                return to_response(response);
            }
            Action::Job(run) => {
                let progress = Progress::default();
                let channel = job::Channel::modern(&server, &progress, Some(&trace));
                let response = job::follow(&server, &env, &ctx, *run, &channel).await;
                return to_response(response);
            }
            Action::Run(run) => {
                let host = WorkerHost::host(env.clone(), &server);
                let steps = log::traced(&server.config.log, Some(&trace));
                server
                    .run(*run, &ctx, &host, &Progress::default(), None, &steps)
                    .await
            }
            Action::Read(read) => {
                let host = WorkerHost::host(env.clone(), &server);
                Action::Respond(server.read(*read, &host).await)
            }
            Action::ListTasks {
                request_id,
                params,
                cors,
            } => {
                let cursor = params.cursor.as_deref();
                let response = match my_tasks::page(&env, &ctx.principal, cursor).await {
                    Ok((tasks, next)) => {
                        let result = server::my_tasks::page_result(tasks, next, &params.filter);
                        server::result_response(&request_id, &result, &cors)
                    }
                    Err(e) => server.refuse(Some(&request_id), &e, &cors, &origin),
                };
                return to_response(response);
            }
            Action::CreateTask {
                request_id,
                record,
                cors,
            } => {
                let response = create_task(
                    &server,
                    &env,
                    &ctx.principal,
                    request_id,
                    record,
                    true,
                    &cors,
                    &origin,
                    Some(&trace),
                )
                .await;
                return to_response(response);
            }
            Action::Forward {
                request_id,
                request,
                cors,
            } => {
                let reply = call_object_traced(&env, &request, &ctx.principal, Some(&trace)).await;
                return respond_object(&server, &request_id, reply, &cors);
            }
            Action::Admin {
                request_id,
                request,
                cors,
            } => {
                let response = admin::perform(
                    &server,
                    &env,
                    &ctx.principal,
                    &trace,
                    &request_id,
                    *request,
                    &cors,
                )
                .await;
                return to_response(response);
            }
            Action::Listen(listen) => {
                let slot = match listen_slot(&server, &env, &ctx, &trace).await? {
                    Ok(slot) => slot,
                    Err(error) => {
                        let id = listen.request_id.clone();
                        return to_response(server.refuse(
                            Some(&id),
                            &error,
                            &listen.cors,
                            &origin,
                        ));
                    }
                };
                return listen::stream(env, *listen, ctx.principal, slot)
                    .await
                    .map(Into::into);
            }
        };
    }
}

/// A listen stream's slot under `LISTEN_STREAMS_MAX` (none without that quota), or the
/// refusal, logged.
async fn listen_slot(
    server: &Server,
    env: &Env,
    ctx: &Context,
    trace: &str,
) -> worker::Result<Result<Option<StreamSlot>, McpError>> {
    let quotas = server.config.quotas;
    if quotas.listen_streams.is_none() {
        return Ok(Ok(None));
    }
    let stream_id = new_task_id()?;
    match StreamSlot::acquire(env.clone(), &ctx.principal, stream_id, quotas).await {
        Ok(slot) => Ok(Ok(Some(slot))),
        Err(error) => {
            let line = crate::ops::log::refused(&error, Some(&ctx.principal), Some(trace));
            log::print_all(line, &server.config.log);
            Ok(Err(error))
        }
    }
}

/// A 2025-11-25 request: to the session's object (a new one for `initialize`), with the
/// caller's principal; its answer (JSON or a stream) goes back as it comes.
async fn legacy(
    env: &Env,
    request: HttpRequest,
    session: crate::legacy::Route,
    principal: &str,
    trace: &str,
) -> worker::Result<Response> {
    let (session_id, cors) = match session {
        crate::legacy::Route::Refused(response) => return to_worker_response(response),
        crate::legacy::Route::New(cors) => (new_task_id()?, cors),
        crate::legacy::Route::Existing(id, cors) => (id, cors),
    };
    let headers = worker::Headers::new();
    for name in ["content-type", "accept", "last-event-id"] {
        if let Some(value) = request.headers.get(name) {
            headers.set(name, &value)?;
        }
    }
    headers.set(crate::legacy::SESSION_HEADER, &session_id)?;
    headers.set(PRINCIPAL_HEADER, principal)?;
    headers.set(REQUEST_ID_HEADER, trace)?;
    let body = (!request.body.is_empty()).then_some(request.body.as_slice());
    let outgoing = outgoing(
        OBJECT_URL,
        &request.method,
        &headers,
        body,
        RequestRedirect::Follow,
    )?;
    let stub = env
        .durable_object(SESSIONS_BINDING)?
        .get_by_name(&session_id)?;
    let response = stub.fetch_with_request(outgoing).await?;
    // A subrequest's headers are immutable: copy them, adding CORS.
    let headers = worker::Headers::new();
    for (name, value) in response.headers().entries() {
        headers.append(&name, &value)?;
    }
    for (name, value) in cors.apply(HttpResponse::empty(200)).headers {
        headers.append(name, &value)?;
    }
    Ok(response.with_headers(headers))
}

fn respond_object(
    server: &Server,
    request_id: &crate::jsonrpc::RequestId,
    reply: Result<(u16, Vec<u8>), String>,
    cors: &server::Cors,
) -> worker::Result<web_sys::Response> {
    let response = match reply {
        Ok((status, body)) => server.object_response(request_id, status, &body, cors),
        Err(why) => server.object_unreachable(request_id, &why, cors),
    };
    to_response(response)
}
