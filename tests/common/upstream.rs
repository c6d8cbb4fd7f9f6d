//! A scripted upstream for the gateway's step tests (`tests/gateway_step.rs`,
//! `tests/gateway_answers.rs`): canned answers on one URL, in order, and what was sent.

use mcp_tasks_edge::gateway::{Settings, catalog};
use mcp_tasks_edge::host::fake::{FakeHost, Piece};
use mcp_tasks_edge::host::{HostError, Inbound};
use mcp_tasks_edge::tools::{Call, Tool};
use serde_json::{Value, json};

pub const URL: &str = "http://127.0.0.1:9000/mcp";

pub fn answer(
    status: u16,
    content_type: &str,
    body: String,
    session: Option<&str>,
) -> Result<Inbound, HostError> {
    let mut headers = vec![("content-type".to_owned(), content_type.to_owned())];
    if let Some(s) = session {
        headers.push(("mcp-session-id".into(), s.into()));
    }
    Ok(Inbound {
        status,
        headers,
        body: body.into_bytes(),
        url: URL.into(),
    })
}

pub fn result(id: u64, result: Value) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()
}

/// An upstream that answers initialize (with `capabilities`) and notifications/initialized.
pub fn upstream(capabilities: Value) -> FakeHost {
    let init = result(
        1,
        json!({ "protocolVersion": "2025-11-25", "capabilities": capabilities, "serverInfo": { "name": "up", "version": "1" } }),
    );
    FakeHost::new()
        .secret("UP_TOKEN", "gateway-secret")
        .answer(
            "POST",
            URL,
            answer(200, "application/json", init, Some("s1")),
        )
        .answer("POST", URL, answer(202, "text/plain", String::new(), None))
        .answer(
            "DELETE",
            URL,
            answer(200, "text/plain", String::new(), None),
        )
}

/// An upstream whose session is open already (a step in the task object resumes it).
pub fn resumed() -> FakeHost {
    FakeHost::new().secret("UP_TOKEN", "gateway-secret").answer(
        "DELETE",
        URL,
        answer(200, "text/plain", String::new(), None),
    )
}

pub fn tool(definition: Value, tasks: bool) -> Tool {
    let settings = Settings::default()
        .with_vars(|n| {
            (n == "UPSTREAMS").then(|| {
                format!(r#"[{{"name":"up","url":"{URL}","prefix":"up_","token":"UP_TOKEN"}}]"#)
            })
        })
        .unwrap();
    let mut listing = catalog::tools(
        &settings.upstreams[0],
        vec![definition],
        "2025-11-25",
        tasks,
        &settings,
    );
    assert!(listing.skipped.is_empty(), "{:?}", listing.skipped);
    listing.tools.remove(0)
}

pub fn plain(name: &str, annotations: Value) -> Value {
    json!({ "name": name, "inputSchema": { "type": "object" }, "annotations": annotations })
}

pub fn in_object(call: Call, checkpoint: Value, attempt: u32) -> Call {
    let mut call = call.checkpoint_at(checkpoint);
    call.task_id = Some("task-1".into());
    call.attempt = attempt;
    call
}

pub fn bodies(fake: &FakeHost) -> Vec<Value> {
    fake.requests()
        .iter()
        .filter(|r| r.method == "POST")
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

/// The watcher's tests' upstream (`tests/gateway_watch.rs`, `tests/gateway_hold.rs`):
/// its settings, as `UPSTREAMS` names it.
pub fn watched_settings() -> Settings {
    let up = format!(r#"[{{"name":"up","url":"{URL}","prefix":"up_","token":"UP_TOKEN"}}]"#);
    Settings::default()
        .with_vars(|n| (n == "UPSTREAMS").then(|| up.clone()))
        .unwrap()
}

/// One `message` event of an SSE body.
pub fn event(message: Value) -> Piece {
    Piece::Data(format!("event: message\ndata: {message}\n\n"))
}

/// `notifications/tools/list_changed` as an event.
pub fn changed() -> Piece {
    event(json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" }))
}

/// A 2025-11-25 upstream (no `server/discover`) that opens a session and closes it.
pub fn legacy_session() -> FakeHost {
    let refused =
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"No valid session"}}"#;
    let init = json!({ "protocolVersion": "2025-11-25", "capabilities": { "tools": { "listChanged": true } } });
    FakeHost::new()
        .secret("UP_TOKEN", "gateway-secret")
        .answer(
            "POST",
            URL,
            answer(400, "application/json", refused.into(), None),
        )
        .answer(
            "POST",
            URL,
            answer(200, "application/json", result(1, init), Some("s1")),
        )
        .answer("POST", URL, answer(202, "text/plain", String::new(), None))
        .answer(
            "DELETE",
            URL,
            answer(200, "text/plain", String::new(), None),
        )
}

/// [`legacy_session`], its session's GET stream `pieces`.
pub fn legacy(pieces: Vec<Piece>) -> FakeHost {
    legacy_session().stream("GET", URL, 200, "text/event-stream", pieces)
}

/// A gateway in front of two upstreams, `reports` (its tools prefixed `r_`) and `search`
/// (`s_`), their lists used for a minute, the watchers asked every second; `own` its own
/// tools (`tests/gateway_listed.rs`, `tests/gateway_refresh.rs`).
pub fn two_upstreams(own: Vec<Tool>) -> mcp_tasks_edge::server::Server {
    const UPSTREAMS: &str = r#"[{"name":"reports","url":"https://reports.example/mcp","prefix":"r_"},
        {"name":"search","url":"https://search.example/mcp","prefix":"s_"}]"#;
    let config = mcp_tasks_edge::server::Config::from_vars(|name| match name {
        "UPSTREAMS" => Some(UPSTREAMS.into()),
        "UPSTREAM_LIST_TTL_MS" => Some("60000".into()),
        "UPSTREAM_WATCH_CHECK_MS" => Some("1000".into()),
        _ => None,
    });
    let builder = own
        .into_iter()
        .fold(mcp_tasks_edge::server::Server::builder("gw"), |b, t| {
            b.tool(t)
        });
    builder.build().configure(config.unwrap())
}
