//! The task Durable Object's implementation, [`TaskRunner`]: one object per task, named
//! by the task id. It loads the task (the hot record, from the instance's mirror of it
//! once known, plus the large parts an operation needs that it does not hold: `store`),
//! lets the pure core (`tasks::object`) decide, runs steps, and applies the storage
//! effects. Replies leave only after the write: the runtime's output gate holds
//! them until the write is durable, which is what makes task creation strongly
//! consistent.
//!
//! Watchers (`tasks::watch`): a watch request is accepted as a hibernatable WebSocket
//! (`state.accept_web_socket`); after every write, [`TaskRunner::apply`] sends the new
//! state to every socket. Between changes the object may hibernate: idle watchers cost
//! no requests and no duration.

use super::bench::TASK;
use super::log;
use super::mirror::Mirror;
use super::{WorkerHost, now_ms, server};
use crate::ops::admin;
use crate::ops::log::{self as logs, LogSettings};
use crate::server::Server;
use crate::tasks::execution::{self, AlarmPlan};
use crate::tasks::layout::{self, Need, Stored};
use crate::tasks::machine::Illegal;
use crate::tasks::object::{self, Effects};
use crate::tasks::protocol::{ObjectReply, ObjectRequest, PRINCIPAL_HEADER, REQUEST_ID_HEADER};
use crate::tasks::timeline;
use crate::tasks::watch::{self, CLOSE_GONE, WATCH_PATH, WatchMessage};
use std::cell::Cell;
use worker::{
    Env, Request, Response, Result, State, Storage, WebSocket, WebSocketIncomingMessage,
    WebSocketPair,
};

mod store;

/// What the `TaskObject` class of `export_worker!` runs (see [`super`]).
pub struct TaskRunner {
    state: State,
    /// `state.storage()`, asked once: every call of it crosses into the runtime.
    storage: Storage,
    env: Env,
    build: fn() -> Server,
    /// The attempt this instance is running right now. Memory, not storage: an instance
    /// that restarted has none, which is how a lost attempt is recognised.
    running: Cell<Option<u32>>,
    /// The hot record (`layout::HOT_KEY`) as this instance last read or wrote it
    /// (`super::mirror`): it spares the rows an alarm would read again around its step
    /// and a poll would read again.
    hot: Mirror,
}

/// Closes `socket`; one already closed or closing needs nothing more.
fn close(socket: &WebSocket, code: u16, reason: &str) {
    if socket.close(Some(code), Some(reason)).is_err() {
        // Already closed by the other side: nothing to do.
    }
}

/// An object reply as the object sends it (`tasks::protocol`).
fn reply_response(reply: &ObjectReply) -> Result<Response> {
    let (status, body) = reply.encode();
    Ok(Response::from_bytes(body)?.with_status(status))
}

fn refused(illegal: Illegal) -> worker::Error {
    worker::Error::RustError(format!("task state machine refused: {illegal:?}"))
}

impl TaskRunner {
    /// The runner for the object `state` belongs to; `build` defines the server.
    pub fn new(state: State, env: Env, build: fn() -> Server) -> Self {
        TaskRunner {
            storage: state.storage(),
            state,
            env,
            build,
            running: Cell::new(None),
            hot: Mirror::new(layout::HOT_KEY, TASK),
        }
    }

    /// What this deployment logs (the defaults if the configuration is broken: that
    /// error surfaces on the request that needs the server).
    fn log_settings(&self) -> LogSettings {
        server(&self.env, self.build).map_or_else(|_| LogSettings::default(), |s| s.config.log)
    }

