//! The gateway as an MCP client of one upstream, over Streamable HTTP at 2025-11-25 (the
//! era every server that exists speaks, this one included): `initialize`, then requests
//! on the session, each answered as JSON or an event stream ([`super::sse`]). Every
//! request goes through the [`Host`]'s outbound policy, widened to the upstream's own
//! host only, without following redirects, bounded in bytes and time.

use super::Upstream;
use super::sse::{self, Exchange};
use crate::host::{Host, HostError, Inbound, Outbound, post};
use crate::jsonrpc::{self, ErrorCode, ErrorObject};
use serde_json::{Map, Value, json};
use std::fmt;
use std::time::Duration;

/// The protocol revision the gateway asks for, and those it accepts an upstream answering.
pub const VERSION: &str = "2025-11-25";
const ACCEPTED: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// Why a request to an upstream produced no response.
#[derive(Debug, Clone, PartialEq)]
pub enum UpstreamError {
    /// The request did not get an answer: refused by the policy, timed out, too large,
    /// the network.
    Host(HostError),
    /// An HTTP status that is not an MCP answer (the body's start, for the log).
    Status { status: u16, excerpt: String },
    /// The session the gateway named is gone (HTTP 404): open a new one.
    SessionGone,
    /// The answer is not the JSON-RPC it must be.
    Malformed(String),
    /// The upstream answered with a JSON-RPC error (kept as it came).
    Rpc(ErrorObject),
}

impl fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpstreamError::Host(e) => write!(f, "{e}"),
            UpstreamError::Status { status, excerpt } if excerpt.is_empty() => {
                write!(f, "it answered HTTP {status}")
            }
            UpstreamError::Status { status, excerpt } => {
                write!(f, "it answered HTTP {status}: {excerpt}")
            }
            UpstreamError::SessionGone => f.write_str("its session ended (HTTP 404)"),
            UpstreamError::Malformed(why) => f.write_str(why),
            UpstreamError::Rpc(e) => write!(f, "{} ({})", e.message, e.code.0),
        }
    }
}

impl UpstreamError {
    /// The JSON-RPC error a caller gets: the upstream's own error as it came; any other
    /// failure as -32603 naming the upstream and what happened.
    pub fn to_wire(&self, upstream: &str) -> ErrorObject {
        match self {
            UpstreamError::Rpc(e) => e.clone(),
            other => ErrorObject {
                code: ErrorCode::INTERNAL_ERROR,
                message: format!("The upstream server {upstream:?} failed: {other}"),
                data: None,
            },
        }
    }
}

/// How much of one answer is read, and for how long.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub timeout_ms: u64,
    pub max_bytes: usize,
}

/// A session with one upstream (or none, for an upstream that keeps no sessions).
#[derive(Debug, Clone)]
pub struct Session {
    host: Host,
    upstream: Upstream,
    token: Option<String>,
    /// `Mcp-Session-Id`, when the upstream gave one.
    pub id: Option<String>,
    /// The protocol revision the upstream answered.
    pub version: String,
    /// The upstream's `capabilities` (empty for a resumed session).
    pub capabilities: Map<String, Value>,
    next_id: u64,
}

impl Session {
    /// Opens a session: `initialize`, then `notifications/initialized`. The gateway
    /// declares no client capability: it cannot answer an upstream's questions mid-call.
    pub async fn open(
        host: &Host,
        upstream: &Upstream,
        bounds: Bounds,
    ) -> Result<Session, UpstreamError> {
        let mut session = Session::resume(host, upstream, None, VERSION)?;
        let params = json!({
            "protocolVersion": VERSION,
            "capabilities": {},
            "clientInfo": { "name": "mcp-tasks-edge-gateway", "version": env!("CARGO_PKG_VERSION") },
        });
        let (result, answer) = session.exchange("initialize", params, bounds).await?;
        session.id = answer.header("mcp-session-id").map(str::to_owned);
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !ACCEPTED.contains(&version) {
            return Err(UpstreamError::Malformed(format!(
                "it speaks protocol version {version:?}, which the gateway does not (it speaks {})",
                ACCEPTED.join(", ")
            )));
        }
        session.version = version.to_owned();
        if let Some(Value::Object(capabilities)) = result.get("capabilities") {
            session.capabilities = capabilities.clone();
        }
        session
            .notify("notifications/initialized", json!({}), bounds)
            .await?;
        Ok(session)
    }

    /// A session opened earlier (its id and version stored in a checkpoint).
    pub fn resume(
        host: &Host,
        upstream: &Upstream,
        id: Option<String>,
        version: &str,
    ) -> Result<Session, UpstreamError> {
        let token = match &upstream.token {
            Some(name) => Some(host.secret(name).map_err(UpstreamError::Host)?),
            None => None,
        };
        Ok(Session {
            host: host.widened(&upstream.allow_list()),
            upstream: upstream.clone(),
            token,
            id,
            version: version.to_owned(),
            capabilities: Map::new(),
            next_id: 0,
        })
    }

