//! The bounds of a 2025-11-25 session's streams, decided here (pure): its GET streams
//! ([`GetStreams`]: at most [`MAX_GET_STREAMS`] open, a newer one closing the oldest) and
//! the replay logs of its response streams ([`ReplayLog`]: the newest [`KEEP_EVENTS`]
//! events of each; of the ended ones, the [`KEEP_ENDED`] opened last, [`forget_ended`]).
//! The session object (`cloudflare::session_object`) holds them with its channels.

use super::questions::StreamId;
use std::collections::VecDeque;

/// GET streams a session keeps open at once; a newer one closes the oldest.
pub const MAX_GET_STREAMS: usize = 4;
/// Events kept per response stream for a replay (the newest; a client that reconnects
/// after more than these missed the older ones).
pub const KEEP_EVENTS: usize = 1000;
/// Ended response streams kept for late reconnections (the ones opened last).
pub const KEEP_ENDED: usize = 32;

/// What the session object's streams offer: whether the client went away, and closing.
pub trait Closable: Clone {
    fn is_finished(&self) -> bool;
    fn close(&self);
}

/// The platform's SSE bodies are closable.
impl Closable for crate::http::channel::Channel {
    fn is_finished(&self) -> bool {
        crate::http::channel::Channel::is_finished(self)
    }

    fn close(&self) {
        crate::http::channel::Channel::close(self)
    }
}

/// The session's open GET streams, numbered (a number is never reused).
pub struct GetStreams<C> {
    open: Vec<(StreamId, C)>,
    next: StreamId,
}

impl<C> Default for GetStreams<C> {
    fn default() -> Self {
        GetStreams {
            open: Vec::new(),
            next: 0,
        }
    }
}

impl<C: Closable> GetStreams<C> {
    /// Adds a stream; with [`MAX_GET_STREAMS`] open already, the oldest is closed first.
    pub fn push(&mut self, stream: C) {
        self.open.retain(|(_, s)| !s.is_finished());
        if self.open.len() >= MAX_GET_STREAMS {
            self.open.remove(0).1.close();
        }
        self.next += 1;
        self.open.push((self.next, stream));
    }

    /// The streams still open (finished ones are dropped).
    pub fn live(&mut self) -> Vec<(StreamId, C)> {
        self.open.retain(|(_, s)| !s.is_finished());
        self.open.clone()
    }

    /// Closes every stream (the session ends).
    pub fn close_all(&mut self) {
        for (_, stream) in self.open.drain(..) {
            stream.close();
        }
    }
}

/// One response stream's events, numbered from 1, the newest [`KEEP_EVENTS`] kept.
pub struct ReplayLog<F> {
    sent: usize,
    events: VecDeque<(usize, F)>,
    ended: bool,
}

impl<F> Default for ReplayLog<F> {
    fn default() -> Self {
        ReplayLog {
            sent: 0,
            events: VecDeque::new(),
            ended: false,
        }
    }
}

impl<F> ReplayLog<F> {
    /// How many events the stream has sent (the last one's number).
    pub fn sent(&self) -> usize {
        self.sent
    }

    /// Whether the stream sent its last event.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Records the next event (`last`: the stream ends with it); its number.
    pub fn push(&mut self, frame: F, last: bool) -> usize {
        self.sent += 1;
        self.events.push_back((self.sent, frame));
        if self.events.len() > KEEP_EVENTS {
            self.events.pop_front();
        }
        self.ended |= last;
        self.sent
    }

    /// The events kept after number `seen`, oldest first.
    pub fn after(&self, seen: usize) -> impl Iterator<Item = &F> {
        self.events
            .iter()
            .filter(move |(n, _)| *n > seen)
            .map(|(_, frame)| frame)
    }
}

/// The stream number and event number of a `Last-Event-ID` (`s{stream}:{event}`).
pub fn parse_event_id(last_event_id: &str) -> Option<(u64, usize)> {
    let (stream, seen) = last_event_id.trim().rsplit_once(':')?;
    Some((stream.strip_prefix('s')?.parse().ok()?, seen.parse().ok()?))
}

/// Of a session's response streams (number, ended), the ended ones to forget so that at
/// most [`KEEP_ENDED`] remain: the lowest numbers, opened first. Streams still sending are
/// never forgotten.
pub fn forget_ended(streams: impl IntoIterator<Item = (u64, bool)>) -> Vec<u64> {
    let mut ended: Vec<u64> = streams
        .into_iter()
        .filter(|(_, ended)| *ended)
        .map(|(n, _)| n)
        .collect();
    let extra = ended.len().saturating_sub(KEEP_ENDED);
    // The `extra` lowest, lowest first, picked one by one rather than sorted: a sort of
    // `u64`s would be the Worker's only one, and `extra` is 1 when a stream opens.
    let mut forget = Vec::with_capacity(extra);
    for _ in 0..extra {
        let Some((at, _)) = ended.iter().enumerate().min_by_key(|(_, n)| **n) else {
            break;
        };
        forget.push(ended.swap_remove(at));
    }
    forget
}
