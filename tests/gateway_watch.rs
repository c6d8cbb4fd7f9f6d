//! The watcher of one upstream (`objects::upstream`): what it decides (start at the first
//! ask, note asks at most every minute, set a lost alarm again, hold while asked, count
//! each change, retry later after each failure, erase itself once unasked), and its runner
//! over storage only. One hold of an upstream's stream: tests/gateway_hold.rs.
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

mod common;

use common::upstream::{changed, legacy, watched_settings};
use mcp_tasks_edge::gateway::watch::{Heard, Held, Record};
use mcp_tasks_edge::host::fake::FakeHost;
use mcp_tasks_edge::host::{Host, block_on};
use mcp_tasks_edge::objects::Write;
use mcp_tasks_edge::objects::upstream::{self as object, IDLE_MS, Wake, WatchPlatform};
use mcp_tasks_edge::tasks::protocol::ObjectReply;
use serde_json::json;
use std::cell::{Cell, RefCell};

const NOW: u64 = 1_764_066_600_000;

/// A watcher's storage: its one row and its alarm, and every write issued.
#[derive(Default)]
struct Store {
    row: RefCell<Option<String>>,
    alarm: Cell<Option<u64>>,
    writes: RefCell<Vec<Write>>,
    now: Cell<u64>,
    /// Changes announced to the sessions.
    announced: Cell<u32>,
}

impl WatchPlatform for Store {
    async fn record(&self) -> Result<Option<String>, String> {
        Ok(self.row.borrow().clone())
    }
    async fn write(&self, write: Write) -> Result<(), String> {
        if write.erase {
            *self.row.borrow_mut() = None;
            self.alarm.set(None);
        }
        for (_, value) in &write.put {
            *self.row.borrow_mut() = Some(value.clone());
        }
        if let Some(alarm) = write.alarm {
            self.alarm.set(alarm);
        }
        self.writes.borrow_mut().push(write);
        Ok(())
    }
    fn now_ms(&self) -> u64 {
        self.now.get()
    }
    async fn announce(&self) {
        self.announced.set(self.announced.get() + 1);
    }
}

