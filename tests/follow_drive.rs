//! The follower's driver (`server::follower::Drive`) on a platform that only records and
//! answers as scripted: the socket opened first, pushed states handed over in order, a
//! lost socket closed and reopened after its backoff, a state too large to push read,
//! polling once the reopen budget is spent, and the follow over at its deadline. The
//! follower's decisions themselves: tests/follower_table.rs.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::server::follower::{Drive, Event, Follower, TaskWatch};
use mcp_tasks_edge::tasks::protocol::ObjectError;
use mcp_tasks_edge::tasks::watch::WatchMessage;
use serde_json::{Value, json};
use std::collections::VecDeque;

const T0: u64 = 1_000_000;
const POLL: u64 = 1_000;

#[derive(Debug, PartialEq)]
enum Did {
    Open,
    Listen(Option<u64>),
    Close,
    Read,
    Sleep(u64),
}

/// Records what the driver asks; opens, listens and reads answer the script in turn, and
/// a sleep moves the clock.
#[derive(Default)]
struct Platform {
    did: Vec<Did>,
    now: u64,
    events: VecDeque<Event>,
    reads: VecDeque<Result<Value, ObjectError>>,
}

impl Platform {
    fn scripted(events: Vec<Event>) -> Platform {
        Platform {
            now: T0,
            events: events.into(),
            ..Platform::default()
        }
    }

    fn answer(&mut self) -> Event {
        self.events
            .pop_front()
            .expect("the script covers every wait")
    }
}

impl TaskWatch for Platform {
    async fn open(&mut self) -> Event {
        self.did.push(Did::Open);
        self.answer()
    }
    async fn listen(&mut self, until_ms: Option<u64>) -> Event {
        self.did.push(Did::Listen(until_ms));
        let event = self.answer();
        if let (Event::Timer, Some(until)) = (&event, until_ms) {
            self.now = until;
        }
        event
    }
    fn close(&mut self) {
        self.did.push(Did::Close);
    }
    async fn read(&mut self) -> Result<Value, ObjectError> {
        self.did.push(Did::Read);
        self.reads
            .pop_front()
            .expect("the script covers every read")
    }
    async fn sleep(&mut self, ms: u64) {
        self.did.push(Did::Sleep(ms));
        self.now += ms;
    }
    fn now_ms(&self) -> u64 {
        self.now
    }
}

fn state(status: &str) -> Value {
    json!({ "taskId": "t", "status": status })
}

fn pushed(version: u64, status: &str) -> Event {
    Event::Pushed(WatchMessage::Task {
        version,
        task: state(status),
    })
}

/// Every state the follow hands over, to its end.
fn follow(drive: &mut Drive, p: &mut Platform) -> Vec<Result<Value, ObjectError>> {
    std::iter::from_fn(|| block_on(drive.next(p))).collect()
}

#[test]
fn pushed_states_come_in_order_and_a_lost_socket_is_reopened_after_its_backoff() {
    let script = vec![
        Event::Opened,
        pushed(1, "working"),
        Event::Lost,
        Event::Opened,
        Event::Pushed(WatchMessage::Changed { version: 2 }),
        pushed(3, "completed"),
        Event::Timer,
    ];
    let mut p = Platform::scripted(script);
    p.reads.push_back(Ok(state("input_required")));
    let mut drive = Drive::new(Follower::start(T0, Some(5_000), POLL, 3));
    let states = follow(&mut drive, &mut p);
    let statuses: Vec<_> = states
        .iter()
        .map(|s| s.as_ref().unwrap()["status"].clone())
        .collect();
    assert_eq!(statuses, ["working", "input_required", "completed"]);
    let until = Some(T0 + 5_000);
    assert_eq!(
        p.did,
        [
            Did::Open,
            Did::Listen(until),
            Did::Listen(until),
            Did::Close,
            Did::Sleep(250),
            Did::Open,
            Did::Listen(until),
            Did::Read,
            Did::Listen(until),
            Did::Listen(until),
        ]
    );
    assert!(
        block_on(drive.next(&mut p)).is_none(),
        "over at its deadline"
    );
}

#[test]
fn past_the_reopen_budget_the_task_is_read_every_poll_interval_until_the_deadline() {
    let script = vec![Event::Opened, Event::Lost];
    let mut p = Platform::scripted(script);
    p.reads.extend([0, 1, 2].map(|_| Ok(state("working"))));
    let mut drive = Drive::new(Follower::start(T0, Some(1_500), POLL, 0));
    assert_eq!(follow(&mut drive, &mut p).len(), 3);
    assert_eq!(
        p.did,
        [
            Did::Open,
            Did::Listen(Some(T0 + 1_500)),
            Did::Close,
            Did::Read,
            Did::Sleep(1_000),
            Did::Read,
            Did::Sleep(500),
            Did::Read,
        ],
        "once more at the deadline"
    );
}

#[test]
fn a_refused_socket_or_a_gone_task_ends_the_follow_as_not_found() {
    let not_found = || Err(ObjectError::Refused(McpError::TaskNotFound.to_wire()));
    for script in [
        vec![Event::NotFound],
        vec![Event::Opened, Event::Pushed(WatchMessage::Gone)],
    ] {
        let mut p = Platform::scripted(script);
        let mut drive = Drive::new(Follower::start(T0, None, POLL, 3));
        assert_eq!(follow(&mut drive, &mut p), [not_found()]);
    }
}
