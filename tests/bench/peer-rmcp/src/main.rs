//! The rmcp peer of `make bench`: a minimal MCP server on the official Rust SDK,
//! rmcp 3.11, serving the project's `slow_compute` fixture so the full task lifecycles can be
//! compared with a mainstream implementation in the same run.
//!
//! - Streamable HTTP (rmcp's `StreamableHttpService`) on `127.0.0.1:<port>`, stateless
//!   (`legacy_session_mode: false`) with JSON responses (`json_response: true`): a
//!   2026-07-28 POST carrying `_meta` (protocolVersion, clientInfo, clientCapabilities) and
//!   the `Mcp-Method`/`Mcp-Name` headers is served on its own, without `initialize`.
//! - `slow_compute {seconds, label?}`: for a client that declares the Tasks extension
//!   (SEP-2663), rmcp's `TaskManager` spawns the work and the call answers
//!   `resultType: "task"`; `tasks/get` answers from the manager (`working`, then
//!   `completed` with the tool result inlined); `tasks/cancel` is honoured. Tasks live in
//!   this process's memory only (rmcp's manager has no storage): a restart loses them.
//!   Without the extension the call sleeps and answers the result directly.
//!
//! Usage: `bench-peer-rmcp [PORT [POLL_INTERVAL_MS]]`, or `PEER_PORT` / `PEER_POLL_INTERVAL_MS`.
//! Prints `listening on 127.0.0.1:PORT` once bound; stops on SIGTERM/SIGINT (default action).

use std::{convert::Infallible, sync::Arc, time::Duration};

use http_body_util::{BodyExt, Full};
use hyper::{Response, StatusCode, body::Bytes, server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
        CreateTaskResult, GetTaskParams, GetTaskResult, Implementation, JsonObject,
        ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
        UpdateTaskParams,
    },
    service::RequestContext,
    task_manager::{DEFAULT_POLL_INTERVAL_MS, TaskExit, TaskManager, TaskOptions},
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use serde_json::{Value, json};

/// The longest `seconds` accepted (a day), so `Duration::from_secs_f64` never overflows.
const MAX_SECONDS: f64 = 86_400.0;

#[derive(Clone)]
struct Peer {
    tasks: TaskManager,
    poll_interval_ms: u64,
    tool: Arc<Tool>,
}

impl Peer {
    fn new(poll_interval_ms: u64) -> Self {
        // The same name, description and input schema as the project's fixture.
        let schema: JsonObject = serde_json::from_value(json!({
            "type": "object",
            "properties": { "seconds": { "type": "number", "minimum": 0 }, "label": { "type": "string" } }
        }))
        .expect("a JSON object");
        let tool = Tool::new(
            "slow_compute",
            "Sleeps `seconds` seconds (as a task when the client supports tasks), then answers.",
            schema,
        );
        Self {
            tasks: TaskManager::new(),
            poll_interval_ms,
            tool: Arc::new(tool),
        }
    }
}

impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        )
        .with_server_info(Implementation::new("bench-peer-rmcp", "0.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(vec![(*self.tool).clone()]))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        (name == self.tool.name).then(|| (*self.tool).clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if request.name != self.tool.name {
            return Err(McpError::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        let seconds = args
            .get("seconds")
            .and_then(Value::as_f64)
            .unwrap_or(1.0)
            .clamp(0.0, MAX_SECONDS);
        let label = args
            .get("label")
            .and_then(Value::as_str)
            .unwrap_or("slow_compute");
        let text = format!("{label}: computed after {seconds} s");
        let sleep = Duration::from_secs_f64(seconds);
        if !context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks())
        {
            tokio::time::sleep(sleep).await;
            return Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text(text),
            ])));
        }
        let options = TaskOptions::new()
            .with_poll_interval_ms(self.poll_interval_ms)
            .with_status_message(format!("Computing for {seconds} s"));
        let task = self.tasks.spawn(options, move |ctx| {
            Box::pin(async move {
                tokio::select! {
                    () = ctx.cancelled() => Err(TaskExit::Cancelled),
                    () = tokio::time::sleep(sleep) => Ok(CallToolResult::success(vec![ContentBlock::text(text)])),
                }
            })
        });
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tasks.cancel_task(&request.task_id)
    }
}

fn setting(position: usize, name: &str) -> Option<String> {
    std::env::args()
        .nth(position)
        .or_else(|| std::env::var(name).ok())
        .filter(|v| !v.is_empty())
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port: u16 = setting(1, "PEER_PORT")
        .map_or(Ok(0), |p| p.parse())
        .expect("PORT is a port number");
    let poll_interval_ms: u64 = setting(2, "PEER_POLL_INTERVAL_MS")
        .map_or(Ok(DEFAULT_POLL_INTERVAL_MS), |p| p.parse())
        .expect("POLL_INTERVAL_MS is a number");

    let peer = Peer::new(poll_interval_ms);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    // The factory runs once per request (stateless): a clone sharing the one task manager.
    let mcp = StreamableHttpService::new(
        move || Ok(peer.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );

    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("listening on {}", listener.local_addr()?);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("accept: {e}");
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let mcp = mcp.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                let mcp = mcp.clone();
                async move {
                    if request.uri().path() != "/mcp" {
                        let mut not_found = Response::new(Full::new(Bytes::new()).boxed());
                        *not_found.status_mut() = StatusCode::NOT_FOUND;
                        return Ok::<_, Infallible>(not_found);
                    }
                    Ok(mcp.handle(request).await)
                }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