fn ask(store: &Store) -> Heard {
    let body = serde_json::to_vec(&json!({ "upstream": "up" })).unwrap();
    match block_on(object::serve(store, Ok(body))) {
        ObjectReply::Result(heard) => serde_json::from_value(heard).unwrap(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_first_ask_starts_the_watcher_and_asks_are_noted_at_most_every_minute() {
    let store = Store::default();
    store.now.set(NOW);
    assert_eq!(
        ask(&store),
        Heard {
            since_ms: NOW,
            changes: 0
        }
    );
    assert_eq!(store.alarm.get(), Some(NOW), "the first hold at once");
    store.now.set(NOW + 59_999);
    ask(&store);
    assert_eq!(
        store.writes.borrow().len(),
        1,
        "an ask within the minute writes nothing"
    );
    store.now.set(NOW + 60_000);
    ask(&store);
    let writes = store.writes.borrow();
    assert_eq!(
        (writes.len(), writes[1].alarm),
        (2, None),
        "noted, the alarm left"
    );
}

#[test]
fn the_alarm_holds_while_asked_and_stops_once_unasked() {
    let (heard, write) = object::ask(None, "up", NOW);
    let record = serde_json::from_str(&write.unwrap().put[0].1).unwrap();
    assert_eq!(heard.changes, 0);
    let woke = NOW + IDLE_MS - 1;
    let Wake::Hold {
        upstream,
        until_ms,
        write,
    } = object::wake(Some(record), woke)
    else {
        panic!("asked: holds")
    };
    assert_eq!(
        (upstream.as_str(), until_ms),
        ("up", woke + object::HOLD_MS)
    );
    let noted: Record = serde_json::from_str(&write.put[0].1).unwrap();
    assert_eq!(
        (noted.due_ms, write.alarm),
        (until_ms, None),
        "the hold's end noted as due"
    );
    let (_, write) = object::ask(None, "up", NOW);
    let record = serde_json::from_str(&write.unwrap().put[0].1).unwrap();
    let Wake::Stop(erase) = object::wake(Some(record), NOW + IDLE_MS) else {
        panic!("holds unasked")
    };
    assert!(erase.erase);
    assert!(
        matches!(object::wake(None, NOW), Wake::Stop(_)),
        "no record: nothing runs"
    );
}

#[test]
fn an_ask_sets_a_lost_alarm_again() {
    let (_, write) = object::ask(None, "up", NOW);
    let record: Record = serde_json::from_str(&write.unwrap().put[0].1).unwrap();
    let (_, kept) = object::ask(Some(record.clone()), "up", NOW + 60_000);
    assert_eq!(kept.unwrap().alarm, None, "due a minute ago: not lost yet");
    let (_, again) = object::ask(Some(record), "up", NOW + 60_001);
    let again = again.unwrap();
    assert_eq!(
        again.alarm,
        Some(Some(NOW + 60_001)),
        "its retries spent: set again"
    );
    let noted: Record = serde_json::from_str(&again.put[0].1).unwrap();
    assert_eq!(noted.due_ms, NOW + 60_001);
}

#[test]
fn after_a_hold_the_next_is_at_once_soon_or_later_after_each_failure() {
    let record = || {
        let (_, write) = object::ask(None, "up", NOW);
        Some(serde_json::from_str(&write.unwrap().put[0].1).unwrap())
    };
    let next = |held: &Held, began: u64, stored| {
        object::held(stored, held, began, NOW + 100_000)
            .unwrap()
            .alarm
            .unwrap()
            .unwrap()
            - (NOW + 100_000)
    };
    assert_eq!(next(&Held::Deadline, NOW, record()), 0);
    assert_eq!(
        next(&Held::Ended, NOW, record()),
        1_000,
        "a long stream ended: soon"
    );
    assert_eq!(
        next(&Held::Ended, NOW + 99_000, record()),
        2_000,
        "ended at once: a failure"
    );
    let failed = Held::Failed("HTTP 405".into());
    assert_eq!(next(&failed, NOW, record()), 2_000);
    let mut stored: Option<Record> = record();
    let mut waits = Vec::new();
    for _ in 0..12 {
        let write = object::held(stored, &failed, NOW, NOW + 100_000).unwrap();
        waits.push(write.alarm.unwrap().unwrap() - (NOW + 100_000));
        stored = Some(serde_json::from_str(&write.put[0].1).unwrap());
    }
    assert_eq!(waits[..4], [2_000, 4_000, 8_000, 16_000]);
    assert_eq!(waits[11], 300_000, "at most five minutes");
    assert_eq!(
        object::held(None, &Held::Deadline, NOW, NOW),
        None,
        "erased meanwhile: nothing"
    );
}

#[test]
fn an_alarm_counts_what_it_heard_announces_it_after_the_check_and_sets_the_next_one() {
    let store = Store::default();
    store.now.set(NOW);
    ask(&store);
    let fake = legacy(vec![changed(), changed(), changed()]);
    let ended = block_on(object::alarm(
        &store,
        &Host::new(fake.clone()),
        &watched_settings(),
    ))
    .unwrap();
    assert_eq!(ended, Some(("up".into(), Held::Ended)));
    assert_eq!(store.announced.get(), 3, "each change told to the sessions");
    assert_eq!(
        fake.slept_ms(),
        3 * (1_000 + 250),
        "each after UPSTREAM_WATCH_CHECK_MS: every isolate asked since"
    );
    assert_eq!(
        ask(&store),
        Heard {
            since_ms: NOW,
            changes: 3
        }
    );
    assert_eq!(
        store.alarm.get(),
        Some(NOW + 2_000),
        "ended at once: a failure's retry"
    );
    store.now.set(NOW + IDLE_MS);
    let stopped = block_on(object::alarm(
        &store,
        &Host::new(FakeHost::new()),
        &watched_settings(),
    ))
    .unwrap();
    assert_eq!(
        (stopped, store.row.borrow().clone()),
        (None, None),
        "unasked: erased"
    );
    let bad = block_on(object::serve(&store, Ok(b"{}".to_vec())));
    assert!(matches!(bad, ObjectReply::Error(e) if e.message.contains("does not decode")));
}