    /// Whether the upstream runs `tools/call` as tasks (2025-11-25 `tasks.requests.tools.call`).
    pub fn offers_tasks(&self) -> bool {
        self.capabilities
            .get("tasks")
            .and_then(|t| t.get("requests"))
            .and_then(|r| r.get("tools"))
            .and_then(|t| t.get("call"))
            .is_some()
    }

    /// The id the next request will carry (stored before a call, for its cancellation).
    pub fn peek_id(&self) -> u64 {
        self.next_id + 1
    }

    /// The next request carries id `request` (a stored call's id, sent again).
    pub fn skip_to(&mut self, request: u64) {
        self.next_id = request.saturating_sub(1);
    }

    /// Sends `method` and reads its response: the result, or why there is none.
    pub async fn request(
        &mut self,
        method: &str,
        params: Value,
        bounds: Bounds,
    ) -> Result<(Value, Exchange), UpstreamError> {
        self.next_id += 1;
        let id = self.next_id;
        let answer = self
            .send(jsonrpc::client_request(id, method, params), bounds)
            .await?;
        let exchange = sse::read(
            answer.header("content-type").unwrap_or_default(),
            &answer.body,
            id,
        )
        .map_err(|e| UpstreamError::Malformed(e.message))?;
        match exchange.response.clone() {
            Some(Ok(Value::Object(result))) => Ok((Value::Object(result), exchange)),
            Some(Ok(_)) => Err(UpstreamError::Malformed(format!(
                "its {method} result is not an object"
            ))),
            Some(Err(error)) => Err(UpstreamError::Rpc(error)),
            None => Err(UpstreamError::Malformed(format!(
                "its answer to {method} ended without a response"
            ))),
        }
    }

    /// Like [`Session::request`], with the HTTP answer too (for `initialize`'s headers).
    async fn exchange(
        &mut self,
        method: &str,
        params: Value,
        bounds: Bounds,
    ) -> Result<(Value, Inbound), UpstreamError> {
        self.next_id += 1;
        let id = self.next_id;
        let answer = self
            .send(jsonrpc::client_request(id, method, params), bounds)
            .await?;
        let exchange = sse::read(
            answer.header("content-type").unwrap_or_default(),
            &answer.body,
            id,
        )
        .map_err(|e| UpstreamError::Malformed(e.message))?;
        match exchange.response {
            Some(Ok(result @ Value::Object(_))) => Ok((result, answer)),
            Some(Ok(_)) => Err(UpstreamError::Malformed(format!(
                "its {method} result is not an object"
            ))),
            Some(Err(error)) => Err(UpstreamError::Rpc(error)),
            None => Err(UpstreamError::Malformed(format!(
                "its answer to {method} ended without a response"
            ))),
        }
    }

    /// Sends a notification (answered 202, nothing to read).
    pub async fn notify(
        &self,
        method: &str,
        params: Value,
        bounds: Bounds,
    ) -> Result<(), UpstreamError> {
        self.send(jsonrpc::notification(method, params), bounds)
            .await
            .map(|_| ())
    }

    /// Ends the session (HTTP DELETE), best effort: an upstream may refuse (405).
    pub async fn close(&self, bounds: Bounds) {
        if let Some(id) = &self.id {
            let mut request = Outbound::new("DELETE", self.upstream.endpoint())
                .header("mcp-session-id", id)
                .header("mcp-protocol-version", &self.version)
                .no_redirects()
                .timeout(Duration::from_millis(bounds.timeout_ms.min(5_000)))
                .max_bytes(4096);
            request = self.authorized(request);
            let _ = self.fetch(request).await;
        }
    }

    /// One request to the upstream: over the network, or to its service binding.
    async fn fetch(&self, request: Outbound) -> Result<Inbound, HostError> {
        match &self.upstream.binding {
            Some(binding) => self.host.fetch_service(binding, request).await,
            None => self.host.fetch(request).await,
        }
    }

    fn authorized(&self, request: Outbound) -> Outbound {
        match (&self.token, &self.upstream.header) {
            (Some(token), Some(header)) => request.header(header, token),
            (Some(token), None) => request.bearer(token),
            (None, _) => request,
        }
    }

    async fn send(&self, message: Value, bounds: Bounds) -> Result<Inbound, UpstreamError> {
        let mut request = post(self.upstream.endpoint())
            .json(&message)
            .header("accept", "application/json, text/event-stream")
            .no_redirects()
            .timeout(Duration::from_millis(bounds.timeout_ms))
            .max_bytes(bounds.max_bytes);
        if let Some(id) = &self.id {
            request = request
                .header("mcp-session-id", id)
                .header("mcp-protocol-version", &self.version);
        }
        request = self.authorized(request);
        let answer = self.fetch(request).await.map_err(UpstreamError::Host)?;
        match answer.status {
            200..=299 => Ok(answer),
            404 if self.id.is_some() => Err(UpstreamError::SessionGone),
            300..=399 => Err(UpstreamError::Status {
                status: answer.status,
                excerpt: "a redirect, which the gateway does not follow to an upstream".into(),
            }),
            status => {
                let text = String::from_utf8_lossy(&answer.body);
                let excerpt: String = text.chars().take(200).collect();
                Err(UpstreamError::Status { status, excerpt })
            }
        }
    }
}
