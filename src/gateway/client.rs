//! The gateway as an MCP client of one upstream, over Streamable HTTP, in the era the
//! upstream speaks: 2026-07-28 where `server/discover` says so (stateless: every request
//! carries its `_meta` and the routing headers, no handshake), else 2025-11-25 (the era
//! every server that exists speaks: `initialize`, then requests on the session). Each
//! answer is JSON or an event stream ([`super::sse`]). Every request goes through the
//! [`Host`]'s outbound policy, widened to the upstream's own host only, without following
//! redirects, bounded in bytes and time.

use super::Upstream;
use crate::host::{Host, HostError, Inbound, Outbound, Streaming, post};
use crate::jsonrpc;
use serde_json::{Map, Value};
use std::time::Duration;

/// The protocol revision the gateway asks for at `initialize`, and those it accepts an
/// upstream answering.
pub const VERSION: &str = "2025-11-25";
/// The stateless revision, used when the upstream's `server/discover` supports it.
pub const MODERN: &str = "2026-07-28";
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

mod error;
mod exchange;
mod kept;
pub mod params;

pub use error::UpstreamError;
pub use exchange::{Relay, Reply};
pub use kept::{IDLE_MS, MAX_KEPT, Sessions};
use params::{CLIENT_INFO, InitializeParams, ModernMeta};
pub use params::{no_params, task_params};

const ACCEPTED: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

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
    /// At 2026-07-28: the client capabilities each request declares in its `_meta`.
    pub declared: Value,
    next_id: u64,
}

