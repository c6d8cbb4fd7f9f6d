//! Resumable response streams (2025-11-25 transports "Resumability and Redelivery",
//! SEP-1699): every event of a session's response stream has an id `{stream}:{n}`; the
//! stream opens with a priming event (an id, a `retry` hint, no data), and a client whose
//! connection ended (or that the server disconnected on purpose) reconnects with `GET` and
//! `Last-Event-ID` to receive what it missed, then the rest as it comes.

use crate::cloudflare::sse::{Channel, event};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

/// How long a client should wait before reconnecting (the SSE `retry` field).
const RETRY_MS: u64 = 1000;
/// Ended streams kept for late reconnections.
const KEEP_ENDED: usize = 32;
/// Events kept per stream for a replay (the newest; a client that reconnects after more
/// than these missed the older ones).
const KEEP_EVENTS: usize = 1000;

struct Log {
    id: String,
    /// How many events the stream has sent (the last event's number).
    sent: usize,
    /// The newest events, numbered, oldest first.
    events: VecDeque<(usize, Vec<u8>)>,
    ended: bool,
    live: Option<Channel>,
}

/// The writing end of a resumable stream; clones share it.
#[derive(Clone)]
pub struct Stream(Rc<RefCell<Log>>);

impl Stream {
    fn frame(&self, json: &[u8]) -> Vec<u8> {
        let log = self.0.borrow();
        let mut frame = format!("id: {}:{}\n", log.id, log.sent + 1).into_bytes();
        frame.extend(event(json));
        frame
    }

    fn push(&self, frame: Vec<u8>, last: bool) {
        let mut log = self.0.borrow_mut();
        log.sent += 1;
        let n = log.sent;
        log.events.push_back((n, frame.clone()));
        if log.events.len() > KEEP_EVENTS {
            log.events.pop_front();
        }
        log.ended |= last;
        if let Some(live) = &log.live {
            live.send_raw(frame);
            if last {
                live.close();
            }
        }
    }

    /// Sends one JSON-RPC message.
    pub fn send(&self, json: &[u8]) {
        let frame = self.frame(json);
        self.push(frame, false);
    }

    /// Sends the response and ends the stream.
    pub fn finish(&self, json: &[u8]) {
        let frame = self.frame(json);
        self.push(frame, true);
    }

    /// Ends the client's connection now; the events still to come wait for a reconnection.
    pub fn disconnect(&self) {
        if let Some(live) = self.0.borrow_mut().live.take() {
            live.close();
        }
    }
}

/// A session's streams, by id.
#[derive(Clone, Default)]
pub struct Streams(Rc<RefCell<(u64, HashMap<String, Stream>)>>);

impl Streams {
    /// A new stream whose events go to `channel`, which gets the priming event first.
    pub fn open(&self, channel: Channel) -> Stream {
        let mut state = self.0.borrow_mut();
        state.0 += 1;
        let id = format!("s{}", state.0);
        channel.send_raw(format!("id: {id}:0\nretry: {RETRY_MS}\ndata: \n\n").into_bytes());
        let stream = Stream(Rc::new(RefCell::new(Log {
            id: id.clone(),
            sent: 0,
            events: VecDeque::new(),
            ended: false,
            live: Some(channel),
        })));
        let ended: Vec<String> = state
            .1
            .iter()
            .filter(|(_, s)| s.0.borrow().ended)
            .map(|(id, _)| id.clone())
            .collect();
        if ended.len() > KEEP_ENDED {
            for old in &ended[..ended.len() - KEEP_ENDED] {
                state.1.remove(old);
            }
        }
        state.1.insert(id, stream.clone());
        stream
    }

    /// Reattaches a client that last saw `last_event_id` (`{stream}:{n}`): `channel` gets
    /// the events after it, then the rest live. `false` for an unknown stream.
    pub fn resume(&self, last_event_id: &str, channel: &Channel) -> bool {
        let Some((id, seen)) = last_event_id.trim().rsplit_once(':') else {
            return false;
        };
        let Ok(seen) = seen.parse::<usize>() else {
            return false;
        };
        let Some(stream) = self.0.borrow().1.get(id).cloned() else {
            return false;
        };
        let mut log = stream.0.borrow_mut();
        for (_, frame) in log.events.iter().filter(|(n, _)| *n > seen) {
            channel.send_raw(frame.clone());
        }
        if log.ended {
            channel.close();
        } else {
            if let Some(old) = log.live.replace(channel.clone()) {
                old.close();
            }
        }
        true
    }
}
