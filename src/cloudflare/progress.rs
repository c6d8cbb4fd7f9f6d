//! A call that asked for progress (`_meta.progressToken`), or a job's wait for a client
//! that takes a stream: the response is an SSE stream carrying each
//! `notifications/progress` as the steps report it (or, for a job, as its status
//! changes), then the JSON-RPC response (streamable-http "Sending Messages": a POST may be
//! answered with a stream of related notifications ending with the response). A comment
//! every [`HEARTBEAT`] lets the runtime notice a client that left (`leave`).

use super::leave::{HEARTBEAT, Leave};
use super::sse::Channel;
use super::{WorkerHost, create_task, job};
use crate::http::HttpResponse;
use crate::jsonrpc;
use crate::server::call::progress_notification;
use crate::server::{Action, Context, Server};
use crate::tools::Progress;
use futures_util::future::{Either, select};
use std::pin::pin;
use std::rc::Rc;
use worker::{Delay, Env, Response};

/// `action`: an [`Action::Run`] or an [`Action::Job`] whose request has a progress token,
/// or an [`Action::Detach`].
pub async fn stream(
    server: Rc<Server>,
    env: Env,
    action: Action,
    ctx: Context,
    origin: String,
    trace: String,
    leave: Leave,
) -> worker::Result<Response> {
    let (token, cors) = match &action {
        Action::Run(run) => (run.progress_token.clone(), run.cors.clone()),
        Action::Job(run) | Action::Detach { run, .. } => {
            (run.progress_token.clone(), run.cors.clone())
        }
        _ => (None, Default::default()),
    };
    let channel = Channel::default();
    let sink = channel.clone();
    let progress = match token {
        Some(token) => Progress::to(move |report| {
            sink.send(progress_notification(&token, report).to_string().as_bytes());
        }),
        None => Progress::default(),
    };
    let head = cors.apply(HttpResponse::empty(200));
    let out = channel.clone();
    let beat = channel.clone();
    worker::wasm_bindgen_futures::spawn_local(async move {
        let host = WorkerHost::host(env.clone(), &server);
        let principal = ctx.principal.clone();
        let steps = super::log::traced(&server.config.log, Some(&trace));
        let channel = job::Channel::modern(&server, &progress, Some(&trace));
        let action = match action {
            Action::Run(run) => server.run(*run, &ctx, &host, &progress, None, &steps).await,
            other => other,
        };
        let answered = async {
            match action {
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
                    job::detach(&server, &env, &ctx, record, *run, &channel, &leave)
                        .await
                        .body
                }
                Action::Job(run) => job::follow(&server, &env, &ctx, *run, &channel).await.body,
                // Each named, so that a new kind of action is a compile error here.
                other @ (Action::Run(_)
                | Action::Forward { .. }
                | Action::Read(_)
                | Action::ListTasks { .. }
                | Action::Listen(_)
                | Action::Admin { .. }) => {
                    jsonrpc::error_response(None, &other.unexpected().to_wire())
                }
            }
        };
        let body = match select(pin!(answered), pin!(heartbeat(&beat))).await {
            Either::Left((body, _)) => body,
            Either::Right((never, _)) => match never {},
        };
        out.finish(&body);
    });
    channel.response(head)
}

/// Writes a comment to the stream every [`HEARTBEAT`], for as long as it is awaited.
async fn heartbeat(stream: &Channel) -> std::convert::Infallible {
    loop {
        Delay::from(HEARTBEAT).await;
        stream.keepalive();
    }
}
