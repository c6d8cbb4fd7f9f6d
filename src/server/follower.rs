//! How a request follows one task, for everything that follows one (a job's wait,
//! 2025-11-25 `tasks/result`): on the task's watch socket while it has one (one object
//! request however long the wait), reopened as a listen stream's are when it is lost
//! ([`Reconnects`]: 250 ms, 1 s, 4 s, at most `LISTEN_RECONNECTS` times), else by reading
//! the task every [`Config::server_poll_ms`](super::Config::server_poll_ms); until the
//! wait's deadline, if it has one. Pure, like [`super::fanin::Fanin`]: the adapter
//! performs each [`Step`] and reports what came of it as an [`Event`]; what a state means
//! is its caller's (`jobs::Follow`, `legacy::result_loop`). [`Drive`] is the one executor
//! of its steps.

mod drive;

pub use drive::{Drive, TaskWatch};

use super::config::Config;
use super::fanin::Reconnects;
use crate::tasks::watch::WatchMessage;
use serde_json::Value;

/// What the adapter does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Open the task's watch socket after `after_ms`; report [`Event::Opened`],
    /// [`Event::NotFound`] or [`Event::Lost`].
    Open { after_ms: u64 },
    /// Wait for the socket's next message until `until_ms` (for ever without one); report
    /// [`Event::Pushed`], [`Event::Lost`] or [`Event::Timer`].
    Listen { until_ms: Option<u64> },
    /// Read the task, hand its state (or the refusal) to the caller, then report
    /// [`Event::Taken`].
    Read,
    /// Sleep until `until_ms`, then report [`Event::Timer`].
    Sleep { until_ms: u64 },
    /// Hand this state to the caller, then report [`Event::Taken`].
    Deliver(Value),
    /// Tell the caller the task is not its to see (unknown, expired, someone else's);
    /// the follow is over.
    NotFound,
    /// The wait is over without an answer.
    Over,
}

/// What came of a [`Step`].
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The socket is open: its first message is the current state.
    Opened,
    /// The object refused the socket: the task is not the caller's to see.
    NotFound,
    /// The socket could not be opened, or was lost (a crashed or evicted object).
    Lost,
    /// A message on the socket.
    Pushed(WatchMessage),
    /// The time of a [`Step::Listen`] or [`Step::Sleep`] came.
    Timer,
    /// The caller took the state it was handed.
    Taken,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Watching,
    Polling,
    Over,
}

/// The follow of one task by one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Follower {
    mode: Mode,
    deadline_ms: Option<u64>,
    poll_ms: u64,
    reconnects: Reconnects,
}

impl Follower {
    /// A follow starting at `now_ms`: `wait_ms` (none: until the caller has its answer)
    /// bounds it, `poll_ms` paces reads, `reconnects` bounds reopening a lost socket.
    /// Its first step: open the socket, or, when there is no time to wait, read once.
    pub fn start(
        now_ms: u64,
        wait_ms: Option<u64>,
        poll_ms: u64,
        reconnects: u32,
    ) -> (Follower, Step) {
        let mut follower = Follower {
            mode: Mode::Watching,
            deadline_ms: wait_ms.map(|wait| now_ms.saturating_add(wait)),
            poll_ms,
            reconnects: Reconnects::new(reconnects),
        };
        let first = match wait_ms {
            Some(0) => follower.poll(),
            _ => Step::Open { after_ms: 0 },
        };
        (follower, first)
    }

    /// [`Follower::start`] at the server's pace: its poll interval between pushed states,
    /// and its listen streams' budget for reopening a lost socket.
    pub fn of_server(config: &Config, now_ms: u64, wait_ms: Option<u64>) -> (Follower, Step) {
        let (poll_ms, reconnects) = (config.server_poll_ms(), config.listen_reconnects);
        Follower::start(now_ms, wait_ms, poll_ms, reconnects)
    }

    /// The next step after `event`, at `now_ms`.
    pub fn next(&mut self, now_ms: u64, event: Event) -> Step {
        match (self.mode, event) {
            (Mode::Over, _) => Step::Over,
            (_, Event::NotFound) | (_, Event::Pushed(WatchMessage::Gone)) => {
                self.mode = Mode::Over;
                Step::NotFound
            }
            (Mode::Watching, Event::Opened | Event::Taken) => self.listen(),
            (Mode::Watching, Event::Pushed(WatchMessage::Task { task, .. })) => Step::Deliver(task),
            // Too large to push: read it.
            (Mode::Watching, Event::Pushed(WatchMessage::Changed { .. })) => Step::Read,
            (Mode::Watching, Event::Lost) => match self.reconnects.lost() {
                Some(after_ms) if self.left(now_ms).is_none_or(|left| after_ms < left) => {
                    Step::Open { after_ms }
                }
                // Past the budget, or no time left to reopen it: read instead.
                _ => self.poll(),
            },
            (Mode::Watching, Event::Timer) => self.over(),
            (Mode::Polling, Event::Taken) => match self.left(now_ms) {
                Some(0) => self.over(),
                left => Step::Sleep {
                    until_ms: now_ms + left.map_or(self.poll_ms, |left| left.min(self.poll_ms)),
                },
            },
            (Mode::Polling, Event::Timer) => Step::Read,
            // Nothing a polling follow waits for: a late report of a socket it dropped.
            (Mode::Polling, Event::Opened | Event::Lost | Event::Pushed(_)) => Step::Read,
        }
    }

    fn listen(&self) -> Step {
        Step::Listen {
            until_ms: self.deadline_ms,
        }
    }

    fn poll(&mut self) -> Step {
        self.mode = Mode::Polling;
        Step::Read
    }

    fn over(&mut self) -> Step {
        self.mode = Mode::Over;
        Step::Over
    }

    /// The time left before the deadline (none without one).
    fn left(&self, now_ms: u64) -> Option<u64> {
        self.deadline_ms
            .map(|deadline| deadline.saturating_sub(now_ms))
    }
}
