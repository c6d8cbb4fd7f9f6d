//! The isolate's server with its upstreams' tools (`crate::gateway`): their lists are
//! fetched on first use and again once `UPSTREAM_LIST_TTL_MS` has passed, concurrently,
//! through the outbound policy. An upstream that cannot be listed keeps the tools it
//! listed last (none, the first time), and the log says why.

use super::server;
use crate::server::Server;
use std::rc::Rc;
use worker::Env;
#[cfg(feature = "gateway")]
use {
    super::{WorkerHost, log, now_ms},
    crate::concurrent::join_all,
    crate::gateway::catalog,
    crate::ops::log::{Level, Line},
    crate::tools::Tool,
    std::cell::RefCell,
};

/// The deployment's own server: a build without the `gateway` feature has no upstreams.
#[cfg(not(feature = "gateway"))]
pub(crate) async fn current(env: &Env, build: fn() -> Server) -> worker::Result<Rc<Server>> {
    server(env, build)
}

/// The last lists fetched, and the server they make.
#[cfg(feature = "gateway")]
struct Cached {
    fetched_at_ms: u64,
    /// Each upstream's tools, in `UPSTREAMS` order (kept when a refresh fails); `None`
    /// while it was never listed.
    lists: Vec<Option<Vec<Tool>>>,
    server: Rc<Server>,
}

#[cfg(feature = "gateway")]
thread_local! {
    static CACHE: RefCell<Option<Cached>> = const { RefCell::new(None) };
}

/// The server to answer with: the deployment's own, with its upstreams' tools when it
/// has upstreams.
#[cfg(feature = "gateway")]
pub(crate) async fn current(env: &Env, build: fn() -> Server) -> worker::Result<Rc<Server>> {
    let base = server(env, build)?;
    if !base.has_upstreams() {
        return Ok(base);
    }
    let now = now_ms();
    let ttl = base.config.gateway.list_ttl_ms;
    let fresh = CACHE.with(|c| {
        c.borrow()
            .as_ref()
            .filter(|c| now.saturating_sub(c.fetched_at_ms) < ttl)
            .map(|c| c.server.clone())
    });
    if let Some(server) = fresh {
        return Ok(server);
    }
    let previous: Vec<Option<Vec<Tool>>> = CACHE.with(|c| {
        c.borrow()
            .as_ref()
            .map(|c| c.lists.clone())
            .unwrap_or_default()
    });
    let host = WorkerHost::host(env.clone(), &base);
    let settings = &base.config.gateway;
    let fetched = join_all(
        settings
            .upstreams
            .iter()
            .map(|upstream| catalog::list(&host, upstream, settings)),
    )
    .await;
    let mut lists = Vec::with_capacity(fetched.len());
    let mut awaiting = Vec::new();
    for (i, (upstream, outcome)) in settings.upstreams.iter().zip(fetched).enumerate() {
        let line = match outcome {
            Ok(listing) => {
                let line = Line::new("upstream.listed", Level::Info)
                    .field("upstream", upstream.name.as_str())
                    .field("tools", listing.tools.len() as u64);
                lists.push(Some(listing.tools));
                match listing.skipped.as_slice() {
                    [] => line,
                    skipped => line.field("skipped", skipped.join("; ")),
                }
            }
            Err(e) => {
                // Its last good list, if any; else its tasks wait for one (`Registry::awaited`).
                let kept = previous.get(i).cloned().flatten();
                if kept.is_none() {
                    awaiting.push((upstream.prefix.clone(), upstream.name.clone()));
                }
                lists.push(kept);
                Line::new("upstream.unlisted", Level::Warn)
                    .field("upstream", upstream.name.as_str())
                    .error(&e.to_string())
            }
        };
        log::print(&line, &base.config.log);
    }
    let (merged, clashes) = base.with_upstream_tools(
        lists.iter().flatten().flatten().cloned().collect(),
        awaiting,
    );
    if !clashes.is_empty() {
        let line = Line::new("upstream.clash", Level::Warn).field(
            "left_out",
            format!(
                "{} (a name this server has already; give the upstream a prefix)",
                clashes.join(", ")
            ),
        );
        log::print(&line, &base.config.log);
    }
    let merged = Rc::new(merged);
    CACHE.with(|c| {
        *c.borrow_mut() = Some(Cached {
            fetched_at_ms: now,
            lists,
            server: merged.clone(),
        })
    });
    Ok(merged)
}
