//! The listen stream's driver: carries out a [`Fanin`]'s commands over the platform's
//! watch sockets ([`Watching`]), one body chunk at a time. What to send, when to reopen
//! and when to end is the fan-in's; when each reopen is due, which opens run at once and
//! what the platform is asked, in which order, is this driver's; the platform only opens,
//! closes, reads and waits.

use super::{Command, Fanin, Opened};
use crate::server::listen::{Listen, StreamLimits};
use crate::tasks::watch::WatchMessage;
use serde_json::Value;
use std::collections::VecDeque;

/// What woke the stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Woken {
    /// A current socket's message.
    Pushed(String, WatchMessage),
    /// A current socket closed, failed or said something that is not a watch message.
    Lost(String),
    /// The time asked for came.
    Timer,
}

/// What the driver needs of the platform: the I/O of watching tasks, no decision.
// Single threaded, as `server::perform::Effects`.
#[allow(async_fn_in_trait)]
pub trait Watching {
    /// Opens the sockets of `task_ids`, all at once; each outcome, in order.
    async fn open(&mut self, task_ids: &[String]) -> Vec<Opened>;
    /// Closes `task_id`'s socket: nothing more is needed from it.
    fn close(&mut self, task_id: &str);
    /// Forgets `task_id`'s socket, which was lost.
    fn forget(&mut self, task_id: &str);
    /// The task, read with an ordinary `get`: `None` if it is gone.
    async fn get(&mut self, task_id: &str) -> Result<Option<Value>, String>;
    /// The tool list's generation now (`None`: unreadable now, looked at again next time).
    async fn tools(&mut self) -> Option<u64>;
    /// The next socket event, or [`Woken::Timer`] at `until_ms`.
    async fn wait(&mut self, until_ms: u64) -> Woken;
    fn now_ms(&self) -> u64;
}

/// One listen stream's driver.
pub struct Drive {
    fanin: Fanin,
    todo: VecDeque<Command>,
    out: VecDeque<Vec<u8>>,
    /// Reopens waiting for their backoff: (due at, task id).
    reopens: Vec<(u64, String)>,
    done: bool,
}

impl Drive {
    pub fn start(listen: Listen, limits: StreamLimits, now_ms: u64) -> Drive {
        let (fanin, first) = Fanin::start(listen, limits, now_ms);
        Drive {
            fanin,
            todo: first.into(),
            out: VecDeque::new(),
            reopens: Vec::new(),
            done: false,
        }
    }

    /// The next bytes of the body, or `None` at its end.
    pub async fn next_chunk(&mut self, p: &mut impl Watching) -> Option<Vec<u8>> {
        loop {
            if let Some(bytes) = self.out.pop_front() {
                return Some(bytes);
            }
            if let Some(command) = self.todo.pop_front() {
                self.run(command, p).await;
                continue;
            }
            if self.done {
                return None;
            }
            self.wait(p).await;
        }
    }

    /// Carries out one command; opens due at once (those queued together) run at once.
    async fn run(&mut self, command: Command, p: &mut impl Watching) {
        let next = match command {
            Command::Send(bytes) => return self.out.push_back(bytes),
            Command::Open {
                task_id,
                after_ms: 0,
            } => {
                let mut batch = vec![task_id];
                while let Some(Command::Open { after_ms: 0, .. }) = self.todo.front() {
                    if let Some(Command::Open { task_id, .. }) = self.todo.pop_front() {
                        batch.push(task_id);
                    }
                }
                let opened = p.open(&batch).await;
                let now = p.now_ms();
                let mut next = Vec::new();
                for (task_id, outcome) in batch.iter().zip(opened) {
                    next.extend(self.fanin.opened(task_id, outcome, now));
                }
                next
            }
            Command::Open { task_id, after_ms } => {
                return self.reopens.push((p.now_ms() + after_ms, task_id));
            }
            Command::Close { task_id } => return p.close(&task_id),
            Command::Get { task_id, version } => {
                let task = p.get(&task_id).await;
                self.fanin.fetched(&task_id, version, task, p.now_ms())
            }
            Command::CheckTools => match p.tools().await {
                Some(generation) => self.fanin.tools(generation, p.now_ms()),
                None => Vec::new(),
            },
            Command::End { .. } => {
                self.done = true;
                Vec::new()
            }
        };
        self.todo.extend(next);
    }

    /// Waits for the next socket event, due reopen or tick, and feeds it to the fan-in.
    async fn wait(&mut self, p: &mut impl Watching) {
        let due = self.reopens.iter().map(|(at, _)| *at);
        let until = due.fold(self.fanin.next_tick_ms(), u64::min);
        let woken = p.wait(until).await;
        let now = p.now_ms();
        let next = match woken {
            Woken::Pushed(task_id, message) => self.fanin.message(&task_id, message, now),
            Woken::Lost(task_id) => {
                p.forget(&task_id);
                self.fanin.lost(&task_id, now)
            }
            Woken::Timer => {
                let (due, later): (Vec<_>, _) =
                    self.reopens.drain(..).partition(|(at, _)| *at <= now);
                self.reopens = later;
                let opens = due.into_iter().map(|(_, task_id)| Command::Open {
                    task_id,
                    after_ms: 0,
                });
                opens.chain(self.fanin.tick(now)).collect()
            }
        };
        self.todo.extend(next);
    }
}
