//! A server-sent-events response fed by another task: the task pushes JSON-RPC messages,
//! the response body streams them out (`stream`). The producer runs as its own task
//! because the platform's timers keep the waker of their first poll: a future must always
//! be polled by the same task.

use super::stream::{self, Next, Source};
use crate::concurrent::{self as inbox, Queue};
use crate::http::HttpResponse;
use crate::http::sse::event;
use crate::legacy::replay::Closable;
use std::cell::RefCell;
use std::rc::Rc;
use worker::Response;

/// The producing end; clones share the stream.
#[derive(Clone, Default)]
pub struct Channel(Rc<RefCell<Queue<Vec<u8>>>>);

impl Channel {
    fn push(&self, frame: Vec<u8>, last: bool) {
        inbox::push(&self.0, (!frame.is_empty()).then_some(frame), last);
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
        self.0.borrow().is_finished()
    }

    /// The streaming response, with `head`'s status and headers.
    pub fn response(&self, mut head: HttpResponse) -> worker::Result<Response> {
        head.headers
            .push(("content-type", "text/event-stream".into()));
        head.headers.push(("cache-control", "no-cache".into()));
        stream::response(&head, Box::new(Frames(self.0.clone())))
    }
}

/// A session's streams (`legacy::replay`, `legacy::resumable`) are channels.
impl Closable for Channel {
    fn is_finished(&self) -> bool {
        Channel::is_finished(self)
    }

    fn close(&self) {
        Channel::close(self)
    }
}

impl crate::legacy::resumable::Channel for Channel {
    fn send_raw(&self, frames: Vec<u8>) {
        Channel::send_raw(self, frames)
    }
}

/// The body's end of a channel.
struct Frames(Rc<RefCell<Queue<Vec<u8>>>>);

impl Source for Frames {
    fn next(&mut self) -> Next<'_> {
        Box::pin(std::future::poll_fn(|cx| self.0.borrow_mut().poll_next(cx)))
    }
}
