//! A server with its upstreams' tools (`crate::gateway`): the adapter fetches their
//! lists when [`Listed::fresh`] says the isolate's are too old (`UPSTREAM_LIST_TTL_MS`),
//! and [`Listed::merge`] makes the server they make ([`Server::with_upstream_tools`]).
//! An upstream that cannot be listed keeps the tools it listed last (none, the first
//! time: its tasks then wait for a list, `Registry::awaited`), and the log says why.

use super::{Server, jobs};
use crate::tools::Tool;
#[cfg(feature = "gateway")]
use {
    crate::gateway::catalog::Listing,
    crate::ops::log::{Level, Line},
    std::rc::Rc,
};

/// The upstreams' lists fetched last in an isolate, and the server they make.
#[cfg(feature = "gateway")]
pub struct Listed {
    fetched_at_ms: u64,
    /// Each upstream's tools, in `UPSTREAMS` order (kept when a refresh fails); `None`
    /// while it was never listed.
    lists: Vec<Option<Vec<Tool>>>,
    pub server: Rc<Server>,
}

#[cfg(feature = "gateway")]
impl Listed {
    /// The server made at the last listing, while it is younger than
    /// `UPSTREAM_LIST_TTL_MS`.
    pub fn fresh(&self, now_ms: u64) -> Option<Rc<Server>> {
        let ttl = self.server.config.gateway.list_ttl_ms;
        (now_ms.saturating_sub(self.fetched_at_ms) < ttl).then(|| self.server.clone())
    }

    /// The server `base` makes with its upstreams' lists just `fetched` (one outcome per
    /// upstream, in `UPSTREAMS` order; a failure keeps that upstream's list in
    /// `previous`), and the log lines to print: one per upstream, and the names left out.
    pub fn merge<E: std::fmt::Display>(
        base: &Server,
        previous: Option<&Listed>,
        fetched: Vec<Result<Listing, E>>,
        now_ms: u64,
    ) -> (Listed, Vec<Line>) {
        let upstreams = &base.config.gateway.upstreams;
        let (mut lists, mut awaiting, mut lines) = (Vec::new(), Vec::new(), Vec::new());
        for (i, (upstream, outcome)) in upstreams.iter().zip(fetched).enumerate() {
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
                    let kept = previous.and_then(|p| p.lists.get(i).cloned().flatten());
                    if kept.is_none() {
                        awaiting.push((upstream.prefix.clone(), upstream.name.clone()));
                    }
                    lists.push(kept);
                    Line::new("upstream.unlisted", Level::Warn)
                        .field("upstream", upstream.name.as_str())
                        .error(&e.to_string())
                }
            };
            lines.push(line);
        }
        let tools = lists.iter().flatten().flatten().cloned().collect();
        let (server, clashes) = base.with_upstream_tools(tools, awaiting);
        if !clashes.is_empty() {
            let left_out = format!(
                "{} (a name this server has already; give the upstream a prefix)",
                clashes.join(", ")
            );
            lines.push(Line::new("upstream.clash", Level::Warn).field("left_out", left_out));
        }
        let server = Rc::new(server);
        let listed = Listed {
            fetched_at_ms: now_ms,
            lists,
            server,
        };
        (listed, lines)
    }
}

impl Server {
    /// This server with `upstream` tools added after its own. A tool whose name is taken
    /// (by a tool of this server, an earlier upstream tool, or a job handle tool) is left
    /// out and named in the second value: a prefix (`UPSTREAMS`) tells them apart.
    ///
    /// `awaiting` names the upstreams whose tools are not known (their list could not be
    /// fetched) by (prefix, name): a task of such a tool waits for them
    /// ([`crate::tools::Registry::awaited`]).
    pub fn with_upstream_tools(
        &self,
        upstream: Vec<Tool>,
        awaiting: Vec<(String, String)>,
    ) -> (Server, Vec<String>) {
        let mut tools = self.tools.clone();
        let mut clashes = Vec::new();
        for tool in upstream {
            let name = tool.name();
            let taken = self.registry.get(name).is_some()
                || tools.iter().any(|t| t.name() == name)
                || jobs::RESERVED.contains(&name);
            if taken {
                clashes.push(name.to_owned());
            } else {
                tools.push(tool);
            }
        }
        let mut server = Server::assemble(
            self.config.clone(),
            tools,
            self.own_catalog.clone(),
            self.instructions.clone(),
        );
        server.registry = server.registry.awaiting(awaiting);
        (server, clashes)
    }

    /// Whether this deployment fronts upstream servers (`UPSTREAMS`).
    #[cfg(feature = "gateway")]
    pub fn has_upstreams(&self) -> bool {
        !self.config.gateway.upstreams.is_empty()
    }

    /// Whether this deployment fronts upstream servers: never, in a build without the
    /// `gateway` feature (`UPSTREAMS` is then refused as configuration).
    #[cfg(not(feature = "gateway"))]
    pub fn has_upstreams(&self) -> bool {
        false
    }
}
