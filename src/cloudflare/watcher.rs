//! The one executor of the core's follower (`server::follower`): the I/O of following a
//! task, for a job's wait (`job`) and a 2025-11-25 `tasks/result` (`session_object`).
//! It opens the task's watch socket (`sockets`, as a listen stream does), reads its
//! messages in order, reads the task, sleeps, as the follower says; the caller pulls one
//! state at a time and decides what it means.

use super::now_ms;
use super::sockets::{Sockets, open_watch};
use crate::error::McpError;
use crate::server::fanin::{Opened, Woken};
use crate::server::follower::{Event, Follower, Step};
use crate::tasks::calls;
use crate::tasks::protocol::{ObjectError, ObjectRequest};
use serde_json::Value;
use std::time::Duration;
use worker::{Delay, Env};

/// One request's follow of one task.
pub(crate) struct Watcher {
    env: Env,
    task_id: String,
    principal: String,
    trace: Option<String>,
    follower: Follower,
    step: Step,
    /// The task's socket while it has one.
    sockets: Sockets,
}

impl Watcher {
    /// Follows `task_id` as `principal` by `follower`, from its first step; `trace`: the
    /// Worker's request id, for the object's log lines.
    pub(crate) fn new(
        env: &Env,
        task_id: &str,
        principal: &str,
        trace: Option<&str>,
        (follower, step): (Follower, Step),
    ) -> Self {
        Watcher {
            sockets: Sockets::default(),
            env: env.clone(),
            task_id: task_id.to_owned(),
            principal: principal.to_owned(),
            trace: trace.map(str::to_owned),
            follower,
            step,
        }
    }

    /// The task's next state (the current one first), or its object's refusal; `None`
    /// once the wait is over. Dropped while it waits (`tasks/result` asking races it),
    /// the next call resumes the same step, and no pushed state is lost.
    pub(crate) async fn next(&mut self) -> Option<Result<Value, ObjectError>> {
        loop {
            let event = match &mut self.step {
                Step::Over => return None,
                Step::NotFound => {
                    self.step = Step::Over;
                    return Some(Err(ObjectError::Refused(McpError::TaskNotFound.to_wire())));
                }
                Step::Deliver(task) => {
                    let task = std::mem::take(task);
                    self.step = self.follower.next(now_ms(), Event::Taken);
                    return Some(Ok(task));
                }
                Step::Read => {
                    let state = self.read().await;
                    self.step = self.follower.next(now_ms(), Event::Taken);
                    return Some(state);
                }
                Step::Open { after_ms } => {
                    let after_ms = *after_ms;
                    sleep(after_ms).await;
                    self.open().await
                }
                Step::Listen { until_ms } => match self.sockets.next(*until_ms).await {
                    Woken::Pushed(_, message) => Event::Pushed(message),
                    Woken::Lost(_) => Event::Lost,
                    Woken::Timer => Event::Timer,
                },
                Step::Sleep { until_ms } => {
                    sleep(until_ms.saturating_sub(now_ms())).await;
                    Event::Timer
                }
            };
            if event == Event::Lost {
                self.sockets.close(&self.task_id);
            }
            self.step = self.follower.next(now_ms(), event);
        }
    }

    async fn open(&mut self) -> Event {
        match open_watch(&self.env, &self.task_id, &self.principal).await {
            (Opened::Watching, Some(socket)) => {
                self.sockets.add(&self.task_id, socket);
                Event::Opened
            }
            (Opened::NotFound, _) => Event::NotFound,
            _ => Event::Lost,
        }
    }

    /// The task's state, read.
    async fn read(&self) -> Result<Value, ObjectError> {
        let get = ObjectRequest::Get {
            task_id: self.task_id.clone(),
        };
        calls::task(&self.env, &get, &self.principal, self.trace.as_deref()).await
    }
}

async fn sleep(ms: u64) {
    if ms > 0 {
        Delay::from(Duration::from_millis(ms)).await;
    }
}
