//! A watch socket to a task's object (`tasks::watch`), as every watcher has one (a listen
//! stream's tasks, a job's wait, a 2025-11-25 `tasks/result`): how opening it went, and
//! the lost-socket policy they share.

use crate::tasks::protocol::{ObjectReply, is_task_not_found};

/// Delay before reopen number `n` (1-based): 250 ms, 1 s, 4 s, then 4 s.
pub fn backoff_ms(n: u32) -> u64 {
    250u64
        .saturating_mul(4u64.saturating_pow(n.saturating_sub(1)))
        .min(4_000)
}

/// The lost-socket policy of every watch on a task's object, one for all: a listen
/// stream's tasks and a job's wait (`server::follower`). A lost socket (a crashed or
/// evicted object closes it) is reopened after [`backoff_ms`], at most `limit` times
/// (`LISTEN_RECONNECTS`); the reopened socket's first message is the current state, so
/// nothing is missed. Past the budget the watcher gives up: a listen stream ends without
/// its result (the client reconnects), a job's wait reads the task instead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reconnects {
    used: u32,
    limit: u32,
}

impl Reconnects {
    pub fn new(limit: u32) -> Reconnects {
        Reconnects { used: 0, limit }
    }

    /// A socket was lost: the delay before reopening it, or `None` once the budget is spent.
    pub fn lost(&mut self) -> Option<u64> {
        if self.used >= self.limit {
            return None;
        }
        self.used += 1;
        Some(backoff_ms(self.used))
    }
}

/// How opening a task's socket went.
#[derive(Debug, Clone, PartialEq)]
pub enum Opened {
    /// The object accepted: its first message will be the current state.
    Watching,
    /// The object says the caller cannot see this task (unknown, expired, someone else's).
    NotFound,
    /// The object could not be reached or answered something unexpected.
    Failed(String),
}

impl Opened {
    /// A watch that was not upgraded to a socket: the object's reply (`status`, `body`)
    /// says the task is not the caller's to see, or something unexpected.
    pub fn refused(status: u16, body: &[u8]) -> Opened {
        match ObjectReply::decode(status, body) {
            Ok(ObjectReply::Error(e)) if is_task_not_found(&e) => Opened::NotFound,
            _ => Opened::Failed(format!(
                "watch answered HTTP {status}: {}",
                String::from_utf8_lossy(body)
            )),
        }
    }
}

/// A watcher's open sockets, one per task. A reopened socket gets a new generation, so
/// the late events of the socket it replaced are passed over ([`OpenSockets::is_current`]).
/// At most `server::listen::MAX_TASKS`, so a list searched in turn (a `BTreeMap` of its
/// own would add its whole B-tree code to the Worker).
pub struct OpenSockets<S> {
    open: Vec<(String, u64, S)>,
    generation: u64,
}

impl<S> Default for OpenSockets<S> {
    fn default() -> Self {
        OpenSockets {
            open: Vec::new(),
            generation: 0,
        }
    }
}

impl<S> OpenSockets<S> {
    /// Keeps `socket` as `task_id`'s: its generation, and the socket it replaces (to close).
    pub fn add(&mut self, task_id: &str, socket: S) -> (u64, Option<S>) {
        let replaced = self.remove(task_id);
        self.generation += 1;
        self.open
            .push((task_id.to_owned(), self.generation, socket));
        (self.generation, replaced)
    }

    /// Whether an event of `task_id`'s socket of `generation` is of its current socket.
    pub fn is_current(&self, task_id: &str, generation: u64) -> bool {
        self.open
            .iter()
            .any(|(id, g, _)| id == task_id && *g == generation)
    }

    /// Forgets `task_id`'s socket, returning it.
    pub fn remove(&mut self, task_id: &str) -> Option<S> {
        let at = self.open.iter().position(|(id, _, _)| id == task_id)?;
        Some(self.open.swap_remove(at).2)
    }

    /// Every socket, forgotten.
    pub fn drain(&mut self) -> impl Iterator<Item = S> + '_ {
        self.open.drain(..).map(|(_, _, socket)| socket)
    }
}
