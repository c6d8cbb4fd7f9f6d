//! Hearing an upstream's `notifications/tools/list_changed`, so that a gateway's isolates
//! list it again about a second after it changed instead of at `UPSTREAM_LIST_TTL_MS`.
//!
//! Only a standing connection hears it: a 2025-11-25 server sends it on the session's GET
//! stream (2025-11-25 basic/transports, "Listening for Messages from the Server"), a
//! 2026-07-28 one on a `subscriptions/listen` stream that asked for `toolsListChanged`
//! (2026-07-28 basic/patterns/subscriptions). A Worker's request cannot hold one, so each
//! upstream that declares `tools.listChanged` has a watcher: a Durable Object named by the
//! upstream, whose alarm holds the stream ([`hold`]) and counts what it hears. Isolates
//! [`Ask`] it at most every `UPSTREAM_WATCH_CHECK_MS` and list the upstream again when the
//! count moved (`server::upstreams`). Asking keeps a watcher alive; unasked for
//! ten minutes it erases itself. The TTL stays the backstop: a change made while no stream
//! is held (between two holds, or before the first) is not heard.
//!
//! This module is what is said and held; the object's runner, which decides and stores,
//! is `objects::upstream`.

mod hold;

pub use hold::{Held, hold};

use crate::ops::log::{Level, Line};
use crate::tasks::calls::{Call, CallError, Calls, Class};
use crate::tasks::protocol::ObjectReply;
use serde::{Deserialize, Serialize};

/// An isolate's request: the watcher's count for `upstream` (the name the object is named
/// by, in `UPSTREAMS`), which also starts the watcher or keeps it alive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ask {
    pub upstream: String,
}

/// What a watcher has heard: the changes counted since it began at `since_ms`. A watcher
/// that stopped and began again counts from 0 with another `since_ms`, so an isolate
/// compares both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Heard {
    pub since_ms: u64,
    pub changes: u64,
}

/// The URL watchers are asked at (never routed: only the body matters).
pub const WATCH_URL: &str = "https://upstream-object/watch";

/// What `upstream`'s watcher heard (asking it starts it, or keeps it running); `None`
/// when the deployment binds no watchers.
pub async fn ask(calls: &impl Calls, upstream: &str) -> Option<Result<Heard, String>> {
    let request = Ask {
        upstream: upstream.to_owned(),
    };
    let call = Call {
        class: Class::Watchers,
        name: upstream,
        url: WATCH_URL,
        headers: &[("content-type", "application/json")],
        body: serde_json::to_string(&request).expect("a struct of strings serializes"),
    };
    let reply = match calls.call(call).await {
        Err(CallError::Unbound(_)) => return None,
        reply => reply.map_err(|e| e.to_string()),
    };
    let heard = ObjectReply::outcome(reply).map_err(|e| e.to_string());
    Some(heard.and_then(|heard| {
        crate::jsonrpc::from_value(heard)
            .map_err(|e| format!("a watcher's answer that does not decode: {e}"))
    }))
}

/// The stored record of a running watcher (none: stopped).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub upstream: String,
    pub heard: Heard,
    pub asked_at_ms: u64,
    /// Holds that failed in a row (the retry waits longer after each).
    pub failures: u32,
    /// By when the watcher acts next: its alarm, or the end of the hold under way. Long
    /// past, the alarm was lost (its retries spent), and an ask sets it again.
    pub due_ms: u64,
}

/// The log line of an alarm that ended as `held` (`None`: the watcher stopped, unasked).
pub fn line(held: Option<&(String, Held)>) -> Line {
    let Some((upstream, held)) = held else {
        return Line::new("upstream.watch.stopped", Level::Info);
    };
    let line = |level| Line::new("upstream.watch", level).field("upstream", upstream.as_str());
    match held {
        Held::Deadline => line(Level::Debug).field("outcome", "held"),
        Held::Ended => line(Level::Info).field("outcome", "ended"),
        Held::Failed(why) => line(Level::Warn).field("outcome", "failed").error(why),
    }
}
