//! The Worker's fetch handler: authenticates the caller, reads the body, lets the core
//! decide ([`Server::handle`]) and performs the [`Action`] it asks for.

use super::creation::{acquire_run, create_task};
use super::http::outgoing;
use super::http::{read_body, request_headers, to_response, to_worker_response};
use super::principal_object::StreamSlot;
use super::rpc::call_object_traced;
use super::{
    SESSIONS_BINDING, WorkerHost, admin, auth, built, job, listen, log, my_tasks, new_task_id,
    now_ms, progress,
};
use crate::auth::Outcome;
use crate::error::McpError;
use crate::http::{HttpRequest, HttpResponse};
use crate::server::{self, Action, Context, Server};
use crate::tasks::protocol::{OBJECT_URL, PRINCIPAL_HEADER, REQUEST_ID_HEADER};
use crate::tools::Progress;
use worker::web_sys::RequestRedirect;
use worker::{Env, Request, Response, web_sys};

/// The Worker's fetch handler: MCP at `/mcp`, the Protected Resource Metadata at its
/// well-known paths. `build` defines the server (it runs once per isolate).
///
/// It answers a `web_sys::Response` (what the `fetch` export hands the runtime): built
/// straight from the core's bytes, without `worker::Response`'s extra copy of the body.
pub async fn fetch(
    req: Request,
    env: Env,
    build: fn() -> Server,
) -> worker::Result<web_sys::Response> {
    let server = match built(&env, build) {
        Ok(server) => server,
        // Every request says the deployment is misconfigured (which variable, not its
        // value); the log has the whole reason.
        Err((refusal, why)) => {
            worker::console_error!("{why}");
            let body = crate::jsonrpc::error_response(None, &refusal.to_wire());
            return to_response(HttpResponse::json(refusal.http_status(), body));
        }
    };
    let trace = log::request_id(&req);
    let url = worker::Url::parse(&req.inner().url())?;
    let mut request = HttpRequest {
        method: req.method().to_string(),
        path: url.path().to_owned(),
        headers: request_headers(&req),
        body: Vec::new(),
    };
    let origin = url.origin().ascii_serialization();
    if let Some(response) = server.well_known(&request, &origin) {
        return to_response(response);
    }
    // Credentials first: nothing of an unauthenticated request's body is read.
    let principal = match server.authenticate(&request) {
        Outcome::Principal(principal) => principal,
        Outcome::Refused(error) => return refuse(&server, &request, &error, &origin, &trace),
        Outcome::Jwt(token) => {
            let now = now_ms();
            let granted = match auth::verify(&server.config.auth, &token, now).await {
                Ok(()) => server.grant(&token, &origin, now),
                Err(error) => Err(error),
            };
            match granted {
                Ok(principal) => principal,
                Err(error) => return refuse(&server, &request, &error, &origin, &trace),
            }
        }
    };
    let declared = request.headers.content_length();
    let limit = server.config.max_body_bytes;
    // A body declared too large is not read; the core answers 413 from the header.
    if declared.is_none_or(|n| n <= limit) && request.method == "POST" {
        request.body = read_body(&req, declared, limit).await?;
    }
    let ctx = Context {
        principal,
        now_ms: now_ms(),
    };
    if let Some(session) = crate::legacy::route(&server, &request) {
        return legacy(&env, request, session, &ctx.principal, &trace)
            .await
            .map(Into::into);
    }
    let quotas = server.config.quotas;
    let mut action = server.handle(&request, &ctx);
    // Every tool run counts against QUOTA_TASKS_PER_MINUTE, whether it ends inline or as
    // a task (a task it becomes is not counted twice).
    if let Action::Run(run) = &action
        && run.target.is_tool()
        && let Err(refused) = acquire_run(&server, &env, &ctx.principal, Some(&trace)).await
    {
        let response = server.refuse(Some(&run.request_id), &refused, &run.cors, &origin);
        return to_response(response);
    }
    loop {
        action = match action {
            Action::Respond(response) => return to_response(response),
            Action::Run(run) if run.progress_token.is_some() => {
                let action = Action::Run(run);
                return progress::stream(server, env, action, ctx, origin, trace)
                    .await
                    .map(Into::into);
            }
            Action::Job(run) if run.progress_token.is_some() => {
                let action = Action::Job(run);
                return progress::stream(server, env, action, ctx, origin, trace)
                    .await
                    .map(Into::into);
            }
            Action::Detach { record, run } => {
                let progress = Progress::default();
                let channel = job::Channel::modern(&server, &progress, Some(&trace));
                let response = job::detach(&server, &env, &ctx, record, *run, &channel).await;
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
                server
                    .read(*read, &WorkerHost::host(env.clone(), &server))
                    .await
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
                let slot = match quotas.listen_streams {
                    None => None,
                    Some(_) => {
                        let stream_id = new_task_id()?;
                        let acquired =
                            StreamSlot::acquire(env.clone(), &ctx.principal, stream_id, quotas)
                                .await;
                        match acquired {
                            Ok(slot) => Some(slot),
                            Err(error) => {
                                let line = crate::ops::log::refused(
                                    &error,
                                    Some(&ctx.principal),
                                    Some(&trace),
                                );
                                log::print_all(line, &server.config.log);
                                let id = listen.request_id.clone();
                                let response =
                                    server.refuse(Some(&id), &error, &listen.cors, &origin);
                                return to_response(response);
                            }
                        }
                    }
                };
                return listen::stream(env, *listen, ctx.principal, slot)
                    .await
                    .map(Into::into);
            }
        };
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

/// Refuses an unauthenticated request (401/403), logging why (`auth.refused`).
fn refuse(
    server: &Server,
    request: &HttpRequest,
    error: &McpError,
    origin: &str,
    trace: &str,
) -> worker::Result<web_sys::Response> {
    log::print_all(
        crate::ops::log::refused(error, None, Some(trace)),
        &server.config.log,
    );
    let cors = server.cors_for(request);
    to_response(server.refuse(None, error, &cors, origin))
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
