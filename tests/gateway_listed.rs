//! The isolate's lists of its upstreams' tools (`server::upstreams::Listed`): used while
//! younger than `UPSTREAM_LIST_TTL_MS`; on a refresh, an upstream that cannot be listed
//! keeps the tools it listed last (and, never listed, its tasks wait for a list); a name
//! this server has already is left out; each outcome is a log line.
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

mod common;

use common::NOW;
use common::upstream::two_upstreams;

use mcp_tasks_edge::gateway::catalog::{self, Listing};
use mcp_tasks_edge::ops::log::{Line, LogSettings};
use mcp_tasks_edge::server::Server;
use mcp_tasks_edge::server::upstreams::{Due, Listed};
use mcp_tasks_edge::tools::{Step, Tool};
use serde_json::{Value, json};

fn base() -> Server {
    let own = Tool::new("r_render", "this server's own").sync(|_| Step::text("x"));
    two_upstreams(vec![own])
}

/// `upstream`'s (0 or 1) list of tools named `names`.
fn listing(server: &Server, upstream: usize, names: &[&str]) -> Result<Listing, String> {
    let definitions = names
        .iter()
        .map(|n| json!({ "name": n, "inputSchema": { "type": "object" } }));
    let settings = &server.config.gateway;
    let up = &settings.upstreams[upstream];
    Ok(catalog::tools(
        up,
        definitions.collect(),
        "2025-11-25",
        false,
        settings,
    ))
}

fn names(server: &Server) -> Vec<String> {
    let listed: Value = serde_json::from_slice(&server.lists.tools).unwrap();
    let tools = listed["tools"].as_array().unwrap().iter();
    tools
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

fn printed(lines: &[Line]) -> Vec<Value> {
    let text = lines
        .iter()
        .map(|l| l.render(&LogSettings::default()).unwrap());
    text.map(|t| serde_json::from_str(&t).unwrap()).collect()
}

#[test]
fn lists_are_used_while_younger_than_the_ttl() {
    let base = base();
    let fetched = vec![listing(&base, 0, &["export"]), listing(&base, 1, &["find"])];
    let (listed, lines) = Listed::merge(&base, None, fetched, vec![], NOW);
    assert_eq!(names(&listed.server), ["r_render", "r_export", "s_find"]);
    assert!(matches!(listed.due(NOW + 59_999), Due::Fresh(_)));
    assert!(
        matches!(listed.due(NOW + 60_000), Due::List(w) if w.is_empty()),
        "fetched again once the TTL passed (no watcher to ask first)"
    );
    let lines = printed(&lines);
    assert_eq!(lines.len(), 2);
    assert_eq!(
        (lines[0]["event"].as_str(), lines[0]["upstream"].as_str()),
        (Some("upstream.listed"), Some("reports"))
    );
    assert_eq!(lines[1]["tools"], 1);
}

#[test]
fn an_upstream_that_cannot_be_listed_keeps_its_last_list_or_its_tasks_wait() {
    let base = base();
    let first = vec![
        listing(&base, 0, &["export"]),
        Err("search.example: HTTP 503".into()),
    ];
    let (listed, lines) = Listed::merge(&base, None, first, vec![], NOW);
    assert_eq!(names(&listed.server), ["r_render", "r_export"]);
    assert_eq!(
        listed.server.registry.awaited("s_find"),
        Some("search"),
        "never listed: waits"
    );
    let warned = &printed(&lines)[1];
    assert_eq!(warned["event"], "upstream.unlisted");
    assert!(warned["error"].as_str().unwrap().contains("HTTP 503"));
    // Both fail on the next refresh: reports keeps what it listed last.
    let again = vec![Err("timeout".to_owned()), Err("timeout".to_owned())];
    let (relisted, _) = Listed::merge(&base, Some(&listed), again, vec![], NOW + 60_000);
    assert_eq!(names(&relisted.server), ["r_render", "r_export"]);
    assert_eq!(relisted.server.registry.awaited("r_export"), None);
    assert_eq!(relisted.server.registry.awaited("s_find"), Some("search"));
}

#[test]
fn a_name_this_server_has_already_is_left_out_and_said() {
    let base = base();
    let fetched = vec![
        listing(&base, 0, &["render", "export"]),
        listing(&base, 1, &[]),
    ];
    let (listed, lines) = Listed::merge(&base, None, fetched, vec![], NOW);
    assert_eq!(names(&listed.server), ["r_render", "r_export"]);
    let clash = printed(&lines).pop().unwrap();
    assert_eq!(clash["event"], "upstream.clash");
    assert!(
        clash["left_out"]
            .as_str()
            .unwrap()
            .starts_with("r_render (a name this server has already")
    );
}