impl Session {
    /// Opens a session: `initialize` declaring `capabilities` (what the gateway's caller
    /// can be asked mid-call: elicitation, sampling, roots), then
    /// `notifications/initialized`.
    pub async fn open(
        host: &Host,
        upstream: &Upstream,
        bounds: Bounds,
        capabilities: Value,
    ) -> Result<Session, UpstreamError> {
        let mut session = Session::resume(host, upstream, None, VERSION)?;
        let params = jsonrpc::payload(&InitializeParams {
            protocol_version: VERSION,
            capabilities,
            client_info: CLIENT_INFO,
        });
        let (result, id) = session
            .round_trip("initialize", params, bounds, Vec::new(), None)
            .await?;
        session.id = id;
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
            .notify("notifications/initialized", no_params(), bounds)
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
            host: host.widened(upstream.allow_list()),
            upstream: upstream.clone(),
            token,
            id,
            version: version.to_owned(),
            capabilities: Map::new(),
            declared: no_params(),
            next_id: 0,
        })
    }

    /// The upstream at 2026-07-28 if its `server/discover` supports it (no handshake:
    /// the session is stateless), else a 2025-11-25 session ([`Session::open`]); at the
    /// revision its configuration names, if it names one (`Upstream::version`).
    pub async fn discover(
        host: &Host,
        upstream: &Upstream,
        bounds: Bounds,
    ) -> Result<Session, UpstreamError> {
        if upstream.version.as_deref() == Some(VERSION) {
            return Session::open(host, upstream, bounds, no_params()).await;
        }
        let mut session = Session::resume(host, upstream, None, MODERN)?;
        match session
            .request("server/discover", no_params(), bounds)
            .await
        {
            Ok(result)
                if result
                    .get("supportedVersions")
                    .and_then(Value::as_array)
                    .is_some_and(|v| v.iter().any(|v| v == MODERN)) =>
            {
                if let Some(Value::Object(capabilities)) = result.get("capabilities") {
                    session.capabilities = capabilities.clone();
                }
                Ok(session)
            }
            // Not a 2026-07-28 server (an error, a 400 or 404 without a session, another
            // answer): the 2025-11-25 handshake. A transport failure is not an answer.
            Err(UpstreamError::Host(e)) => Err(UpstreamError::Host(e)),
            _ if upstream.version.as_deref() == Some(MODERN) => {
                Err(UpstreamError::Malformed(format!(
                    "its server/discover does not offer {MODERN}, the revision its configuration names"
                )))
            }
            _ => Session::open(host, upstream, bounds, no_params()).await,
        }
    }

    /// A session of the era `version` names, declaring `declared` (the client
    /// capabilities of the gateway's caller): at 2026-07-28 nothing to open (each request
    /// declares them in its `_meta`); else [`Session::open`], declaring what can be asked.
    pub async fn start(
        host: &Host,
        upstream: &Upstream,
        version: &str,
        bounds: Bounds,
        declared: Value,
    ) -> Result<Session, UpstreamError> {
        let mut session = if version == MODERN {
            Session::resume(host, upstream, None, MODERN)?
        } else {
            let mut askable = declared.clone();
            if let Value::Object(map) = &mut askable {
                map.remove("extensions");
            }
            Session::open(host, upstream, bounds, askable).await?
        };
        session.declared = declared;
        Ok(session)
    }

    /// Whether this session speaks 2026-07-28.
    pub fn is_modern(&self) -> bool {
        self.version == MODERN
    }

    /// Whether the upstream runs `tools/call` as tasks: the Tasks extension at
    /// 2026-07-28, `tasks.requests.tools.call` at 2025-11-25.
    pub fn offers_tasks(&self) -> bool {
        let path: &[&str] = if self.is_modern() {
            &["extensions", TASKS_EXTENSION]
        } else {
            &["tasks", "requests", "tools", "call"]
        };
        let mut at = self.capabilities.get(path[0]);
        for key in &path[1..] {
            at = at.and_then(|v| v.get(key));
        }
        at.is_some()
    }

    /// Whether the upstream declares `tools.listChanged`: it tells of changes to its
    /// tool list (on a standing stream: `super::watch`).
    pub fn tells_list_changes(&self) -> bool {
        let declared = self.capabilities.get("tools");
        declared.and_then(|t| t.get("listChanged")) == Some(&Value::Bool(true))
    }

    /// The id the next request will carry (stored before a call, for its cancellation).
    pub fn peek_id(&self) -> u64 {
        self.next_id + 1
    }

    /// The next request carries id `request` (a stored call's id, sent again).
    pub fn skip_to(&mut self, request: u64) {
        self.next_id = request.saturating_sub(1);
    }

    /// A 2026-07-28 request's `_meta` (version, client, capabilities; MCP "Request
    /// Metadata"), set in `params`, and its routing headers (streamable-http "Standard
    /// Headers": `Mcp-Method`, and `Mcp-Name` for the methods that name something).
    fn routing(&self, method: &str, params: &mut Value) -> Vec<(String, String)> {
        let meta = jsonrpc::payload(&ModernMeta {
            protocol_version: MODERN,
            client_info: CLIENT_INFO,
            client_capabilities: &self.declared,
        });
        if let Value::Object(params) = params {
            match params.get_mut("_meta") {
                Some(Value::Object(existing)) => {
                    if let Value::Object(meta) = meta {
                        existing.extend(meta);
                    }
                }
                _ => {
                    params.insert("_meta".into(), meta);
                }
            }
        }
        let mut headers = vec![("mcp-method".to_owned(), method.to_owned())];
        let name = match method {
            "tools/call" | "prompts/get" => params.get("name"),
            "tasks/get" | "tasks/update" | "tasks/cancel" => params.get("taskId"),
            "resources/read" => params.get("uri"),
            _ => None,
        };
        if let Some(name) = name.and_then(Value::as_str) {
            headers.push(("mcp-name".into(), crate::mcp::headers::encode_value(name)));
        }
        headers
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
        self.send_with(message, bounds, Vec::new()).await
    }

    /// The POST of `message`, with the session's headers and credentials.
    fn post(&self, message: Value, bounds: Bounds, headers: Vec<(String, String)>) -> Outbound {
        let mut request = post(self.upstream.endpoint())
            .json(&message)
            .header("accept", "application/json, text/event-stream")
            .no_redirects()
            .timeout(Duration::from_millis(bounds.timeout_ms))
            .max_bytes(bounds.max_bytes);
        if let Some(id) = &self.id {
            request = request.header("mcp-session-id", id);
        }
        if self.id.is_some() || self.is_modern() {
            request = request.header("mcp-protocol-version", &self.version);
        }
        for (name, value) in &headers {
            request = request.header(name, value);
        }
        self.authorized(request)
    }

    /// Sends `message` and reads its answer whole.
    async fn send_with(
        &self,
        message: Value,
        bounds: Bounds,
        headers: Vec<(String, String)>,
    ) -> Result<Inbound, UpstreamError> {
        let request = self.post(message, bounds, headers);
        let answer = self.fetch(request).await.map_err(UpstreamError::Host)?;
        match answer.status {
            200..=299 => Ok(answer),
            _ => Err(self.refusal(&answer)),
        }
    }

    /// Sends `message`; answers once status and headers came, the body still arriving.
    async fn open_answer(
        &self,
        message: Value,
        bounds: Bounds,
        headers: Vec<(String, String)>,
    ) -> Result<Streaming, UpstreamError> {
        self.open_request(self.post(message, bounds, headers)).await
    }

    /// Sends `request` (over the network, or to the upstream's service binding); answers
    /// once status and headers came, the body still arriving; a status that is not a
    /// success is read whole for what it means.
    async fn open_request(&self, request: Outbound) -> Result<Streaming, UpstreamError> {
        let answer = match &self.upstream.binding {
            Some(binding) => self.host.open_service(binding, request).await,
            None => self.host.open(request).await,
        }
        .map_err(UpstreamError::Host)?;
        match answer.status {
            200..=299 => Ok(answer),
            _ => {
                let answer = answer.into_inbound().await.map_err(UpstreamError::Host)?;
                Err(self.refusal(&answer))
            }
        }
    }

    /// What an answer that is not a success means.
    fn refusal(&self, answer: &Inbound) -> UpstreamError {
        match answer.status {
            404 if self.id.is_some() => UpstreamError::SessionGone,
            300..=399 => UpstreamError::Status {
                status: answer.status,
                excerpt: "a redirect, which the gateway does not follow to an upstream".into(),
            },
            // A JSON-RPC error with its HTTP status (2026-07-28 answers -32021 with 400,
            // say): the error, as it came.
            status => match rpc_error(answer) {
                Some(error) => UpstreamError::Rpc(error),
                None => {
                    let text = String::from_utf8_lossy(&answer.body);
                    let excerpt: String = text.chars().take(200).collect();
                    UpstreamError::Status { status, excerpt }
                }
            },
        }
    }
}

/// The JSON-RPC error an answer's body carries, if it is one.
fn rpc_error(answer: &Inbound) -> Option<jsonrpc::ErrorObject> {
    let body = serde_json::from_slice::<Value>(&answer.body).ok()?;
    if body.get("jsonrpc")? != "2.0" {
        return None;
    }
    serde_json::from_value(body.get("error")?.clone()).ok()
}
