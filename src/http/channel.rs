//! A server-sent-events body fed by another task: the task pushes JSON-RPC messages, the
//! body takes them out as framed events (`sse::event`). Pure: a queue with a waker
//! (`crate::concurrent::Queue`); the platform turns it into a streamed response (the
//! Worker's `cloudflare::sse`). Every stream this server answers with is one: a call's
//! progress, a job's wait, a 2025-11-25 session's response and GET streams.

use super::sse::event;
use crate::concurrent::{self as inbox, Queue};
use std::cell::RefCell;
use std::rc::Rc;

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

    /// The body's next bytes, `None` once the stream has ended.
    pub async fn next_frame(&self) -> Option<Vec<u8>> {
        std::future::poll_fn(|cx| self.0.borrow_mut().poll_next(cx)).await
    }
}

#[cfg(test)]
mod tests {
    use super::Channel;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    fn poll(channel: &Channel) -> Poll<Option<Vec<u8>>> {
        pin!(channel.next_frame())
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn frames_come_out_in_order_and_the_finish_ends_the_body() {
        let channel = Channel::default();
        assert_eq!(poll(&channel), Poll::Pending);
        channel.keepalive();
        channel.send(b"{}");
        channel.finish(b"[]");
        assert!(channel.is_finished());
        let frame = |bytes: &[u8]| Poll::Ready(Some(bytes.to_vec()));
        assert_eq!(poll(&channel), frame(b": keepalive\n\n"));
        assert_eq!(poll(&channel), frame(b"event: message\ndata: {}\n\n"));
        assert_eq!(poll(&channel), frame(b"event: message\ndata: []\n\n"));
        assert_eq!(poll(&channel), Poll::Ready(None));
    }

    #[test]
    fn a_close_ends_the_body_without_a_message() {
        let channel = Channel::default();
        channel.send(b"1");
        channel.close();
        channel.send(b"late");
        assert_eq!(
            poll(&channel),
            Poll::Ready(Some(b"event: message\ndata: 1\n\n".to_vec()))
        );
        assert_eq!(poll(&channel), Poll::Ready(None));
    }
}
