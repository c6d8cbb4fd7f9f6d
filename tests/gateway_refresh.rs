//! How an isolate keeps its upstreams' lists (`server::upstreams::Kept`, as the Worker
//! runs it for each request): between two listings (`UPSTREAM_LIST_TTL_MS`) it asks,
//! every `UPSTREAM_WATCH_CHECK_MS`, the watchers of the upstreams that declare
//! `tools.listChanged`, and lists again only when one heard a change; a watcher is asked before its upstream is listed, so what it hears
//! later is listed at the next check; a listing that fails keeps what the watcher had
//! heard before it, so the change is listed at the next check too.
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

mod common;

use common::NOW;
use common::upstream::two_upstreams;

use mcp_tasks_edge::gateway::client::UpstreamError;
use mcp_tasks_edge::gateway::watch::Heard;
use mcp_tasks_edge::gateway::{Upstream, catalog};
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::server::Server;
use mcp_tasks_edge::server::upstreams::{Due, Fetching, Kept, Refreshed, refresh};
use serde_json::json;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

fn base() -> Rc<Server> {
    Rc::new(two_upstreams(Vec::new()))
}

/// Upstreams and watchers that answer as set, recording each request in order.
#[derive(Default)]
struct Reach {
    /// Per upstream: its tools, whether it tells of changes; absent: its listing fails.
    tools: RefCell<HashMap<String, (Vec<&'static str>, bool)>>,
    /// Per upstream: what its watcher heard; absent: the watcher cannot be reached.
    heard: RefCell<HashMap<String, Heard>>,
    /// No watchers bound at all.
    unbound: bool,
    log: RefCell<Vec<String>>,
}

impl Fetching for Reach {
    async fn list(&self, upstream: &Upstream) -> Result<catalog::Listing, UpstreamError> {
        self.log
            .borrow_mut()
            .push(format!("list {}", upstream.name));
        let Some((names, tells)) = self.tools.borrow().get(&upstream.name).cloned() else {
            return Err(UpstreamError::Malformed("it is down".into()));
        };
        let settings = &base().config.gateway;
        let definitions = names
            .iter()
            .map(|n| json!({ "name": n, "inputSchema": { "type": "object" } }));
        let mut listing = catalog::tools(
            upstream,
            definitions.collect(),
            "2025-11-25",
            false,
            settings,
        );
        listing.list_changed = tells;
        Ok(listing)
    }

