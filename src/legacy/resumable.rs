//! Resumable response streams (2025-11-25 transports "Resumability and Redelivery",
//! SEP-1699), on any platform's channels: every event of a session's response stream has
//! an id `s{stream}:{n}`; the stream opens with a priming event (an id, a `retry` hint, no
//! data), and a client whose connection ended (or that the server disconnected on
//! purpose) reconnects with `GET` and `Last-Event-ID` to receive what it missed, then the
//! rest as it comes. What is kept is bounded by [`super::replay`].

use super::replay::{Closable, ReplayLog, forget_ended, parse_event_id};
use crate::http::sse::event;
use std::cell::RefCell;
use std::rc::Rc;

/// How long a client should wait before reconnecting (the SSE `retry` field).
pub const RETRY_MS: u64 = 1000;

/// A platform's connection to a client: it takes SSE frames, and closes.
pub trait Channel: Closable {
    /// Sends frames as they are (already framed).
    fn send_raw(&self, frames: Vec<u8>);
}

/// The platform's SSE bodies carry a session's streams.
impl Channel for crate::http::channel::Channel {
    fn send_raw(&self, frames: Vec<u8>) {
        crate::http::channel::Channel::send_raw(self, frames)
    }
}

struct Log<C> {
    id: String,
    /// The newest events (`replay::KEEP_EVENTS`), numbered.
    replay: ReplayLog<Vec<u8>>,
    /// The client's connection, while it has one.
    live: Option<C>,
}

/// The writing end of a resumable stream; clones share it.
pub struct Stream<C>(Rc<RefCell<Log<C>>>);

impl<C> Clone for Stream<C> {
    fn clone(&self) -> Self {
        Stream(self.0.clone())
    }
}

impl<C: Channel> Stream<C> {
    fn push(&self, json: &[u8], last: bool) {
        let mut log = self.0.borrow_mut();
        let mut frame = format!("id: {}:{}\n", log.id, log.replay.sent() + 1).into_bytes();
        frame.extend(event(json));
        log.replay.push(frame.clone(), last);
        if let Some(live) = &log.live {
            live.send_raw(frame);
            if last {
                live.close();
            }
        }
    }

    /// Sends one JSON-RPC message.
    pub fn send(&self, json: &[u8]) {
        self.push(json, false);
    }

    /// Sends the response and ends the stream.
    pub fn finish(&self, json: &[u8]) {
        self.push(json, true);
    }

    /// Ends the client's connection now; the events still to come wait for a reconnection.
    pub fn disconnect(&self) {
        if let Some(live) = self.0.borrow_mut().live.take() {
            live.close();
        }
    }
}

/// A session's response streams, by number (`s{n}` on the wire), in the order they
/// opened (so by number). Few: at most `replay::KEEP_ENDED` ended ones, and the live ones
/// of the session's requests in flight; so a list searched in turn (a `BTreeMap` of its
/// own would add its whole B-tree code to the Worker).
pub struct Streams<C>(Rc<RefCell<Numbered<C>>>);

struct Numbered<C> {
    /// The number of the newest stream.
    last: u64,
    streams: Vec<(u64, Stream<C>)>,
}

impl<C> Default for Streams<C> {
    fn default() -> Self {
        Streams(Rc::new(RefCell::new(Numbered {
            last: 0,
            streams: Vec::new(),
        })))
    }
}

impl<C> Clone for Streams<C> {
    fn clone(&self) -> Self {
        Streams(self.0.clone())
    }
}

impl<C: Channel> Streams<C> {
    /// A new stream whose events go to `channel`, which gets the priming event first.
    /// Ended streams beyond `replay::KEEP_ENDED` are forgotten, oldest first.
    pub fn open(&self, channel: C) -> Stream<C> {
        let mut state = self.0.borrow_mut();
        state.last += 1;
        let n = state.last;
        let id = format!("s{n}");
        channel.send_raw(format!("id: {id}:0\nretry: {RETRY_MS}\ndata: \n\n").into_bytes());
        let stream = Stream(Rc::new(RefCell::new(Log {
            id,
            replay: ReplayLog::default(),
            live: Some(channel),
        })));
        let streams = state
            .streams
            .iter()
            .map(|(n, s)| (*n, s.0.borrow().replay.ended()));
        let old = forget_ended(streams.collect::<Vec<_>>());
        state.streams.retain(|(number, _)| !old.contains(number));
        state.streams.push((n, stream.clone()));
        stream
    }

    fn stream(&self, n: u64) -> Option<Stream<C>> {
        let state = self.0.borrow();
        let (_, stream) = state.streams.iter().find(|(number, _)| *number == n)?;
        Some(stream.clone())
    }

    /// Reattaches a client that last saw `last_event_id` (`s{stream}:{n}`): `channel` gets
    /// the events after it, then the rest live (the connection it replaces is closed).
    /// `false` for an unknown stream.
    pub fn resume(&self, last_event_id: &str, channel: &C) -> bool {
        let Some((n, seen)) = parse_event_id(last_event_id) else {
            return false;
        };
        let Some(stream) = self.stream(n) else {
            return false;
        };
        let mut log = stream.0.borrow_mut();
        for frame in log.replay.after(seen) {
            channel.send_raw(frame.clone());
        }
        if log.replay.ended() {
            channel.close();
        } else if let Some(old) = log.live.replace(channel.clone()) {
            old.close();
        }
        true
    }
}
