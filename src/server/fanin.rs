//! The decisions of a `subscriptions/listen` stream fed by pushes (docs/architecture.md,
//! "`subscriptions/listen` is pushed, not polled"), as a pure state machine: the adapter opens one WebSocket per watched
//! task to its object (`tasks::watch`), feeds what happens into a [`Fanin`] and carries
//! out the [`Command`]s it returns. No I/O, no clock: `now_ms` is an argument.
//!
//! # Rules
//!
//! ```text
//! start          open every requested task's socket at once
//! all opened     ack the tasks whose object accepted (unknown/expired/not yours: left out),
//!                then each accepted task's current state
//! message        forwarded only if its version is newer than the last forwarded
//!                (per-task order; intermediate states may be coalesced, never reordered)
//! terminal task  its socket is closed; once every accepted task is terminal (or gone):
//!                the graceful SubscriptionsListenResult, then the end
//! socket lost    reopened after a backoff (250 ms, 1 s, 4 s), at most `reconnects` times
//!                per task per stream; the reopened socket's first message is the current
//!                state, so nothing is missed. Past the budget: the stream ends WITHOUT
//!                the result (an error, not a clean close), so the client reconnects.
//! max_stream_ms  the stream ends without the result (renewal: the client reconnects)
//!                before the platform's limits could cut it
//! quiet 15 s     a keep-alive comment
//! tools          (toolsListChanged accepted) every UPSTREAM_WATCH_CHECK_MS the tool list
//!                is looked at again; one that differs from the last seen is told
//!                (notifications/tools/list_changed); such a stream does not end when
//!                its tasks do
//! ```
//!
//! Subrequests: a stream makes at most `tasks × (1 + reconnects)` socket opens plus one
//! `get` per pushed-too-large state (a completed task's big result), so 100 tasks with
//! 3 reconnects stay under 1,000 (the Workers Paid per-invocation limit).

mod drive;
mod socket;

pub use drive::{Drive, Watching, Woken};
pub use socket::{OpenSockets, Opened, Reconnects, backoff_ms};

use super::listen::{KEEPALIVE_MS, Listen, StreamLimits, is_terminal};
use crate::tasks::watch::WatchMessage;
use serde_json::Value;

/// What the adapter must do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Write these bytes to the SSE stream.
    Send(Vec<u8>),
    /// Open (or reopen) the task's socket after `after_ms` and report with [`Fanin::opened`].
    Open { task_id: String, after_ms: u64 },
    /// Close the task's socket: nothing more is needed from it.
    Close { task_id: String },
    /// Read the task with an ordinary `get` and report with [`Fanin::fetched`] (a state
    /// too large to push).
    Get { task_id: String, version: u64 },
    /// Look at the tool list again and report its generation with [`Fanin::tools`].
    CheckTools,
    /// End the stream (after the `Send`s before it). `graceful` tells whether the
    /// SubscriptionsListenResult was sent.
    End { graceful: bool },
}

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Opening,
    Open,
    /// Terminal or gone: nothing more will come.
    Done,
    /// Not acknowledged (the caller cannot see it).
    Refused,
}

#[derive(Debug, Clone)]
struct Watched {
    task_id: String,
    phase: Phase,
    /// The version of `last`.
    version: u64,
    /// The last state forwarded (or to forward at the ack).
    last: Option<Value>,
    reconnects: Reconnects,
}

/// One stream's state.
#[derive(Debug)]
pub struct Fanin {
    listen: Listen,
    limits: StreamLimits,
    tasks: Vec<Watched>,
    acked: bool,
    ended: bool,
    started_ms: u64,
    last_sent_ms: u64,
    /// When to look at the tool list again (toolsListChanged accepted: `listen.tools`
    /// holds it as last seen).
    tools_due_ms: Option<u64>,
}

impl Fanin {
    /// A new stream and its first commands (open every task; or, with none, the ack).
    pub fn start(listen: Listen, limits: StreamLimits, now_ms: u64) -> (Fanin, Vec<Command>) {
        let tasks = listen
            .task_ids
            .iter()
            .map(|id| Watched {
                task_id: id.clone(),
                phase: Phase::Opening,
                version: 0,
                last: None,
                reconnects: Reconnects::new(limits.reconnects),
            })
            .collect();
        let tools_due_ms = listen.tools.map(|t| now_ms + t.every_ms);
        let mut fanin = Fanin {
            listen,
            limits,
            tasks,
            acked: false,
            ended: false,
            started_ms: now_ms,
            last_sent_ms: now_ms,
            tools_due_ms,
        };
        let mut out: Vec<Command> = fanin
            .tasks
            .iter()
            .map(|w| Command::Open {
                task_id: w.task_id.clone(),
                after_ms: 0,
            })
            .collect();
        fanin.settle(now_ms, &mut out);
        (fanin, out)
    }

