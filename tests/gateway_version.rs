//! An upstream's configured revision (`"version"` in `UPSTREAMS`): one pinned to
//! 2025-11-25 gets the handshake at once, never `server/discover` (a dual-era server whose
//! tools ask mid-call as only 2025-11-25 carries, a Python SDK 2.x tool's `ctx.elicit`);
//! one pinned to 2026-07-28 that does not offer it is refused, saying why, instead of being
//! spoken to at another revision.
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

use mcp_tasks_edge::gateway::{Settings, catalog};
use mcp_tasks_edge::host::fake::FakeHost;
use mcp_tasks_edge::host::{Host, HostError, Inbound, block_on};
use serde_json::{Value, json};

const URL: &str = "http://127.0.0.1:9000/mcp";

fn answer(status: u16, body: Option<Value>) -> Result<Inbound, HostError> {
    Ok(Inbound {
        status,
        headers: vec![("content-type".into(), "application/json".into())],
        body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
        url: URL.into(),
    })
}

fn result(id: u64, result: Value) -> Option<Value> {
    Some(json!({ "jsonrpc": "2.0", "id": id, "result": result }))
}

fn pinned(version: &str) -> Settings {
    let upstreams = format!(r#"[{{"name":"up","url":"{URL}","version":"{version}"}}]"#);
    Settings::default()
        .with_vars(|n| (n == "UPSTREAMS").then(|| upstreams.clone()))
        .unwrap()
}

fn methods(fake: &FakeHost) -> Vec<String> {
    fake.requests()
        .iter()
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap();
            body["method"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn an_upstream_pinned_to_2025_11_25_gets_the_handshake_without_discovery() {
    let s = pinned("2025-11-25");
    let tools = json!({ "tools": [{ "name": "t", "inputSchema": { "type": "object" } }] });
    let fake = FakeHost::new()
        .answer(
            "POST",
            URL,
            answer(
                200,
                result(
                    1,
                    json!({ "protocolVersion": "2025-11-25", "capabilities": {} }),
                ),
            ),
        )
        .answer("POST", URL, answer(202, None))
        .answer("POST", URL, answer(200, result(2, tools)));
    let listing = block_on(catalog::list(&Host::new(fake.clone()), &s.upstreams[0], &s)).unwrap();
    assert_eq!(listing.tools.len(), 1);
    assert_eq!(
        methods(&fake),
        ["initialize", "notifications/initialized", "tools/list"]
    );
}

#[test]
fn an_upstream_pinned_to_2026_07_28_that_does_not_offer_it_is_refused_saying_why() {
    let s = pinned("2026-07-28");
    let fake = FakeHost::new().answer(
        "POST",
        URL,
        answer(
            200,
            result(
                1,
                json!({ "supportedVersions": ["2025-11-25"], "capabilities": {} }),
            ),
        ),
    );
    let refused =
        block_on(catalog::list(&Host::new(fake.clone()), &s.upstreams[0], &s)).unwrap_err();
    assert!(
        refused.to_string().contains("does not offer 2026-07-28"),
        "{refused}"
    );
    assert_eq!(
        methods(&fake),
        ["server/discover"],
        "no handshake at another revision"
    );
}
