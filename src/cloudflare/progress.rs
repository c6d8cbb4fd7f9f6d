//! A call that asked for progress (`_meta.progressToken`): the response is an SSE
//! stream carrying each `notifications/progress` as the steps report it (or, for a job,
//! as its status changes), then the JSON-RPC response (streamable-http "Sending Messages": a POST may be answered with
//! a stream of related notifications ending with the response).

use super::sse::Channel;
use super::{WorkerHost, create_task, job};
use crate::http::HttpResponse;
use crate::jsonrpc;
use crate::server::call::progress_notification;
use crate::server::{Action, Context, Server};
use crate::tools::Progress;
use std::rc::Rc;
use worker::{Env, Response};

/// `action`: an [`Action::Run`] or an [`Action::Job`] whose request has a progress token.
pub async fn stream(
    server: Rc<Server>,
    env: Env,
    action: Action,
    ctx: Context,
    origin: String,
    trace: String,
) -> worker::Result<Response> {
    let (token, cors) = match &action {
        Action::Run(run) => (run.progress_token.clone(), run.cors.clone()),
        Action::Job(run) => (run.progress_token.clone(), run.cors.clone()),
        _ => (None, Default::default()),
    };
    let token = token.unwrap_or_default();
    let channel = Channel::default();
    let sink = channel.clone();
    let progress = Progress::to(move |report| {
        sink.send(progress_notification(&token, report).to_string().as_bytes());
    });
    let head = cors.apply(HttpResponse::empty(200));
    let out = channel.clone();
    worker::wasm_bindgen_futures::spawn_local(async move {
        let host = WorkerHost::host(env.clone(), &server);
        let principal = ctx.principal.clone();
        let steps = super::log::traced(&server.config.log, Some(&trace));
        let channel = job::Channel::modern(&server, &progress, Some(&trace));
        let action = match action {
            Action::Run(run) => server.run(*run, &ctx, &host, &progress, None, &steps).await,
            other => other,
        };
        let body = match action {
            Action::Respond(response) => response.body,
            Action::CreateTask {
                request_id,
                record,
                cors,
            } => {
                create_task(
                    &server,
                    &env,
                    &principal,
                    request_id,
                    record,
                    true,
                    &cors,
                    &origin,
                    Some(&trace),
                )
                .await
                .body
            }
            Action::Detach { record, run } => {
                job::detach(&server, &env, &ctx, record, *run, &channel)
                    .await
                    .body
            }
            Action::Job(run) => job::follow(&server, &env, &ctx, *run, &channel).await.body,
            other => jsonrpc::error_response(None, &other.unexpected().to_wire()),
        };
        out.finish(&body);
    });
    channel.response(head)
}