    /// Whether the stream is over (no more commands will come).
    pub fn ended(&self) -> bool {
        self.ended
    }

    fn find(&mut self, task_id: &str) -> Option<&mut Watched> {
        self.tasks.iter_mut().find(|w| w.task_id == task_id)
    }

    fn send(&mut self, bytes: Vec<u8>, now_ms: u64, out: &mut Vec<Command>) {
        self.last_sent_ms = now_ms;
        out.push(Command::Send(bytes));
    }

    fn end(&mut self, graceful: bool, now_ms: u64, out: &mut Vec<Command>) {
        if self.ended {
            return;
        }
        if graceful {
            let closed = self.listen.closed();
            self.send(closed, now_ms, out);
        }
        for w in &self.tasks {
            if w.phase == Phase::Open || w.phase == Phase::Opening {
                out.push(Command::Close {
                    task_id: w.task_id.clone(),
                });
            }
        }
        self.ended = true;
        out.push(Command::End { graceful });
    }

    /// Acks once every socket has opened or been refused; ends once every accepted task
    /// is done.
    fn settle(&mut self, now_ms: u64, out: &mut Vec<Command>) {
        if self.ended {
            return;
        }
        if !self.acked {
            if self.tasks.iter().any(|w| w.phase == Phase::Opening) {
                return;
            }
            self.acked = true;
            let accepted: Vec<String> = self
                .tasks
                .iter()
                .filter(|w| w.phase != Phase::Refused)
                .map(|w| w.task_id.clone())
                .collect();
            let ack = self.listen.ack(&accepted);
            self.send(ack, now_ms, out);
            let states: Vec<Vec<u8>> = self
                .tasks
                .iter()
                .filter(|w| w.phase != Phase::Refused)
                .filter_map(|w| w.last.as_ref().map(|t| self.listen.task(t)))
                .collect();
            for frame in states {
                self.send(frame, now_ms, out);
            }
        }
        let all_done = self
            .tasks
            .iter()
            .all(|w| matches!(w.phase, Phase::Done | Phase::Refused));
        if !self.listen.task_ids.is_empty() && all_done && self.listen.tools.is_none() {
            self.end(true, now_ms, out);
        }
    }

    /// The outcome of an `Open`.
    pub fn opened(&mut self, task_id: &str, outcome: Opened, now_ms: u64) -> Vec<Command> {
        let mut out = Vec::new();
        let acked = self.acked;
        let Some(w) = self.find(task_id) else {
            return out;
        };
        if matches!(w.phase, Phase::Done | Phase::Refused) {
            out.push(Command::Close {
                task_id: task_id.to_owned(),
            });
            return out;
        }
        match outcome {
            Opened::Watching => w.phase = Phase::Open,
            // Before the ack: not acknowledged. After: it expired meanwhile.
            Opened::NotFound if acked => w.phase = Phase::Done,
            Opened::NotFound => w.phase = Phase::Refused,
            Opened::Failed(_) => return self.lost(task_id, now_ms),
        }
        self.settle(now_ms, &mut out);
        out
    }

    /// A message on the task's socket.
    pub fn message(&mut self, task_id: &str, message: WatchMessage, now_ms: u64) -> Vec<Command> {
        match message {
            WatchMessage::Task { version, task } => self.state(task_id, version, task, now_ms),
            WatchMessage::Changed { version } => match self.find(task_id) {
                Some(w) if w.phase == Phase::Open && (w.last.is_none() || version > w.version) => {
                    vec![Command::Get {
                        task_id: task_id.to_owned(),
                        version,
                    }]
                }
                _ => Vec::new(),
            },
            WatchMessage::Gone => self.gone(task_id, now_ms),
        }
    }

