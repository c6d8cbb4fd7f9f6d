//! A server-sent-events response fed by another task: the task pushes JSON-RPC messages,
//! the response body streams them out. The producer runs as its own task because the
//! platform's timers keep the waker of their first poll: a future must always be polled
//! by the same task, not by the body stream.

use super::to_headers;
use crate::http::HttpResponse;
use futures_util::stream;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::task::{Poll, Waker};
use worker::Response;

/// One SSE event carrying a JSON-RPC message.
pub fn event(json: &[u8]) -> Vec<u8> {
    let mut frame = b"event: message\ndata: ".to_vec();
    frame.extend_from_slice(json);
    frame.extend_from_slice(b"\n\n");
    frame
}

#[derive(Default)]
struct Shared {
    frames: VecDeque<Vec<u8>>,
    finished: bool,
    waker: Option<Waker>,
}

/// The producing end; clones share the stream.
#[derive(Clone, Default)]
pub struct Channel(Rc<RefCell<Shared>>);

impl Channel {
    fn push(&self, frame: Vec<u8>, last: bool) {
        let waker = {
            let mut shared = self.0.borrow_mut();
            if shared.finished {
                return;
            }
            if !frame.is_empty() {
                shared.frames.push_back(frame);
            }
            shared.finished |= last;
            shared.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Sends an already framed event (or events).
    pub fn send_raw(&self, frame: Vec<u8>) {
        self.push(frame, false);
    }

    /// Sends one JSON-RPC message.
    pub fn send(&self, json: &[u8]) {
        self.push(event(json), false);
    }

    /// Sends the last message (the response) and ends the stream.
    pub fn finish(&self, json: &[u8]) {
        self.push(event(json), true);
    }

    /// An SSE comment: keeps idle connections open.
    pub fn keepalive(&self) {
        self.push(b": keepalive\n\n".to_vec(), false);
    }

    /// Ends the stream without another message.
    pub fn close(&self) {
        self.push(Vec::new(), true);
    }

    pub fn is_finished(&self) -> bool {
        self.0.borrow().finished
    }

    /// The streaming response, with `head`'s status and headers.
    pub fn response(&self, mut head: HttpResponse) -> worker::Result<Response> {
        head.headers
            .push(("content-type", "text/event-stream".into()));
        head.headers.push(("cache-control", "no-cache".into()));
        let shared = self.0.clone();
        let body = stream::unfold((shared, false), |(shared, ended)| async move {
            if ended {
                return None;
            }
            let (frame, last) = std::future::poll_fn(|cx| {
                let mut state = shared.borrow_mut();
                match state.frames.pop_front() {
                    Some(frame) => Poll::Ready((frame, state.finished && state.frames.is_empty())),
                    None if state.finished => Poll::Ready((Vec::new(), true)),
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
        Ok(Response::from_stream(body)?
            .with_status(head.status)
            .with_headers(headers))
    }
}
