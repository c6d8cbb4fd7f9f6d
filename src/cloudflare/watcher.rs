//! The platform of the core's follower (`server::follower::Drive`): the I/O of following
//! a task, for a job's wait (`effects`: `server::wait`) and a 2025-11-25 `tasks/result`
//! (`session_object`). It opens the task's watch socket (`sockets`, as a listen stream
//! does), reads its messages in order, reads the task, sleeps, as the driver says; the
//! caller pulls one state at a time and decides what it means.

use super::now_ms;
use super::sockets::{Sockets, open_watch};
use crate::server::fanin::{Opened, Woken};
use crate::server::follower::{Drive, Event, Follower, Step, TaskWatch};
use crate::tasks::calls;
use crate::tasks::protocol::{ObjectError, ObjectRequest};
use serde_json::Value;
use std::time::Duration;
use worker::{Delay, Env};

/// One request's follow of one task.
pub(crate) struct Watcher {
    drive: Drive,
    task: Task,
}

/// The followed task as the driver reaches it: its object, as `principal`.
struct Task {
    env: Env,
    task_id: String,
    principal: String,
    trace: Option<String>,
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
        follower: (Follower, Step),
    ) -> Self {
        let task = Task {
            env: env.clone(),
            task_id: task_id.to_owned(),
            principal: principal.to_owned(),
            trace: trace.map(str::to_owned),
            sockets: Sockets::default(),
        };
        Watcher {
            drive: Drive::new(follower),
            task,
        }
    }

    /// The task's next state, or its object's refusal; `None` once the wait is over
    /// (`Drive::next`: dropped while it waits, the next call resumes the same step).
    pub(crate) async fn next(&mut self) -> Option<Result<Value, ObjectError>> {
        self.drive.next(&mut self.task).await
    }
}

impl TaskWatch for Task {
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

    async fn listen(&mut self, until_ms: Option<u64>) -> Event {
        match self.sockets.next(until_ms).await {
            Woken::Pushed(_, message) => Event::Pushed(message),
            Woken::Lost(_) => Event::Lost,
            Woken::Timer => Event::Timer,
        }
    }

    fn close(&mut self) {
        self.sockets.close(&self.task_id);
    }

    async fn read(&mut self) -> Result<Value, ObjectError> {
        let get = ObjectRequest::Get {
            task_id: self.task_id.clone(),
        };
        calls::task(&self.env, &get, &self.principal, self.trace.as_deref()).await
    }

    async fn sleep(&mut self, ms: u64) {
        Delay::from(Duration::from_millis(ms)).await;
    }

    fn now_ms(&self) -> u64 {
        now_ms()
    }
}
