//! A server with its upstreams' tools (`crate::gateway`). What an isolate does to keep
//! their lists ([`refresh`], over the adapter's [`Fetching`]): list every upstream when
//! its lists are older than `UPSTREAM_LIST_TTL_MS`; in between, every
//! `UPSTREAM_WATCH_CHECK_MS`, ask the watchers of the upstreams that declare
//! `tools.listChanged` (`gateway::watch`) and list again when one heard a change. Each
//! watcher is asked before its upstream is listed, so a change heard after the listing
//! began moves its count past what the isolate keeps and is listed at the next check.
//! [`Listed::merge`] makes the server they make ([`Server::with_upstream_tools`]), and
//! [`Kept`] keeps it for the isolate's requests ([`Kept::current`]). An
//! upstream that cannot be listed keeps the tools it listed last (none, the first time: its
//! tasks then wait for a list, `Registry::awaited`), and the log says why.

use super::{Server, jobs};
use crate::tools::Tool;
#[cfg(feature = "gateway")]
use {
    crate::concurrent::join_all,
    crate::gateway::Upstream,
    crate::gateway::catalog::Listing,
    crate::gateway::client::UpstreamError,
    crate::gateway::watch::Heard,
    crate::ops::log::{Level, Line},
    std::cell::RefCell,
    std::rc::Rc,
};

/// An isolate's lists between its requests (the adapter keeps one per isolate).
#[cfg(feature = "gateway")]
#[derive(Default)]
pub struct Kept(RefCell<Option<Listed>>);

#[cfg(feature = "gateway")]
impl Kept {
    /// What the lists need at `now_ms` ([`Listed::due`]; all of them, the first time).
    pub fn due(&self, now_ms: u64) -> Due {
        match self.0.borrow().as_ref() {
            Some(listed) => listed.due(now_ms),
            None => Due::List(Vec::new()),
        }
    }

    /// The server to answer with at `now_ms`: `base` (a server with upstreams) with its
    /// upstreams' tools, the lists refreshed through `f` first when due; and the log
    /// lines to print.
    pub async fn current<F: Fetching>(
        &self,
        base: Rc<Server>,
        f: &F,
        now_ms: u64,
    ) -> (Rc<Server>, Vec<Line>) {
        let due = match self.due(now_ms) {
            Due::Fresh(server) => return (server, Vec::new()),
            due => due,
        };
        let (refreshed, mut lines) = refresh(f, &base.config.gateway.upstreams, due).await;
        let server = match refreshed {
            Refreshed::Fetched(fetched, heard) => {
                let mut kept = self.0.borrow_mut();
                let (listed, merged) = Listed::merge(&base, kept.as_ref(), fetched, heard, now_ms);
                lines.extend(merged);
                kept.insert(listed).server.clone()
            }
            // A check needs lists: the isolate has them.
            Refreshed::Unchanged => match self.0.borrow_mut().as_mut() {
                Some(listed) => {
                    listed.checked(now_ms);
                    listed.server.clone()
                }
                None => base,
            },
        };
        (server, lines)
    }
}

/// The lists fetched last in an isolate, and the server they make.
#[cfg(feature = "gateway")]
pub struct Listed {
    fetched_at_ms: u64,
    checked_at_ms: u64,
    /// Each upstream's tools, in `UPSTREAMS` order (kept when a refresh fails); `None`
    /// while it was never listed.
    lists: Vec<Option<Vec<Tool>>>,
    /// What the watcher of each upstream that tells of changes had heard before its list
    /// was fetched (`None`: not watched).
    heard: Vec<Option<Heard>>,
    pub server: Rc<Server>,
}

/// What an isolate's lists need at a given time ([`Listed::due`]).
#[cfg(feature = "gateway")]
pub enum Due {
    /// They stand: this server.
    Fresh(Rc<Server>),
    /// Ask these upstreams' watchers (index, what it had heard) whether they heard more.
    Check(Vec<(usize, Heard)>),
    /// List every upstream, asking first the watchers of these.
    List(Vec<usize>),
}

/// What the isolate reaches to keep its lists: the upstreams, and their watchers.
#[cfg(feature = "gateway")]
#[allow(async_fn_in_trait)]
pub trait Fetching {
    async fn list(&self, upstream: &Upstream) -> Result<Listing, UpstreamError>;
    /// What `upstream`'s watcher heard (and it keeps watching); `None` when this
    /// deployment has no watchers.
    async fn ask(&self, upstream: &Upstream) -> Option<Result<Heard, String>>;
}

/// What [`refresh`] found.
#[cfg(feature = "gateway")]
pub enum Refreshed {
    /// No watcher heard a change: the lists stand (checked now).
    Unchanged,
    /// Every upstream's list as fetched, and what its watcher had heard before (to keep).
    Fetched(Vec<Result<Listing, UpstreamError>>, Vec<Option<Heard>>),
}

