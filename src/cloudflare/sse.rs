//! A server-sent-events response whose body is a [`Channel`] (`crate::http::channel`):
//! another task pushes JSON-RPC messages, the body streams them out (`stream`). The
//! producer runs as its own task because the platform's timers keep the waker of their
//! first poll: a future must always be polled by the same task.

use super::stream::{self, Next, Source};
use crate::http::HttpResponse;
pub(crate) use crate::http::channel::Channel;
use worker::Response;

/// The streaming response of `channel`, with `head`'s status and headers (an
/// `HttpResponse::event_stream`).
pub(crate) fn response(channel: &Channel, head: &HttpResponse) -> worker::Result<Response> {
    stream::response(head, Box::new(channel.clone()))
}

/// The body's end of a channel.
impl Source for Channel {
    fn next(&mut self) -> Next<'_> {
        Box::pin(self.next_frame())
    }
}
