//! Pure request handling: an HTTP request in, an [`Action`] out. The adapter performs the
//! action's I/O (Durable Object calls, sleeping, streaming) and feeds the outcome back.
//!
//! Order of checks (each failure answers at once):
//! HTTP path → `Origin` (403) → CORS preflight → POST only (405) → JSON content type (415)
//! → body size (413) → envelope (-32700/-32600) → `_meta` (-32602) → `MCP-Protocol-Version`
//! equals `_meta` (-32020) → version supported (-32022) → `Mcp-Method`/`Mcp-Name` (-32020)
//! → method (-32601/404) → params (-32602) → capabilities (-32021).

pub mod call;
pub mod config;
pub mod dispatch;
pub mod listen;

pub use config::Config;

use crate::error::McpError;
use crate::http::{HttpRequest, HttpResponse};
use crate::jsonrpc::{self, Message, RequestId};
use crate::tasks::protocol::{self, ObjectReply, ObjectRequest};
use crate::tasks::record::TaskRecord;
use crate::tools::Registry;
use serde_json::Value;
use sha2::{Digest, Sha256};

pub const MCP_PATH: &str = "/mcp";

/// The caller's identity as far as the server can tell: for now the SHA-256 of the bearer
/// token, or `anonymous`. Tasks and request states are bound to it.
pub fn principal(request: &HttpRequest) -> String {
    let token = request
        .headers
        .get("authorization")
        .and_then(|v| {
            let v = v.trim();
            v.get(..7)
                .filter(|p| p.eq_ignore_ascii_case("bearer "))
                .map(|_| v[7..].trim().to_owned())
        })
        .filter(|t| !t.is_empty());
    match token {
        Some(token) => format!("bearer:{}", hex(&Sha256::digest(token.as_bytes()))),
        None => "anonymous".to_owned(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Per-request facts the adapter supplies.
#[derive(Debug, Clone)]
pub struct Context {
    pub principal: String,
    pub now_ms: u64,
}

/// What the adapter must do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send this response; done.
    Respond(HttpResponse),
    /// Draw a task id, send `ObjectRequest::Create` to the object named by it with
    /// `record.task_id` set, and answer with [`Server::object_response`].
    CreateTask {
        request_id: RequestId,
        record: Box<TaskRecord>,
        cors: Cors,
    },
    /// Send `request` to the object named `request.task_id()` and answer with
    /// [`Server::object_response`].
    Forward {
        request_id: RequestId,
        request: ObjectRequest,
        cors: Cors,
    },
    /// Wait `ms`, then call [`Server::resume_inline`] with `run`.
    Sleep { ms: u64, run: Box<call::InlineRun> },
    /// Open a `subscriptions/listen` stream (see [`listen`]).
    Listen(Box<listen::Listen>),
}

/// CORS headers to attach to a response for an allowed browser origin.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cors(Option<String>);

impl Cors {
    pub fn apply(&self, mut response: HttpResponse) -> HttpResponse {
        if let Some(origin) = &self.0 {
            response
                .headers
                .push(("access-control-allow-origin", origin.clone()));
            response.headers.push(("vary", "Origin".into()));
            response
                .headers
                .push(("access-control-expose-headers", "content-type".into()));
        }
        response
    }
}

/// The server: configuration and the tools it offers. Built once per isolate.
#[derive(Debug, Clone)]
pub struct Server {
    pub config: Config,
    pub registry: Registry,
    /// discover and the lists, serialized once.
    pub lists: dispatch::StaticResults,
}

fn error_response(id: Option<&RequestId>, error: &McpError, cors: &Cors) -> HttpResponse {
    cors.apply(HttpResponse::json(
        error.http_status(),
        jsonrpc::error_response(id, &error.to_wire()),
    ))
}

/// A JSON-RPC result response (status 200).
pub fn result_response(id: &RequestId, result: &Value, cors: &Cors) -> HttpResponse {
    cors.apply(HttpResponse::json(
        200,
        jsonrpc::result_response(id, result),
    ))
}

impl Server {
    pub fn new(config: Config) -> Self {
        let registry = Registry::new(config.fixtures);
        let lists = dispatch::StaticResults::new(&config, &registry);
        Server {
            config,
            registry,
            lists,
        }
    }

    /// Handles one HTTP request to the MCP endpoint.
    pub fn handle(&self, request: &HttpRequest, ctx: &Context) -> Action {
        let origin = request.headers.get("origin");
        let cors = match &origin {
            Some(o) if !self.config.origin_allowed(o) => {
                // streamable-http "Security": invalid Origin → 403 (DNS-rebinding protection).
                return Action::Respond(error_response(
                    None,
                    &McpError::ForbiddenOrigin(o.clone()),
                    &Cors::default(),
                ));
            }
            Some(o) => Cors(Some(o.clone())),
            None => Cors::default(),
        };
        if request.path != MCP_PATH {
            let e = McpError::MethodNotFound(format!(
                "HTTP path {} (the MCP endpoint is {MCP_PATH})",
                request.path
            ));
            return Action::Respond(error_response(None, &e, &cors));
        }
        match request.method.as_str() {
            "POST" => {}
            "OPTIONS" => return Action::Respond(preflight(&cors, request)),
            other => {
                let mut response =
                    error_response(None, &McpError::MethodNotAllowed(other.to_owned()), &cors);
                response.headers.push(("allow", "POST, OPTIONS".into()));
                return Action::Respond(response);
            }
        }
        let content_type = request.headers.get("content-type").unwrap_or_default();
        let media_type = content_type.split(';').next().unwrap_or_default().trim();
        if !media_type.eq_ignore_ascii_case("application/json") {
            return Action::Respond(error_response(
                None,
                &McpError::UnsupportedMediaType(content_type),
                &cors,
            ));
        }
        // The adapter may skip reading a body whose Content-Length is already too large.
        let declared = request.headers.content_length();
        if request.body.len().max(declared.unwrap_or(0)) > self.config.max_body_bytes {
            let e = McpError::PayloadTooLarge {
                limit: self.config.max_body_bytes,
            };
            return Action::Respond(error_response(None, &e, &cors));
        }
        let message = match jsonrpc::parse_message(&request.body) {
            Ok(message) => message,
            Err(e) => {
                let error = match e.error.code {
                    jsonrpc::ErrorCode::PARSE_ERROR => McpError::Parse(e.error.message),
                    _ => McpError::InvalidRequest(e.error.message),
                };
                return Action::Respond(error_response(e.id.as_ref(), &error, &cors));
            }
        };
        match message {
            // No client notifications are defined over Streamable HTTP in 2026-07-28; a
            // well-formed one is accepted and has no effect (streamable-http "Sending Messages" 5).
            Message::Notification(_) => Action::Respond(cors.apply(HttpResponse::empty(202))),
            Message::Request(rpc) => {
                match dispatch::dispatch(self, &rpc, &request.headers, ctx, &cors) {
                    Ok(action) => action,
                    Err(e) => Action::Respond(error_response(Some(&rpc.id), &e, &cors)),
                }
            }
        }
    }

    /// Turns a TaskObject reply (as sent: status and body) into the JSON-RPC response for
    /// the original request. A result is spliced in as is; only errors are parsed.
    pub fn object_response(
        &self,
        request_id: &RequestId,
        status: u16,
        body: &[u8],
        cors: &Cors,
    ) -> HttpResponse {
        if status == protocol::RESULT_STATUS {
            return cors.apply(HttpResponse::json(
                200,
                jsonrpc::result_response_raw(request_id, body),
            ));
        }
        match ObjectReply::decode(status, body) {
            Ok(ObjectReply::Error(error)) => {
                error_response(Some(request_id), &McpError::Wire(error), cors)
            }
            Ok(ObjectReply::Result(_)) => unreachable!("results carry RESULT_STATUS"),
            Err(why) => self.object_unreachable(request_id, &why, cors),
        }
    }

    /// The response when the adapter could not reach a TaskObject at all.
    pub fn object_unreachable(
        &self,
        request_id: &RequestId,
        why: &str,
        cors: &Cors,
    ) -> HttpResponse {
        error_response(
            Some(request_id),
            &McpError::Internal(format!("task storage unavailable: {why}")),
            cors,
        )
    }

    /// Continues an inline run after the adapter slept.
    pub fn resume_inline(&self, run: call::InlineRun, ctx: &Context) -> Action {
        let request_id = run.request_id.clone();
        let cors = run.cors.clone();
        match call::drive(self, run, ctx) {
            Ok(action) => action,
            Err(e) => Action::Respond(error_response(Some(&request_id), &e, &cors)),
        }
    }
}

fn preflight(cors: &Cors, request: &HttpRequest) -> HttpResponse {
    let mut response = cors.apply(HttpResponse::empty(204));
    if cors.0.is_some() {
        let requested = request
            .headers
            .get("access-control-request-headers")
            .unwrap_or_default();
        let allowed = if requested.is_empty() {
            "content-type, authorization, mcp-protocol-version, mcp-method, mcp-name".to_owned()
        } else {
            requested
        };
        response
            .headers
            .push(("access-control-allow-methods", "POST, OPTIONS".into()));
        response
            .headers
            .push(("access-control-allow-headers", allowed));
        response
            .headers
            .push(("access-control-max-age", "600".into()));
    }
    response
}
