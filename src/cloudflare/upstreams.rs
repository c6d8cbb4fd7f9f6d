//! The isolate's server with its upstreams' tools (`crate::gateway`): when to list them
//! again and what the lists make is the core's (`server::upstreams`); this keeps them for
//! the isolate, lists the upstreams and asks their watchers (`upstream_object` is one).

use super::server;
use crate::server::Server;
use std::rc::Rc;
use worker::Env;
#[cfg(feature = "gateway")]
use {
    super::{WorkerHost, log, now_ms},
    crate::gateway::client::UpstreamError,
    crate::gateway::watch::{self, Heard},
    crate::gateway::{Settings, Upstream, catalog},
    crate::host::Host,
    crate::server::upstreams::{Fetching, Kept},
    crate::tasks::calls::Class,
};

/// The deployment's own server: a build without the `gateway` feature has no upstreams.
#[cfg(not(feature = "gateway"))]
pub(crate) async fn current(env: &Env, build: fn() -> Server) -> worker::Result<Rc<Server>> {
    server(env, build)
}

#[cfg(feature = "gateway")]
thread_local! {
    /// The lists fetched last in this isolate, and the server they make.
    static KEPT: Rc<Kept> = Rc::default();
}

/// The server to answer with: the deployment's own, with its upstreams' tools when it
/// has upstreams, kept as `server::upstreams` says (listed concurrently through the
/// outbound policy when due).
#[cfg(feature = "gateway")]
pub(crate) async fn current(env: &Env, build: fn() -> Server) -> worker::Result<Rc<Server>> {
    let base = server(env, build)?;
    if !base.has_upstreams() {
        return Ok(base);
    }
    let fetching = Reach {
        env,
        host: WorkerHost::host(env.clone(), &base),
        settings: &base.config.gateway,
    };
    let kept = KEPT.with(Rc::clone);
    let (server, lines) = kept.current(base.clone(), &fetching, now_ms()).await;
    log::print_all(lines, &base.config.log);
    Ok(server)
}

/// The upstreams, and their watchers, as the Worker reaches them.
#[cfg(feature = "gateway")]
struct Reach<'a> {
    env: &'a Env,
    host: Host,
    settings: &'a Settings,
}

#[cfg(feature = "gateway")]
impl Fetching for Reach<'_> {
    async fn list(&self, upstream: &Upstream) -> Result<catalog::Listing, UpstreamError> {
        catalog::list(&self.host, upstream, self.settings).await
    }

    async fn ask(&self, upstream: &Upstream) -> Option<Result<Heard, String>> {
        watch::ask(self.env, &upstream.name).await
    }
}

/// The Durable Object binding of the upstreams' watchers (`UpstreamObject`,
/// wrangler.toml); a gateway without it lists by time only.
#[cfg(feature = "gateway")]
pub const WATCHERS_BINDING: &str = Class::Watchers.binding();
