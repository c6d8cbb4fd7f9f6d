//! The bounds of a 2025-11-25 session's streams (`src/legacy/replay.rs`): at most
//! `MAX_GET_STREAMS` GET streams (a newer one closes the oldest), the newest `KEEP_EVENTS`
//! events of a response stream for a replay, and the `KEEP_ENDED` ended streams opened last.

use mcp_tasks_edge::legacy::replay::{
    Closable, GetStreams, KEEP_ENDED, KEEP_EVENTS, MAX_GET_STREAMS, ReplayLog, forget_ended,
    parse_event_id,
};
use std::cell::Cell;
use std::rc::Rc;

/// A stream that records whether it was closed, and whether its client went away.
#[derive(Clone, Default)]
struct Fake {
    closed: Rc<Cell<bool>>,
    gone: Rc<Cell<bool>>,
}

impl Closable for Fake {
    fn is_finished(&self) -> bool {
        self.closed.get() || self.gone.get()
    }

    fn close(&self) {
        self.closed.set(true);
    }
}

#[test]
fn a_session_keeps_at_most_max_get_streams_closing_the_oldest() {
    let mut streams = GetStreams::default();
    let opened: Vec<Fake> = (0..MAX_GET_STREAMS + 2).map(|_| Fake::default()).collect();
    for stream in &opened[..MAX_GET_STREAMS] {
        streams.push(stream.clone());
    }
    assert!(opened.iter().all(|s| !s.closed.get()));
    streams.push(opened[MAX_GET_STREAMS].clone());
    assert!(opened[0].closed.get(), "the oldest is closed");
    assert_eq!(streams.live().len(), MAX_GET_STREAMS);
    // A stream whose client went away frees its place: nothing else is closed.
    opened[2].gone.set(true);
    streams.push(opened[MAX_GET_STREAMS + 1].clone());
    assert!(!opened[1].closed.get());
    let ids: Vec<u64> = streams.live().iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [2, 4, 5, 6], "numbers are never reused");
    streams.close_all();
    assert!(opened.iter().all(|s| s.is_finished()));
    assert!(streams.live().is_empty());
}

#[test]
fn a_replay_holds_the_newest_keep_events() {
    let mut log = ReplayLog::default();
    for n in 1..=KEEP_EVENTS + 5 {
        assert_eq!(log.push(n, n == KEEP_EVENTS + 5), n);
    }
    assert!(log.ended());
    let all: Vec<usize> = log.after(0).copied().collect();
    assert_eq!(all.len(), KEEP_EVENTS);
    assert_eq!((all[0], *all.last().unwrap()), (6, KEEP_EVENTS + 5));
    let missed: Vec<usize> = log.after(KEEP_EVENTS + 3).copied().collect();
    assert_eq!(missed, [KEEP_EVENTS + 4, KEEP_EVENTS + 5]);
    assert_eq!(log.after(KEEP_EVENTS + 5).count(), 0);
}

#[test]
fn the_ended_streams_opened_last_are_kept() {
    // Stream numbers past 9 on purpose: "s10" sorts before "s2" as text, not as an age.
    let extra = 8;
    let streams: Vec<(u64, bool)> = (1..=(KEEP_ENDED + extra) as u64)
        .map(|n| (n, true))
        .collect();
    let forgotten = forget_ended(streams.clone());
    assert_eq!(forgotten, (1..=extra as u64).collect::<Vec<_>>());
    // Streams still sending are never forgotten, nor counted.
    let mut mixed = streams;
    mixed.extend((100..110).map(|n| (n, false)));
    mixed[0].1 = false;
    let forgotten = forget_ended(mixed);
    assert_eq!(forgotten, (2..=extra as u64).collect::<Vec<_>>());
    assert!(forget_ended((1..=KEEP_ENDED as u64).map(|n| (n, true))).is_empty());
    // In any order given, the lowest go, lowest first.
    let shuffled = (1..=(KEEP_ENDED + extra) as u64)
        .rev()
        .map(|n| (n * 7 % 41, true));
    let lowest: Vec<u64> = {
        let mut all: Vec<u64> = (1..=(KEEP_ENDED + extra) as u64)
            .map(|n| n * 7 % 41)
            .collect();
        all.sort_unstable();
        all.truncate(extra);
        all
    };
    assert_eq!(forget_ended(shuffled), lowest);
}

#[test]
fn last_event_ids_parse_or_are_unknown() {
    assert_eq!(parse_event_id("s12:40"), Some((12, 40)));
    assert_eq!(parse_event_id(" s1:0 "), Some((1, 0)));
    for bad in ["", "s1", "12:40", "s:1", "sx:1", "s1:-1", "s1:x", "t1:1"] {
        assert_eq!(parse_event_id(bad), None, "{bad}");
    }
}
