//! Shared helpers for the native tests: build HTTP requests for the pure server and read
//! its answers.
#![allow(dead_code)]

pub mod auth;
pub mod channel;
pub mod effects;
pub mod jobs;
pub mod ledger;
pub mod object;
pub mod plan;
pub mod reach;
pub mod results;
#[cfg(not(target_arch = "wasm32"))]
pub mod schema;
#[cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]
pub mod upstream;

use mcp_tasks_edge::host::{Host, block_on, fake::FakeHost};
use mcp_tasks_edge::http::{Headers, HttpRequest, HttpResponse};
use mcp_tasks_edge::legacy::Incoming;
use mcp_tasks_edge::server::listen::Listen;
use mcp_tasks_edge::server::{Action, Config, Context, Server};
use mcp_tasks_edge::tasks::record::{NewTask, TaskRecord};
use serde_json::{Map, Value, json};

pub const NOW: u64 = 1_764_066_600_000; // 2025-11-25T10:30:00Z
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// The 2025-11-25 session the session tests' requests name.
pub const SID: &str = "0123456789abcdef0123456789abcdef";

/// An HTTP request of `principal` on the session [`SID`], as the Worker hands it to the
/// session object (no `Last-Event-ID`, no `Accept`).
pub fn incoming<'a>(method: &'a str, principal: &'a str, body: &'a [u8]) -> Incoming<'a> {
    Incoming {
        method,
        session_id: SID,
        principal,
        last_event_id: None,
        accept: None,
        body,
    }
}

pub fn server() -> Server {
    Server::new(Config {
        fixtures: true,
        request_state_secret: Some(b"native-test-secret-0123456789".to_vec()),
        ..Config::default()
    })
}

/// A working task of `tool` (anonymous, no TTL, its step due at [`NOW`]), for a client
/// declaring `capabilities`, resuming from `checkpoint`.
pub fn working_task(tool: &str, capabilities: Value, checkpoint: Value) -> TaskRecord {
    let capabilities = match capabilities {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let mut record = TaskRecord::new(NewTask {
        tool: tool.into(),
        title: None,
        owner: "anonymous".into(),
        arguments: Map::new(),
        capabilities,
        checkpoint,
        answers: Map::new(),
        status_message: None,
        amount: None,
        now_ms: NOW,
        ttl_ms: None,
        poll_interval_ms: 1000,
        next_step_at_ms: NOW,
    });
    record.assign_id(SID.into());
    record
}

pub fn ctx() -> Context {
    Context {
        principal: "anonymous".into(),
        now_ms: NOW,
    }
}

/// `_meta` with the given client capabilities.
pub fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "native-tests", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": capabilities
    })
}

/// A well-formed POST for `method` with `params` (`_meta` added if absent) and the
/// standard headers derived from the body.
pub fn post(method: &str, mut params: Value) -> HttpRequest {
    if params.get("_meta").is_none() {
        params["_meta"] = meta(
            json!({ "extensions": { TASKS: {} }, "elicitation": {}, "sampling": {}, "roots": {} }),
        );
    }
    let mut headers = Headers::from([
        ("content-type", "application/json"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ]);
    let name = match method {
        "tools/call" | "prompts/get" => params["name"].as_str(),
        "resources/read" => params["uri"].as_str(),
        "tasks/get" | "tasks/update" | "tasks/cancel" => params["taskId"].as_str(),
        _ => None,
    };
    if let Some(name) = name {
        headers.push(
            "mcp-name",
            &mcp_tasks_edge::mcp::headers::encode_value(name),
        );
    }
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    HttpRequest {
        method: "POST".into(),
        path: "/mcp".into(),
        headers,
        body: serde_json::to_vec(&body).unwrap(),
    }
}

pub fn raw(body: &str) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        path: "/mcp".into(),
        headers: Headers::from([
            ("content-type", "application/json"),
            ("mcp-protocol-version", "2026-07-28"),
        ]),
        body: body.as_bytes().to_vec(),
    }
}

/// Resolves an [`Action::Run`] the way the adapter does (steps run with a fake host).
pub fn run_action(server: &Server, action: Action) -> Action {
    run_action_at(server, action, &ctx())
}

pub fn run_action_at(server: &Server, action: Action, ctx: &Context) -> Action {
    match action {
        Action::Run(run) => {
            let host = Host::new(FakeHost::new().at(ctx.now_ms));
            block_on(server.run(*run, ctx, &host, &Default::default(), None, &|_| {}))
        }
        Action::Read(read) => {
            Action::Respond(block_on(server.read(*read, &Host::new(FakeHost::new()))))
        }
        other => other,
    }
}

pub fn respond(server: &Server, request: &HttpRequest) -> HttpResponse {
    match run_action(server, server.handle(request, &ctx())) {
        Action::Respond(response) => response,
        other => panic!("expected a direct response, got {other:?}"),
    }
}

pub fn body(response: &HttpResponse) -> Value {
    serde_json::from_slice(&response.body).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {:?}",
            String::from_utf8_lossy(&response.body)
        )
    })
}

/// (HTTP status, JSON-RPC error code) of an error response.
pub fn error_of(response: &HttpResponse) -> (u16, i64) {
    let b = body(response);
    (
        response.status,
        b["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("no error in {b}")),
    )
}

/// The stream `server` opens for a `subscriptions/listen` asking for `notifications`.
pub fn listen_of(server: &Server, notifications: Value) -> Listen {
    let request = post(
        "subscriptions/listen",
        json!({ "notifications": notifications }),
    );
    match server.handle(&request, &ctx()) {
        Action::Listen(listen) => *listen,
        other => panic!("expected a listen stream, got {other:?}"),
    }
}

/// A task's state as its object answers it (the 2026-07-28 shape a legacy session reads):
/// `status`, created at [`NOW`], with `extra` fields.
pub fn task_state(task_id: &str, status: &str, extra: Value) -> Value {
    let mut task = json!({ "taskId": task_id, "status": status, "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttlMs": 60000 });
    task.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    task
}

/// Pending once (waking its task at once), then ready: an I/O round trip in a double, so
/// that other futures run meanwhile.
pub async fn yield_once() {
    let mut yielded = false;
    std::future::poll_fn(|cx| match std::mem::replace(&mut yielded, true) {
        true => std::task::Poll::Ready(()),
        false => {
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await
}
