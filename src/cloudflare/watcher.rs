//! The one executor of the core's follower (`server::follower`): the I/O of following a
//! task, for a job's wait (`job`) and a 2025-11-25 `tasks/result` (`session_object`).
//! It opens the task's watch socket (`listen::open_watch`), reads the messages a pump
//! hands it in order, reads the task, sleeps, as the follower says; the caller pulls one
//! state at a time and decides what it means.

use super::inbox::Inbox;
use super::listen::open_watch;
use super::now_ms;
use super::rpc::call_object_traced;
use crate::error::McpError;
use crate::server::fanin::Opened;
use crate::server::follower::{Event, Follower, Step};
use crate::tasks::protocol::{ObjectError, ObjectReply, ObjectRequest};
use crate::tasks::watch::WatchMessage;
use futures_util::StreamExt;
use futures_util::future::{Either, select};
use serde_json::Value;
use std::pin::pin;
use std::time::Duration;
use worker::wasm_bindgen_futures::spawn_local;
use worker::ws_events::WebsocketEvent;
use worker::{Delay, Env, WebSocket};

/// A socket's messages as its pump hands them over; `None` once it is lost.
type Messages = Inbox<Option<String>>;

/// One request's follow of one task.
pub(crate) struct Watcher {
    env: Env,
    task_id: String,
    principal: String,
    trace: Option<String>,
    follower: Follower,
    step: Step,
    socket: Option<(WebSocket, Messages)>,
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
            env: env.clone(),
            task_id: task_id.to_owned(),
            principal: principal.to_owned(),
            trace: trace.map(str::to_owned),
            follower,
            step,
            socket: None,
        }
    }

    /// The task's next state (the current one first), or its object's refusal; `None`
    /// once the wait is over.
    pub(crate) async fn next(&mut self) -> Option<Result<Value, ObjectError>> {
        loop {
            let event = match &self.step {
                Step::Over => return None,
                Step::NotFound => {
                    self.step = Step::Over;
                    return Some(Err(ObjectError::Refused(McpError::TaskNotFound.to_wire())));
                }
                Step::Deliver(task) => {
                    let task = task.clone();
                    self.step = self.follower.next(now_ms(), Event::Taken);
                    return Some(Ok(task));
                }
                Step::Read => {
                    let state = self.read().await;
                    self.step = self.follower.next(now_ms(), Event::Taken);
                    return Some(state);
                }
                Step::Open { after_ms } => {
                    sleep(*after_ms).await;
                    self.open().await
                }
                Step::Listen { until_ms } => self.listen(*until_ms).await,
                Step::Sleep { until_ms } => {
                    sleep(until_ms.saturating_sub(now_ms())).await;
                    Event::Timer
                }
            };
            if event == Event::Lost {
                self.close();
            }
            self.step = self.follower.next(now_ms(), event);
        }
    }

    async fn open(&mut self) -> Event {
        match open_watch(&self.env, &self.task_id, &self.principal).await {
            (Opened::Watching, Some(socket)) => {
                let messages = Messages::default();
                pump(socket.clone(), &messages);
                self.socket = Some((socket, messages));
                Event::Opened
            }
            (Opened::NotFound, _) => Event::NotFound,
            _ => Event::Lost,
        }
    }

    /// The socket's next message until `until_ms` (for ever without it).
    async fn listen(&mut self, until_ms: Option<u64>) -> Event {
        let Some((_, messages)) = &self.socket else {
            return Event::Lost;
        };
        let message = match until_ms {
            None => messages.receive().await,
            Some(until) => {
                let left = until.saturating_sub(now_ms()).max(1);
                let timer = Delay::from(Duration::from_millis(left));
                match select(pin!(messages.receive()), timer).await {
                    Either::Left((message, _)) => message,
                    Either::Right(_) => return Event::Timer,
                }
            }
        };
        match message.flatten().map(|text| WatchMessage::decode(&text)) {
            Some(Ok(message)) => Event::Pushed(message),
            // Not a message of the watch protocol: as good as a lost socket.
            Some(Err(_)) | None => Event::Lost,
        }
    }

    /// The task's state, read.
    async fn read(&self) -> Result<Value, ObjectError> {
        let get = ObjectRequest::Get {
            task_id: self.task_id.clone(),
        };
        let (env, principal, trace) = (&self.env, &self.principal, self.trace.as_deref());
        ObjectReply::outcome(call_object_traced(env, &get, principal, trace).await)
    }

    fn close(&mut self) {
        if let Some((socket, _)) = self.socket.take()
            && socket.close(Some(1000), Some("done")).is_err()
        {
            // Already closed by the object: nothing more to do.
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.close();
    }
}

/// Hands `socket`'s text messages to `messages` in order, then `None` when it is lost.
/// Listen first, accept second: an accepted socket dispatches its messages at once, and
/// the first (the current state) is sent once.
fn pump(socket: WebSocket, messages: &Messages) {
    let sender = messages.sender();
    spawn_local(async move {
        let Ok(mut events) = socket.events() else {
            sender.send(None);
            return;
        };
        if socket.accept().is_err() {
            sender.send(None);
            return;
        }
        while let Some(event) = events.next().await {
            let text = match event {
                Ok(WebsocketEvent::Message(message)) => match message.text() {
                    Some(text) => text,
                    None => continue,
                },
                Ok(WebsocketEvent::Close(_)) | Err(_) => break,
            };
            if !sender.send(Some(text)) {
                // The watcher is gone: nobody reads on.
                return;
            }
        }
        sender.send(None);
    });
}

async fn sleep(ms: u64) {
    if ms > 0 {
        Delay::from(Duration::from_millis(ms)).await;
    }
}