    async fn ask(&self, upstream: &Upstream) -> Option<Result<Heard, String>> {
        if self.unbound {
            return None;
        }
        self.log.borrow_mut().push(format!("ask {}", upstream.name));
        let heard = self.heard.borrow().get(&upstream.name).copied();
        Some(heard.ok_or_else(|| "the watcher cannot be reached".to_owned()))
    }
}

impl Reach {
    fn up(self, name: &str, tools: Vec<&'static str>, tells: bool) -> Self {
        self.tools.borrow_mut().insert(name.into(), (tools, tells));
        self
    }
    fn hears(&self, name: &str, changes: u64) {
        let heard = Heard {
            since_ms: NOW,
            changes,
        };
        self.heard.borrow_mut().insert(name.into(), heard);
    }
    fn taken(&self) -> Vec<String> {
        std::mem::take(&mut *self.log.borrow_mut())
    }
}

/// One request of the isolate at `now`: the server it answers with.
fn round(base: &Rc<Server>, reach: &Reach, kept: &Kept, now: u64) -> Rc<Server> {
    block_on(kept.current(base.clone(), reach, now)).0
}

fn tools(server: &Server) -> Vec<String> {
    let tools: serde_json::Value = serde_json::from_slice(&server.lists.tools).unwrap();
    let names = tools["tools"].as_array().unwrap().iter();
    names
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn only_watched_upstreams_are_asked_and_a_change_heard_is_listed_at_the_next_check() {
    let base = base();
    let reach =
        Reach::default()
            .up("reports", vec!["export"], true)
            .up("search", vec!["find"], false);
    reach.hears("reports", 0);
    let kept = Kept::default();
    round(&base, &reach, &kept, NOW);
    assert_eq!(
        reach.taken(),
        ["list reports", "list search", "ask reports"]
    );
    round(&base, &reach, &kept, NOW + 999);
    assert!(
        reach.taken().is_empty(),
        "nothing before UPSTREAM_WATCH_CHECK_MS"
    );
    round(&base, &reach, &kept, NOW + 1_000);
    assert_eq!(
        reach.taken(),
        ["ask reports"],
        "the one that tells of changes"
    );
    reach
        .tools
        .borrow_mut()
        .insert("reports".into(), (vec!["export", "merge"], true));
    reach.hears("reports", 1);
    round(&base, &reach, &kept, NOW + 1_500);
    assert!(reach.taken().is_empty(), "checked at NOW + 1000 already");
    let server = round(&base, &reach, &kept, NOW + 2_000);
    assert_eq!(
        reach.taken(),
        ["ask reports", "list reports", "list search"]
    );
    assert_eq!(tools(&server), ["r_export", "r_merge", "s_find"]);
    round(&base, &reach, &kept, NOW + 3_000);
    assert_eq!(reach.taken(), ["ask reports"], "the count listed is kept");
}

#[test]
fn at_the_ttl_the_watchers_are_asked_before_their_upstreams_are_listed() {
    let base = base();
    let reach = Reach::default()
        .up("reports", vec!["export"], true)
        .up("search", vec![], true);
    reach.hears("reports", 3);
    reach.hears("search", 0);
    let kept = Kept::default();
    round(&base, &reach, &kept, NOW);
    reach.taken();
    round(&base, &reach, &kept, NOW + 60_000);
    assert_eq!(
        reach.taken(),
        ["ask reports", "ask search", "list reports", "list search"]
    );
}

#[test]
fn a_failed_listing_keeps_what_was_heard_before_so_the_next_check_lists_again() {
    let base = base();
    let reach = Reach::default()
        .up("reports", vec!["export"], true)
        .up("search", vec![], false);
    reach.hears("reports", 0);
    let kept = Kept::default();
    round(&base, &reach, &kept, NOW);
    reach.taken();
    reach.tools.borrow_mut().remove("reports");
    reach.hears("reports", 1);
    let server = round(&base, &reach, &kept, NOW + 1_000);
    assert_eq!(
        reach.taken(),
        ["ask reports", "list reports", "list search"]
    );
    assert_eq!(tools(&server), ["r_export"], "its last list, kept");
    reach
        .tools
        .borrow_mut()
        .insert("reports".into(), (vec!["export", "merge"], true));
    let server = round(&base, &reach, &kept, NOW + 2_000);
    assert_eq!(
        reach.taken(),
        ["ask reports", "list reports", "list search"]
    );
    assert_eq!(tools(&server), ["r_export", "r_merge"]);
}

#[test]
fn a_watcher_that_began_again_counts_as_a_change_and_one_unreachable_as_none() {
    let base = base();
    let reach = Reach::default()
        .up("reports", vec!["export"], true)
        .up("search", vec![], false);
    reach.hears("reports", 2);
    let kept = Kept::default();
    round(&base, &reach, &kept, NOW);
    reach.taken();
    reach.heard.borrow_mut().remove("reports");
    let due = kept.due(NOW + 1_000);
    let (refreshed, lines) = block_on(refresh(&reach, &base.config.gateway.upstreams, due));
    assert!(
        matches!(refreshed, Refreshed::Unchanged),
        "unreachable: the lists stand"
    );
    let warned = lines[0].render(&Default::default()).unwrap();
    assert!(
        warned.contains("upstream.unwatched") && warned.contains("cannot be reached"),
        "{warned}"
    );
    // Stopped (unasked) and begun again: its count starts over, from another time.
    let restarted = Heard {
        since_ms: NOW + 900,
        changes: 2,
    };
    reach.heard.borrow_mut().insert("reports".into(), restarted);
    let due = kept.due(NOW + 1_000);
    let (refreshed, _) = block_on(refresh(&reach, &base.config.gateway.upstreams, due));
    assert!(
        matches!(refreshed, Refreshed::Fetched(..)),
        "same count, another watcher"
    );
}

#[test]
fn without_watchers_the_lists_are_refreshed_by_time_only() {
    let base = base();
    let reach = Reach {
        unbound: true,
        ..Reach::default()
    }
    .up("reports", vec![], true)
    .up("search", vec![], true);
    let kept = Kept::default();
    round(&base, &reach, &kept, NOW);
    assert_eq!(reach.taken(), ["list reports", "list search"]);
    assert!(
        matches!(kept.due(NOW + 59_999), Due::Fresh(_)),
        "nothing to check"
    );
}