    /// Applies `effects` as one transaction: the puts, deletes and alarm are issued
    /// together, with no other await in between, so the runtime coalesces them. The
    /// transition they make goes in the same write, in the task's timeline
    /// ([`timeline::note`]). Once written, the new state goes to the watchers (numbered
    /// by [`watch::stamp`]) and the transition to the logs (`request_id`: the Worker's
    /// request that caused it, if one did).
    async fn apply(
        &self,
        before: Option<&Stored>,
        mut effects: Effects,
        request_id: Option<&str>,
    ) -> Result<()> {
        let before_record = before.map(|s| &s.record);
        timeline::note(&mut effects, before_record);
        watch::stamp(&mut effects, before);
        let pushed = watch::after_write(&effects);
        let mut lines = Vec::new();
        if let Some(after) = &effects.store {
            lines.extend(logs::lease_taken(before_record, after));
            if let Some(entry) = &effects.dirty.timeline {
                lines.extend(logs::transition(entry, after, request_id));
            }
        }
        if let (true, Some(record)) = (effects.delete_all, before_record) {
            lines.push(logs::expired(record));
        }
        self.write(before, effects).await?;
        log::print_all(lines, &self.log_settings());
        if let Some(message) = pushed {
            self.push(&message);
        }
        Ok(())
    }

    /// Sends `message` to every watcher. A socket that cannot take it is closed: its
    /// watcher reconnects and reads the current state.
    fn push(&self, message: &WatchMessage) {
        let sockets = self.state.get_websockets();
        if sockets.is_empty() {
            return;
        }
        let text = message.encode();
        for socket in sockets {
            let sent = socket.send_with_str(&text);
            if sent.is_err() || *message == WatchMessage::Gone {
                close(&socket, CLOSE_GONE, "the task is gone");
            }
        }
    }

    /// The `(owner, task_id)` of a task these effects end, when live tasks are counted.
    fn ended(&self, before: Option<&Stored>, effects: &Effects) -> Option<(String, String)> {
        let counted =
            server(&self.env, self.build).is_ok_and(|s| s.config.quotas.live_tasks.is_some());
        if !counted {
            return None;
        }
        effects
            .ended(before.map(|s| &s.record))
            .map(|(owner, id)| (owner.to_owned(), id.to_owned()))
    }

    /// After the write: tells the owner's quota ledger the task ended.
    async fn release(&self, ended: Option<(String, String)>) {
        if let Some((owner, task_id)) = ended {
            super::task_ended(&self.env, &owner, &task_id, &self.log_settings()).await;
        }
    }

    /// A request from the Worker (see `tasks::protocol`), or a watch (`tasks::watch`).
    pub async fn fetch(&self, mut req: Request) -> Result<Response> {
        // Set by the Worker on every call; a Durable Object is not reachable from outside.
        let principal = req.headers().get(PRINCIPAL_HEADER)?.unwrap_or_default();
        let request_id = req.headers().get(REQUEST_ID_HEADER)?;
        if let Some(task_id) = req.path().strip_prefix(WATCH_PATH) {
            return self.watch(task_id, &principal).await;
        }
        let request: ObjectRequest = match super::request_json(&mut req).await {
            Ok(request) => request,
            Err(e) => return Response::error(format!("bad object request: {e}"), 400),
        };
        let need = match request {
            ObjectRequest::Get { .. } => Need::Result,
            // The cancel hook sees the arguments and the last checkpoint.
            ObjectRequest::Cancel { .. }
            | ObjectRequest::OperatorCancel { .. }
            | ObjectRequest::LegacyCancel { .. } => Need::Step,
            ObjectRequest::Create { .. } | ObjectRequest::Update { .. } => Need::Hot,
            ObjectRequest::Timeline { .. } | ObjectRequest::Inspect { .. } => Need::Timeline,
        };
        let stored = self.load(need).await?;
        // Reads of the timeline, answered from it (nothing is written).
        let read = match &request {
            ObjectRequest::Timeline { task_id } => Some(timeline::owner_view(
                stored.as_ref(),
                task_id,
                &principal,
                now_ms(),
            )),
            ObjectRequest::Inspect { task_id } => {
                Some(admin::inspect(stored.as_ref(), task_id, now_ms()))
            }
            _ => None,
        };
        if let Some(reply) = read {
            return reply_response(&reply);
        }
        let (reply, effects) = object::handle(
            stored.as_ref().map(|s| s.record.clone()),
            request,
            &principal,
            now_ms(),
        );
        let cancelled = effects.store.clone().filter(|_| effects.cancel_hook);
        let ended = self.ended(stored.as_ref(), &effects);
        self.apply(stored.as_ref(), effects, request_id.as_deref())
            .await?;
        self.release(ended).await;
        if let Some(record) = cancelled {
            let server = server(&self.env, self.build)?;
            if let Some(tool) = server.registry.get(record.tool()) {
                // Best effort: the task is already cancelled whatever the hook does.
                let host = WorkerHost::host(self.env.clone(), &server);
                tool.cancelled(record.call(now_ms(), 0), host).await;
            }
        }
        reply_response(&reply)
    }