/// Does what `due` says (not [`Due::Fresh`]): the lists fetched, or that none moved; and
/// the log lines of watchers that could not be asked.
#[cfg(feature = "gateway")]
pub async fn refresh<F: Fetching>(
    f: &F,
    upstreams: &[Upstream],
    due: Due,
) -> (Refreshed, Vec<Line>) {
    let mut lines = Vec::new();
    let mut heard = vec![None; upstreams.len()];
    let asked = |indices: Vec<usize>| {
        join_all(
            indices
                .into_iter()
                .map(|i| async move { (i, f.ask(&upstreams[i]).await) }),
        )
    };
    let (to_ask, before) = match due {
        Due::Fresh(_) => return (Refreshed::Unchanged, lines),
        Due::Check(known) => (known.iter().map(|(i, _)| *i).collect(), Some(known)),
        Due::List(watched) => (watched, None),
    };
    let mut moved = before.is_none();
    for (i, answer) in asked(to_ask).await {
        match answer {
            Some(Ok(now)) => {
                let was = before
                    .iter()
                    .flatten()
                    .find(|(j, _)| *j == i)
                    .map(|(_, h)| *h);
                moved |= was.is_some_and(|was| was != now);
                heard[i] = Some(now);
            }
            Some(Err(e)) => lines.push(unasked(&upstreams[i], &e)),
            None => {}
        }
    }
    if !moved {
        return (Refreshed::Unchanged, lines);
    }
    let fetched = join_all(upstreams.iter().map(|u| f.list(u))).await;
    // Upstreams that told of changes for the first time: their watchers, asked now.
    let first: Vec<usize> = fetched
        .iter()
        .enumerate()
        .filter(|(i, l)| heard[*i].is_none() && matches!(l, Ok(l) if l.list_changed))
        .map(|(i, _)| i)
        .collect();
    for (i, answer) in asked(first).await {
        match answer {
            Some(Ok(now)) => heard[i] = Some(now),
            Some(Err(e)) => lines.push(unasked(&upstreams[i], &e)),
            None => {}
        }
    }
    (Refreshed::Fetched(fetched, heard), lines)
}

#[cfg(feature = "gateway")]
fn unasked(upstream: &Upstream, why: &str) -> Line {
    Line::new("upstream.unwatched", Level::Warn)
        .field("upstream", upstream.name.as_str())
        .error(why)
}

#[cfg(feature = "gateway")]
impl Listed {
    /// What the lists need at `now_ms`: listing once older than `UPSTREAM_LIST_TTL_MS`,
    /// else a check of the watched upstreams every `UPSTREAM_WATCH_CHECK_MS`, else
    /// nothing.
    pub fn due(&self, now_ms: u64) -> Due {
        let gateway = &self.server.config.gateway;
        let watched = || {
            self.heard
                .iter()
                .enumerate()
                .filter_map(|(i, h)| Some((i, (*h)?)))
        };
        if now_ms.saturating_sub(self.fetched_at_ms) >= gateway.list_ttl_ms {
            return Due::List(watched().map(|(i, _)| i).collect());
        }
        let checking = gateway.watch_check_ms > 0
            && now_ms.saturating_sub(self.checked_at_ms) >= gateway.watch_check_ms;
        match watched().collect::<Vec<_>>() {
            watched if checking && !watched.is_empty() => Due::Check(watched),
            _ => Due::Fresh(self.server.clone()),
        }
    }

    /// The watchers were asked at `now_ms` and heard nothing new.
    pub fn checked(&mut self, now_ms: u64) {
        self.checked_at_ms = now_ms;
    }

    /// The server `base` makes with its upstreams' lists just `fetched` (one outcome per
    /// upstream, in `UPSTREAMS` order; a failure keeps that upstream's list, and what its
    /// watcher had heard, in `previous`), what each watcher had `heard` before, and the
    /// log lines to print: one per upstream, and the names left out.
    pub fn merge<E: std::fmt::Display>(
        base: &Server,
        previous: Option<&Listed>,
        fetched: Vec<Result<Listing, E>>,
        heard: Vec<Option<Heard>>,
        now_ms: u64,
    ) -> (Listed, Vec<Line>) {
        let upstreams = &base.config.gateway.upstreams;
        let (mut lists, mut awaiting, mut lines) = (Vec::new(), Vec::new(), Vec::new());
        let mut kept_heard = Vec::new();
        let heard = heard.into_iter().chain(std::iter::repeat(None));
        for (i, ((upstream, outcome), heard)) in
            upstreams.iter().zip(fetched).zip(heard).enumerate()
        {
            let line = match outcome {
                Ok(listing) => {
                    let line = Line::new("upstream.listed", Level::Info)
                        .field("upstream", upstream.name.as_str())
                        .field("tools", listing.tools.len() as u64);
                    lists.push(Some(listing.tools));
                    kept_heard.push(heard.filter(|_| listing.list_changed));
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
                    kept_heard.push(previous.and_then(|p| p.heard.get(i).copied().flatten()));
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
            checked_at_ms: now_ms,
            lists,
            heard: kept_heard,
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

    /// Whether this server tells its clients when its tool list changes
    /// ([`tells_tool_changes`]).
    pub fn tells_tool_changes(&self) -> bool {
        tells_tool_changes(&self.config)
    }

    /// Whether this deployment fronts upstream servers: never, in a build without the
    /// `gateway` feature (`UPSTREAMS` is then refused as configuration).
    #[cfg(not(feature = "gateway"))]
    pub fn has_upstreams(&self) -> bool {
        false
    }
}

/// Whether a server so configured tells its clients when its tool list changes
/// (`tools.listChanged`): a gateway that asks its upstreams' watchers
/// (`UPSTREAM_WATCH_CHECK_MS` not 0) tells its 2025-11-25 sessions and the listen streams
/// that ask for `toolsListChanged` (docs/gateway.md).
#[cfg(feature = "gateway")]
pub fn tells_tool_changes(config: &super::Config) -> bool {
    !config.gateway.upstreams.is_empty() && config.gateway.watch_check_ms > 0
}

/// Never, in a build without the `gateway` feature: the tools are the author's.
#[cfg(not(feature = "gateway"))]
pub fn tells_tool_changes(_: &super::Config) -> bool {
    false
}
