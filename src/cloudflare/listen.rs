//! The `subscriptions/listen` stream: an SSE response fed by the watched tasks' objects
//! over WebSockets (`tasks::watch`). Each object pushes its changes; between them the
//! Worker only waits, the objects hibernate, and an idle watched task costs no
//! requests. What to send, when to reconnect and when to end is decided by the pure
//! [`Fanin`]; this file opens and closes sockets, reads them, looks at a gateway's tool
//! list when asked, and writes the frames.

use super::now_ms;
use super::sockets::{Event, SocketEvent, Sockets, open_watch};
use super::stream::{Next, Source};
use crate::concurrent::Inbox;
use crate::concurrent::join_all;
use crate::http::HttpResponse;
use crate::server::Server;
use crate::server::fanin::{Command, Fanin};
use crate::server::listen::Listen;
use crate::server::slot::StreamSlot;
use crate::tasks::calls;
use crate::tasks::protocol::ObjectRequest;
use futures_util::future::{Either, select};
use serde_json::Value;
use std::collections::VecDeque;
use std::pin::pin;
use std::time::Duration;
use worker::{Delay, Env, Response};
#[cfg(feature = "gateway")]
use {super::upstreams, crate::server::listen::tools_generation};

/// Reads a task whose state was too large to push: `None` if it is gone.
async fn get(env: &Env, task_id: &str, principal: &str) -> Result<Option<Value>, String> {
    let request = ObjectRequest::Get {
        task_id: task_id.to_owned(),
    };
    match calls::task(env, &request, principal, None).await {
        Ok(task) => Ok(Some(task)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

struct Stream {
    env: Env,
    /// The deployment's server: its log settings, and a gateway's tool list
    /// (`upstreams::current`).
    build: fn() -> Server,
    principal: String,
    fanin: Fanin,
    sockets: Sockets,
    events: Inbox<Event>,
    todo: VecDeque<Command>,
    out: VecDeque<Vec<u8>>,
    /// Reopens waiting for their backoff: (due at, task id).
    timers: Vec<(u64, String)>,
    done: bool,
    /// The stream's slot in the principal's quota ledger (`QUOTA_LISTEN_STREAMS`).
    slot: Option<StreamSlot>,
}

impl Stream {
    /// Carries out the pending commands; opens due at once run concurrently.
    async fn run_commands(&mut self) {
        while let Some(command) = self.todo.pop_front() {
            match command {
                Command::Send(bytes) => self.out.push_back(bytes),
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
                    let (env, principal) = (&self.env, &self.principal);
                    let opened =
                        join_all(batch.iter().map(|id| open_watch(env, id, principal))).await;
                    let now = now_ms();
                    for (task_id, (outcome, socket)) in batch.iter().zip(opened) {
                        if let Some(socket) = socket {
                            self.sockets.add(task_id, socket);
                        }
                        let next = self.fanin.opened(task_id, outcome, now);
                        self.todo.extend(next);
                    }
                }
                Command::Open { task_id, after_ms } => {
                    self.timers.push((now_ms() + after_ms, task_id));
                }
                Command::Close { task_id } => self.sockets.close(&task_id),
                Command::Get { task_id, version } => {
                    let task = get(&self.env, &task_id, &self.principal).await;
                    let next = self.fanin.fetched(&task_id, version, task, now_ms());
                    self.todo.extend(next);
                }
                Command::CheckTools => self.check_tools().await,
                Command::End { .. } => self.done = true,
            }
        }
    }

    /// Looks at a gateway's tool list (the isolate's: `upstreams::current`) for the fan-in.
    #[cfg(feature = "gateway")]
    async fn check_tools(&mut self) {
        // Unreadable now (the configuration broke): looked at again next time.
        if let Ok(server) = upstreams::current(&self.env, self.build).await {
            let next = self.fanin.tools(tools_generation(&server), now_ms());
            self.todo.extend(next);
        }
    }

    /// Never asked for: only a gateway accepts `toolsListChanged`.
    #[cfg(not(feature = "gateway"))]
    async fn check_tools(&mut self) {}

    /// Waits for the next socket event, due reopen or tick, and feeds it to the fan-in.
    async fn wait(&mut self) {
        let now = now_ms();
        let wake = self
            .timers
            .iter()
            .map(|(at, _)| *at)
            .fold(self.fanin.next_tick_ms(), u64::min);
        let delay = Delay::from(Duration::from_millis(wake.saturating_sub(now).max(1)));
        let next = match select(pin!(self.events.receive()), delay).await {
            Either::Left((event, _)) => event,
            Either::Right(((), _)) => None,
        };
        let now = now_ms();
        match next {
            Some((task_id, generation, event)) if self.sockets.current(&task_id, generation) => {
                let commands = match event {
                    SocketEvent::Message(message) => self.fanin.message(&task_id, message, now),
                    SocketEvent::Lost => {
                        self.sockets.remove(&task_id);
                        self.fanin.lost(&task_id, now)
                    }
                };
                self.todo.extend(commands);
            }
            Some(_) => {} // a socket already replaced or closed
            None => {
                let (due, later): (Vec<_>, Vec<_>) =
                    self.timers.drain(..).partition(|(at, _)| *at <= now);
                self.timers = later;
                self.todo
                    .extend(due.into_iter().map(|(_, task_id)| Command::Open {
                        task_id,
                        after_ms: 0,
                    }));
                self.todo.extend(self.fanin.tick(now));
            }
        }
    }

    /// The next bytes of the body, or `None` at the end.
    async fn next_chunk(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Some(bytes) = self.out.pop_front() {
                return Some(bytes);
            }
            if !self.todo.is_empty() {
                self.run_commands().await;
                continue;
            }
            if self.done {
                return None;
            }
            self.wait().await;
        }
    }
}

/// The SSE response for `listen`, watching as `principal`; `slot` is its place in the
/// principal's stream quota, renewed while it lives and released when it ends.
pub async fn stream(
    env: Env,
    build: fn() -> Server,
    listen: Listen,
    principal: String,
    slot: Option<StreamSlot>,
) -> worker::Result<Response> {
    let mut head = HttpResponse::empty(200);
    head.headers
        .push(("content-type", "text/event-stream".into()));
    head.headers.push(("cache-control", "no-cache".into()));
    head.headers.push(("x-accel-buffering", "no".into()));
    let head = listen.envelope.apply(head);
    let (sockets, events) = Sockets::new();
    let limits = listen.limits;
    let (fanin, first) = Fanin::start(listen, limits, now_ms());
    let state = Stream {
        env,
        build,
        principal,
        fanin,
        sockets,
        events,
        todo: first.into(),
        out: VecDeque::new(),
        timers: Vec::new(),
        done: false,
        slot,
    };
    super::stream::response(&head, Box::new(state))
}

impl Source for Stream {
    /// Renews the quota slot when due before each chunk; frees it before the body ends.
    fn next(&mut self) -> Next<'_> {
        Box::pin(async move {
            if let Some(slot) = &self.slot
                && let Some(line) = slot.keep(&self.env, now_ms()).await
            {
                super::log::print_configured(&line, &self.env, self.build);
            }
            let chunk = self.next_chunk().await;
            if chunk.is_none()
                && let Some(slot) = self.slot.take()
                && let Some(line) = slot.release(&self.env).await
            {
                super::log::print_configured(&line, &self.env, self.build);
            }
            chunk
        })
    }
}
