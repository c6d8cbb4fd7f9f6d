//! An inline call that asked for progress (`_meta.progressToken`): the response is an SSE
//! stream carrying each `notifications/progress` as the steps report it, then the
//! JSON-RPC response (streamable-http "Sending Messages": a POST may be answered with
//! a stream of related notifications ending with the response).
//!
//! The steps run as their own task (`spawn_local`), not inside the body stream: the
//! platform's timers keep the waker of the first poll, so a future must always be polled
//! by the same task. The task hands frames to the stream through [`Shared`].

use super::{WorkerHost, create_task, to_headers};
use crate::error::McpError;
use crate::http::HttpResponse;
use crate::jsonrpc;
use crate::server::call::{InlineRun, progress_notification};
use crate::server::{Action, Context, Server};
use crate::tools::Progress;
use futures_util::stream;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::task::{Poll, Waker};
use worker::{Env, Response};

/// One SSE event carrying a JSON-RPC message.
pub fn event(json: &[u8]) -> Vec<u8> {
    let mut frame = b"event: message\ndata: ".to_vec();
    frame.extend_from_slice(json);
    frame.extend_from_slice(b"\n\n");
    frame
}

/// Frames from the task to the stream; the last is the response.
#[derive(Default)]
struct Shared {
    frames: VecDeque<Vec<u8>>,
    finished: bool,
    waker: Option<Waker>,
}

impl Shared {
    fn push(cell: &RefCell<Shared>, frame: Vec<u8>, last: bool) {
        let waker = {
            let mut shared = cell.borrow_mut();
            shared.frames.push_back(frame);
            shared.finished |= last;
            shared.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

pub async fn stream(
    server: Rc<Server>,
    env: Env,
    run: InlineRun,
    ctx: Context,
) -> worker::Result<Response> {
    let token = run.progress_token.clone().unwrap_or_default();
    let shared: Rc<RefCell<Shared>> = Rc::default();
    let sink = shared.clone();
    let progress = Progress::to(move |report| {
        let message = progress_notification(&token, report);
        Shared::push(&sink, event(message.to_string().as_bytes()), false);
    });
    let mut head = HttpResponse::empty(200);
    head.headers
        .push(("content-type", "text/event-stream".into()));
    head.headers.push(("cache-control", "no-cache".into()));
    let head = run.cors.apply(head);
    let done = shared.clone();
    worker::wasm_bindgen_futures::spawn_local(async move {
        let host = WorkerHost::host(env.clone());
        let principal = ctx.principal.clone();
        let body = match server.run(run, &ctx, &host, &progress).await {
            Action::Respond(response) => response.body,
            Action::CreateTask {
                request_id,
                record,
                cors,
            } => {
                create_task(&server, &env, &principal, request_id, record, &cors)
                    .await
                    .body
            }
            other => {
                let e = McpError::Internal(format!("unexpected action while streaming: {other:?}"));
                jsonrpc::error_response(None, &e.to_wire())
            }
        };
        Shared::push(&done, event(&body), true);
    });
    let body = stream::unfold((shared, false), |(shared, ended)| async move {
        if ended {
            return None;
        }
        let (frame, last) = std::future::poll_fn(|cx| {
            let mut state = shared.borrow_mut();
            match state.frames.pop_front() {
                Some(frame) => Poll::Ready((frame, state.finished && state.frames.is_empty())),
                None => {
                    state.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await;
        Some((Ok::<Vec<u8>, worker::Error>(frame), (shared, last)))
    });
    let headers = to_headers(&head.headers)?;
    Ok(Response::from_stream(body)?.with_headers(headers))
}