    fn gone(&mut self, task_id: &str, now_ms: u64) -> Vec<Command> {
        let mut out = Vec::new();
        if let Some(w) = self.find(task_id)
            && w.phase == Phase::Open
        {
            w.phase = Phase::Done;
            out.push(Command::Close {
                task_id: task_id.to_owned(),
            });
            self.settle(now_ms, &mut out);
        }
        out
    }

    fn state(&mut self, task_id: &str, version: u64, task: Value, now_ms: u64) -> Vec<Command> {
        let mut out = Vec::new();
        let acked = self.acked;
        let Some(w) = self.find(task_id) else {
            return out;
        };
        if w.phase != Phase::Open || (w.last.is_some() && version <= w.version) {
            return out;
        }
        w.version = version;
        if w.last.as_ref() == Some(&task) {
            // A write that changed nothing visible (a lease, a reconnect's first state).
            return out;
        }
        let terminal = is_terminal(&task);
        let frame = acked.then(|| self.listen.task(&task));
        let w = self.find(task_id).expect("found above");
        w.last = Some(task);
        if terminal {
            w.phase = Phase::Done;
            out.push(Command::Close {
                task_id: task_id.to_owned(),
            });
        }
        if let Some(frame) = frame {
            self.send(frame, now_ms, &mut out);
        }
        self.settle(now_ms, &mut out);
        out
    }

    /// The answer to a `Get`: the task, or `None` if it is gone; `Err` if unreachable.
    pub fn fetched(
        &mut self,
        task_id: &str,
        version: u64,
        task: Result<Option<Value>, String>,
        now_ms: u64,
    ) -> Vec<Command> {
        match task {
            Ok(Some(task)) => self.state(task_id, version, task, now_ms),
            Ok(None) => self.gone(task_id, now_ms),
            Err(_) => self.lost(task_id, now_ms),
        }
    }

    /// The task's socket closed or failed (or could not be opened).
    pub fn lost(&mut self, task_id: &str, now_ms: u64) -> Vec<Command> {
        let mut out = Vec::new();
        if self.ended {
            return out;
        }
        let Some(w) = self.find(task_id) else {
            return out;
        };
        if matches!(w.phase, Phase::Done | Phase::Refused) {
            return out;
        }
        let Some(after_ms) = w.reconnects.lost() else {
            self.end(false, now_ms, &mut out);
            return out;
        };
        if w.phase == Phase::Open {
            // Re-acking is not needed: the ack went out already.
            w.phase = Phase::Opening;
        }
        out.push(Command::Open {
            task_id: task_id.to_owned(),
            after_ms,
        });
        out
    }

    /// Time passing: keep-alives, the tool list's checks and the stream's renewal.
    pub fn tick(&mut self, now_ms: u64) -> Vec<Command> {
        let mut out = Vec::new();
        if self.ended {
            return out;
        }
        if now_ms.saturating_sub(self.started_ms) >= self.limits.max_stream_ms {
            self.end(false, now_ms, &mut out);
            return out;
        }
        if let (Some(watch), Some(due_ms)) = (self.listen.tools, &mut self.tools_due_ms)
            && now_ms >= *due_ms
        {
            *due_ms = now_ms + watch.every_ms;
            out.push(Command::CheckTools);
        }
        if now_ms.saturating_sub(self.last_sent_ms) >= KEEPALIVE_MS {
            self.send(Listen::keepalive().to_vec(), now_ms, &mut out);
        }
        out
    }

    /// The tool list's [`generation`](super::listen::tools_generation) now: told when it
    /// differs from the last seen (once the stream is acknowledged).
    pub fn tools(&mut self, generation: u64, now_ms: u64) -> Vec<Command> {
        let mut out = Vec::new();
        let Some(watch) = &mut self.listen.tools else {
            return out;
        };
        if self.ended || !self.acked || watch.generation == generation {
            return out;
        }
        watch.generation = generation;
        let told = self.listen.tools_changed();
        self.send(told, now_ms, &mut out);
        out
    }

    /// When [`Fanin::tick`] next has something to do.
    pub fn next_tick_ms(&self) -> u64 {
        let renew = self.started_ms.saturating_add(self.limits.max_stream_ms);
        let keepalive = self.last_sent_ms.saturating_add(KEEPALIVE_MS);
        let tools = self.tools_due_ms.unwrap_or(u64::MAX);
        renew.min(keepalive).min(tools)
    }
}
