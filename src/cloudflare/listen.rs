//! The `subscriptions/listen` stream: an SSE response fed by the watched tasks' objects
//! over WebSockets (`tasks::watch`). Each object pushes its changes; between them the
//! Worker only waits, the objects hibernate, and an idle watched task costs no
//! requests. What to send, when to reconnect and when to end is decided by the pure
//! `server::fanin`, and carried out by its driver (`fanin::Drive`); this file opens and
//! closes sockets, reads them, reads a task, looks at a gateway's tool list when asked.

use super::now_ms;
use super::sockets::{Sockets, open_watch};
use super::stream::{Next, Source};
use crate::concurrent::join_all;
use crate::http::HttpResponse;
use crate::server::Server;
use crate::server::fanin::{Drive, Opened, Watching, Woken};
use crate::server::listen::Listen;
use crate::server::slot::StreamSlot;
use crate::tasks::calls;
use crate::tasks::protocol::ObjectRequest;
use serde_json::Value;
use worker::{Env, Response};
#[cfg(feature = "gateway")]
use {super::upstreams, crate::server::listen::tools_generation};

/// The watched tasks as the driver reaches them: their sockets, as `principal`.
struct Tasks {
    env: Env,
    /// The deployment's server: its log settings, and a gateway's tool list
    /// (`upstreams::current`).
    build: fn() -> Server,
    principal: String,
    sockets: Sockets,
}

impl Watching for Tasks {
    async fn open(&mut self, task_ids: &[String]) -> Vec<Opened> {
        let (env, principal) = (&self.env, &self.principal);
        let opened = join_all(task_ids.iter().map(|id| open_watch(env, id, principal))).await;
        let mut outcomes = Vec::with_capacity(opened.len());
        for (task_id, (outcome, socket)) in task_ids.iter().zip(opened) {
            if let Some(socket) = socket {
                self.sockets.add(task_id, socket);
            }
            outcomes.push(outcome);
        }
        outcomes
    }

    fn close(&mut self, task_id: &str) {
        self.sockets.close(task_id);
    }

    fn forget(&mut self, task_id: &str) {
        self.sockets.remove(task_id);
    }

    /// Reads a task whose state was too large to push: `None` if it is gone.
    async fn get(&mut self, task_id: &str) -> Result<Option<Value>, String> {
        let request = ObjectRequest::Get {
            task_id: task_id.to_owned(),
        };
        match calls::task(&self.env, &request, &self.principal, None).await {
            Ok(task) => Ok(Some(task)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }

    /// A gateway's tool list (the isolate's: `upstreams::current`); unreadable now (the
    /// configuration broke), looked at again next time.
    #[cfg(feature = "gateway")]
    async fn tools(&mut self) -> Option<u64> {
        let server = upstreams::current(&self.env, self.build).await.ok()?;
        Some(tools_generation(&server))
    }

    /// Never asked for: only a gateway accepts `toolsListChanged`.
    #[cfg(not(feature = "gateway"))]
    async fn tools(&mut self) -> Option<u64> {
        None
    }

    async fn wait(&mut self, until_ms: u64) -> Woken {
        self.sockets.next(Some(until_ms)).await
    }

    fn now_ms(&self) -> u64 {
        now_ms()
    }
}

struct Stream {
    tasks: Tasks,
    drive: Drive,
    /// The stream's slot in the principal's quota ledger (`QUOTA_LISTEN_STREAMS`).
    slot: Option<StreamSlot>,
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
    let head = listen.envelope.apply(HttpResponse::event_stream());
    let limits = listen.limits;
    let state = Stream {
        tasks: Tasks {
            env,
            build,
            principal,
            sockets: Sockets::default(),
        },
        drive: Drive::start(listen, limits, now_ms()),
        slot,
    };
    super::stream::response(&head, Box::new(state))
}

impl Source for Stream {
    /// Renews the quota slot when due before each chunk; frees it before the body ends.
    fn next(&mut self) -> Next<'_> {
        Box::pin(async move {
            let Tasks { env, build, .. } = &self.tasks;
            if let Some(slot) = &self.slot
                && let Some(line) = slot.keep(env, now_ms()).await
            {
                super::log::print_configured(&line, env, *build);
            }
            let chunk = self.drive.next_chunk(&mut self.tasks).await;
            let Tasks { env, build, .. } = &self.tasks;
            if chunk.is_none()
                && let Some(slot) = self.slot.take()
                && let Some(line) = slot.release(env).await
            {
                super::log::print_configured(&line, env, *build);
            }
            chunk
        })
    }
}
