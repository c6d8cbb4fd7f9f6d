//! The `UpstreamObject` Durable Object (gateway builds, bound as `WATCHERS`):
//! the I/O of the core's watcher of one upstream (`gateway::watch`), which hears its
//! `notifications/tools/list_changed`. One object per upstream, named by its name; this
//! stores its one row and its alarm, and reaches the upstream through the Worker's host
//! (the outbound policy).

use super::bench::UPSTREAM;
use super::mirror::Mirror;
use super::rpc::{object_reply, request_body};
use super::{WorkerHost, log, now_ms, server};
use crate::gateway::watch;
use crate::legacy::subscribers::{self, TOOLS_LISTED};
use crate::objects::Write;
use crate::objects::upstream::{self, WATCH_KEY, WatchPlatform};
use crate::ops::log as logs;
use crate::server::Server;
use worker::{Env, Response, Result, State, web_sys};

/// What the `UpstreamObject` class of `export_worker!` runs.
pub struct UpstreamRunner {
    state: State,
    env: Env,
    build: fn() -> Server,
    record: Mirror,
}

impl UpstreamRunner {
    pub fn new(state: State, env: Env, build: fn() -> Server) -> Self {
        UpstreamRunner {
            state,
            env,
            build,
            record: Mirror::new(WATCH_KEY, UPSTREAM),
        }
    }

    /// An isolate's `gateway::watch::Ask`, answered as every object answers
    /// (`objects::upstream::serve`).
    pub async fn fetch(&self, req: web_sys::Request) -> Result<web_sys::Response> {
        let body = request_body(&req).await;
        object_reply(&upstream::serve(self, body).await)
    }

    /// One hold of the upstream's stream, or the watcher's end (`objects::upstream::alarm`).
    pub async fn alarm(&self) -> Result<Response> {
        let base = server(&self.env, self.build)?;
        let host = WorkerHost::host(self.env.clone(), &base);
        let held = upstream::alarm(self, &host, &base.config.gateway)
            .await
            .map_err(worker::Error::RustError)?;
        log::print(&watch::line(held.as_ref()), &base.config.log);
        Response::empty()
    }
}

impl WatchPlatform for UpstreamRunner {
    async fn record(&self) -> std::result::Result<Option<String>, String> {
        let storage = self.state.storage();
        self.record.get(&storage).await.map_err(|e| e.to_string())
    }

    async fn write(&self, write: Write) -> std::result::Result<(), String> {
        let storage = self.state.storage();
        let written = self.record.write(&storage, write).await;
        written.map_err(|e| e.to_string())
    }

    fn now_ms(&self) -> u64 {
        now_ms()
    }

    async fn announce(&self) {
        let Err(why) = subscribers::announce(&self.env, TOOLS_LISTED).await else {
            return;
        };
        let line = logs::warning(&format!(
            "telling the sessions of a tool list change: {why}"
        ));
        log::print_configured(&line, &self.env, self.build);
    }
}
