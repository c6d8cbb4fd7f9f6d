//! The isolate's server with its upstreams' tools (`crate::gateway`): when to fetch
//! their lists and what they make is the core's (`server::upstreams::Listed`); this
//! keeps them for the isolate and fetches.

use super::server;
use crate::server::Server;
use std::rc::Rc;
use worker::Env;
#[cfg(feature = "gateway")]
use {
    super::{WorkerHost, log, now_ms},
    crate::concurrent::join_all,
    crate::gateway::catalog,
    crate::server::upstreams::Listed,
    std::cell::RefCell,
};

/// The deployment's own server: a build without the `gateway` feature has no upstreams.
#[cfg(not(feature = "gateway"))]
pub(crate) async fn current(env: &Env, build: fn() -> Server) -> worker::Result<Rc<Server>> {
    server(env, build)
}

#[cfg(feature = "gateway")]
thread_local! {
    /// The lists fetched last in this isolate, and the server they make.
    static LISTED: RefCell<Option<Listed>> = const { RefCell::new(None) };
}

/// The server to answer with: the deployment's own, with its upstreams' tools when it
/// has upstreams (`server::upstreams::Listed`), their lists fetched concurrently through
/// the outbound policy when this isolate's are too old.
#[cfg(feature = "gateway")]
pub(crate) async fn current(env: &Env, build: fn() -> Server) -> worker::Result<Rc<Server>> {
    let base = server(env, build)?;
    if !base.has_upstreams() {
        return Ok(base);
    }
    let now = now_ms();
    let fresh = LISTED.with(|l| l.borrow().as_ref().and_then(|l| l.fresh(now)));
    if let Some(server) = fresh {
        return Ok(server);
    }
    let host = WorkerHost::host(env.clone(), &base);
    let settings = &base.config.gateway;
    let lists = settings.upstreams.iter();
    let fetched = join_all(lists.map(|upstream| catalog::list(&host, upstream, settings))).await;
    let (listed, lines) = LISTED.with(|l| Listed::merge(&base, l.borrow().as_ref(), fetched, now));
    log::print_all(lines, &base.config.log);
    let server = listed.server.clone();
    LISTED.with(|l| *l.borrow_mut() = Some(listed));
    Ok(server)
}
