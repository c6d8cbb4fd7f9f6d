//! A call that asked for progress (`_meta.progressToken`), or a job's wait for a client
//! that takes a stream: the response is an SSE stream carrying each
//! `notifications/progress` as the steps report it (or, for a job, as its status
//! changes), then the JSON-RPC response (streamable-http "Sending Messages": a POST may be
//! answered with a stream of related notifications ending with the response). A comment
//! every [`HEARTBEAT`] lets the runtime notice a client that left (`leave`).

use super::effects::WorkerEffects;
use super::leave::{HEARTBEAT, Leave};
use super::sse::Channel;
use crate::http::HttpResponse;
use crate::server::call::progress_notification;
use crate::server::perform::{Stage, Streamed, perform_streamed};
use crate::server::{Context, Server};
use crate::tools::Progress;
use futures_util::future::{Either, select};
use std::pin::pin;
use std::rc::Rc;
use worker::{Delay, Env, Response};

/// Opens the stream the core asked for (`Performed::Stream`) and performs its action on it.
pub async fn stream(
    server: Rc<Server>,
    env: Env,
    streamed: Streamed,
    ctx: Context,
    origin: String,
    trace: String,
    leave: Leave,
) -> worker::Result<Response> {
    let Streamed {
        action,
        token,
        envelope,
    } = streamed;
    let channel = Channel::default();
    let sink = channel.clone();
    let progress = match token {
        Some(token) => Progress::to(move |report| {
            sink.send(progress_notification(&token, report).to_string().as_bytes());
        }),
        None => Progress::default(),
    };
    let head = envelope.apply(HttpResponse::event_stream());
    let out = channel.clone();
    let beat = channel.clone();
    worker::wasm_bindgen_futures::spawn_local(async move {
        let fx = WorkerEffects::new(&server, &env, Some(&trace), &leave);
        let stage = Stage::modern(true, true, &progress, &origin);
        let answered = perform_streamed(&server, &ctx, action, &fx, &stage);
        let answer = match select(pin!(answered), pin!(heartbeat(&beat))).await {
            Either::Left((answer, _)) => answer,
            Either::Right((never, _)) => match never {},
        };
        out.finish(&answer.body);
    });
    super::sse::response(&channel, &head)
}

/// Writes a comment to the stream every [`HEARTBEAT`], for as long as it is awaited.
async fn heartbeat(stream: &Channel) -> std::convert::Infallible {
    loop {
        Delay::from(HEARTBEAT).await;
        stream.keepalive();
    }
}