    /// Accepts a watcher: a hibernatable WebSocket whose first message is the current
    /// state. A task the caller cannot see is refused like `tasks/get` refuses it.
    async fn watch(&self, task_id: &str, principal: &str) -> Result<Response> {
        let stored = self.load(Need::Result).await?;
        match watch::open(
            stored.as_ref().map(|s| &s.record),
            task_id,
            principal,
            now_ms(),
        ) {
            Ok(first) => {
                let pair = WebSocketPair::new()?;
                self.state.accept_web_socket(&pair.server);
                pair.server.send_with_str(first.encode())?;
                Response::from_websocket(pair.client)
            }
            Err(reply) => {
                let (status, body) = reply.encode();
                Ok(Response::from_bytes(body)?.with_status(status))
            }
        }
    }

    /// A watcher never sends anything that needs an answer; messages are ignored.
    pub async fn websocket_message(
        &self,
        _ws: WebSocket,
        _message: WebSocketIncomingMessage,
    ) -> Result<()> {
        Ok(())
    }

    /// A watcher went away (its stream ended): complete the closing handshake.
    pub async fn websocket_close(
        &self,
        ws: WebSocket,
        _code: usize,
        _reason: String,
        _was_clean: bool,
    ) -> Result<()> {
        close(&ws, 1000, "bye");
        Ok(())
    }

    /// A watcher's socket failed: the runtime drops it; nothing to keep.
    pub async fn websocket_error(&self, ws: WebSocket, _error: worker::Error) -> Result<()> {
        close(&ws, 1011, "socket error");
        Ok(())
    }

    /// The alarm: expiry, lost attempts, and the due step (see `tasks::object`).
    pub async fn alarm(&self) -> Result<Response> {
        let server = server(&self.env, self.build)?;
        let limits = server.limits();
        let stored = self.load(Need::Hot).await?;
        let plan = execution::alarm(
            stored.as_ref().map(|s| s.record.clone()),
            now_ms(),
            self.running.get(),
            limits,
        )
        .map_err(refused)?;
        match plan {
            AlarmPlan::Done(effects) => {
                let ended = self.ended(stored.as_ref(), &effects);
                self.apply(stored.as_ref(), effects, None).await?;
                self.release(ended).await;
            }
            AlarmPlan::RunStep { lease, attempt } => {
                // The lease is durable before the step runs: if this instance dies inside
                // the step, the next alarm finds the lease and runs the step again.
                self.apply(stored.as_ref(), lease, None).await?;
                let Some(full) = self.load(Need::Step).await? else {
                    return Response::empty();
                };
                self.running.set(Some(attempt));
                let host = WorkerHost::host(self.env.clone(), &server);
                let started = now_ms();
                let step =
                    execution::run_step(&full.record, &server.registry, host, started, attempt)
                        .await;
                let duration_ms = now_ms().saturating_sub(started);
                self.running.set(None);
                // Requests may have changed the task meanwhile (a cancel wins).
                let current = self.load(Need::Hot).await?;
                let outcome = logs::step_outcome(&step);
                let effects = execution::finish(
                    current.as_ref().map(|s| s.record.clone()),
                    attempt,
                    step,
                    now_ms(),
                    limits,
                )
                .map_err(refused)?;
                // Not applied: a cancel (or a newer attempt) won, the outcome was dropped.
                let applied = effects.store.is_some();
                let finished =
                    logs::step_finished(&full.record, attempt, outcome, duration_ms, applied);
                log::print(&finished, &server.config.log);
                let ended = self.ended(current.as_ref(), &effects);
                self.apply(current.as_ref(), effects, None).await?;
                self.release(ended).await;
            }
        }
        Response::empty()
    }
}
