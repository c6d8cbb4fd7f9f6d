//! The follower (`server::follower`) every follow of a task runs on (a job's wait, a
//! 2025-11-25 `tasks/result`), as a table: each of its modes (watching, polling with and
//! without a deadline, over) against each event, and the step it gives. A change in any
//! cell fails here; the executor (`cloudflare/watcher.rs`) only performs the steps.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::server::follower::{Event, Follower, Step};
use mcp_tasks_edge::tasks::watch::WatchMessage;
use serde_json::json;

const T0: u64 = 1_000_000;
const WAIT: u64 = 10_000;
const POLL: u64 = 100;

#[derive(Debug, Clone, Copy)]
enum Mode {
    /// Following the socket, with a deadline.
    Watching,
    /// Reading every poll interval (the socket budget spent), with a deadline.
    Polling,
    /// Reading every poll interval, without a deadline (`tasks/result`).
    PollingForEver,
    /// The deadline passed.
    Over,
}

fn follower(mode: Mode) -> Follower {
    let wait = match mode {
        Mode::PollingForEver => None,
        _ => Some(WAIT),
    };
    let (mut f, first) = Follower::start(T0, wait, POLL, 0);
    assert_eq!(first, Step::Open { after_ms: 0 });
    assert_eq!(f.next(T0, Event::Opened), listen(wait));
    match mode {
        Mode::Watching => {}
        Mode::Polling | Mode::PollingForEver => assert_eq!(f.next(T0, Event::Lost), Step::Read),
        Mode::Over => assert_eq!(f.next(T0 + WAIT, Event::Timer), Step::Over),
    }
    f
}

fn listen(wait: Option<u64>) -> Step {
    Step::Listen {
        until_ms: wait.map(|w| T0 + w),
    }
}

fn events() -> Vec<(&'static str, Event)> {
    vec![
        ("opened", Event::Opened),
        ("not found", Event::NotFound),
        ("lost", Event::Lost),
        (
            "pushed task",
            Event::Pushed(WatchMessage::Task {
                version: 2,
                task: json!({ "status": "working" }),
            }),
        ),
        (
            "pushed changed",
            Event::Pushed(WatchMessage::Changed { version: 3 }),
        ),
        ("pushed gone", Event::Pushed(WatchMessage::Gone)),
        ("timer", Event::Timer),
        ("taken", Event::Taken),
    ]
}

#[test]
fn every_mode_against_every_event() {
    let now = T0 + 500;
    let sleep = Step::Sleep {
        until_ms: now + POLL,
    };
    let task = Step::Deliver(json!({ "status": "working" }));
    // Each row: the step after each event, in the order of `events()`.
    let table = [
        // A lost socket with no reconnects left is read instead.
        (
            Mode::Watching,
            "listen not-found read deliver read not-found over listen",
        ),
        (
            Mode::Polling,
            "read not-found read read read not-found read sleep",
        ),
        (
            Mode::PollingForEver,
            "read not-found read read read not-found read sleep",
        ),
        (Mode::Over, "over over over over over over over over"),
    ];
    for (mode, row) in table {
        for ((name, event), expected) in events().into_iter().zip(row.split(' ')) {
            let expected = match expected {
                "listen" => listen(Some(WAIT)),
                "read" => Step::Read,
                "deliver" => task.clone(),
                "not-found" => Step::NotFound,
                "sleep" => sleep.clone(),
                "over" => Step::Over,
                other => unreachable!("{other}"),
            };
            let step = follower(mode).next(now, event);
            assert_eq!(step, expected, "{mode:?} × {name}");
        }
    }
}

#[test]
fn not_found_and_gone_end_the_follow() {
    for (name, event) in [
        ("not found", Event::NotFound),
        ("gone", Event::Pushed(WatchMessage::Gone)),
    ] {
        let mut f = follower(Mode::Watching);
        assert_eq!(f.next(T0, event), Step::NotFound, "{name}");
        assert_eq!(
            f.next(T0, Event::Taken),
            Step::Over,
            "{name}: nothing follows"
        );
    }
}

#[test]
fn a_lost_socket_is_reopened_as_listen_s_are_while_the_budget_and_the_wait_last() {
    let (mut f, _) = Follower::start(T0, Some(WAIT), POLL, 3);
    f.next(T0, Event::Opened);
    assert_eq!(f.next(T0, Event::Lost), Step::Open { after_ms: 250 });
    assert_eq!(f.next(T0, Event::Lost), Step::Open { after_ms: 1_000 });
    assert_eq!(f.next(T0, Event::Opened), listen(Some(WAIT)));
    assert_eq!(f.next(T0, Event::Lost), Step::Open { after_ms: 4_000 });
    // The budget is spent: read instead, every poll interval, until the deadline.
    assert_eq!(f.next(T0, Event::Lost), Step::Read);
    assert_eq!(
        f.next(T0, Event::Taken),
        Step::Sleep {
            until_ms: T0 + POLL
        }
    );
    // No time left to wait for a reopen: read at once instead.
    let (mut short, _) = Follower::start(T0, Some(200), POLL, 3);
    short.next(T0, Event::Opened);
    assert_eq!(short.next(T0, Event::Lost), Step::Read);
    // Without a deadline, every reopen is tried.
    let (mut endless, _) = Follower::start(T0, None, POLL, 1);
    endless.next(T0, Event::Opened);
    assert_eq!(
        endless.next(T0 + (1 << 40), Event::Lost),
        Step::Open { after_ms: 250 }
    );
}

#[test]
fn polling_sleeps_to_the_deadline_reads_once_more_then_is_over() {
    let mut f = follower(Mode::Polling);
    assert_eq!(
        f.next(T0 + WAIT - 30, Event::Taken),
        Step::Sleep {
            until_ms: T0 + WAIT
        }
    );
    assert_eq!(f.next(T0 + WAIT, Event::Timer), Step::Read);
    assert_eq!(f.next(T0 + WAIT, Event::Taken), Step::Over);
}

#[test]
fn a_wait_of_nothing_reads_once() {
    let (mut f, first) = Follower::start(T0, Some(0), POLL, 3);
    assert_eq!(first, Step::Read);
    assert_eq!(f.next(T0, Event::Taken), Step::Over);
}

#[test]
fn a_watched_follow_ends_at_its_deadline_and_a_changed_task_is_read() {
    let mut f = follower(Mode::Watching);
    assert_eq!(
        f.next(T0, Event::Pushed(WatchMessage::Changed { version: 9 })),
        Step::Read
    );
    assert_eq!(
        f.next(T0, Event::Taken),
        listen(Some(WAIT)),
        "back to the socket"
    );
    assert_eq!(f.next(T0 + WAIT, Event::Timer), Step::Over);
}
