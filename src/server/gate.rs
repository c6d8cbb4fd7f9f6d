//! The HTTP gate in front of dispatch: the Protected Resource Metadata, who is calling,
//! CORS, and every check a request passes before its method is looked at.
//!
//! Order of checks (each failure answers at once):
//! HTTP path → `Origin` (403) → CORS preflight → POST only (405) → JSON content type (415)
//! → body size (413) → envelope (-32700/-32600) → `_meta` (-32602) → `MCP-Protocol-Version`
//! equals `_meta` (-32020) → version supported (-32022) → `Mcp-Method`/`Mcp-Name` (-32020)
//! → method (-32601/404) → params (-32602) → capabilities (-32021).

use super::{Action, Context, Envelope, MCP_PATH, Server, dispatch, error_response};
use crate::auth::{self, Outcome};
use crate::error::McpError;
use crate::http::{HttpRequest, HttpResponse};
use crate::jsonrpc::{self, Message, RequestId};

impl Server {
    /// The Protected Resource Metadata (RFC 9728) when `request` asks for it: a public
    /// document, readable from any origin. `origin` is the server's own
    /// (`scheme://host[:port]`); the resource is `origin` + `/mcp`.
    pub fn well_known(&self, request: &HttpRequest, origin: &str) -> Option<HttpResponse> {
        if !auth::PRM_PATHS.contains(&request.path.as_str()) {
            return None;
        }
        let mut response = match request.method.as_str() {
            "GET" | "HEAD" => {
                let doc = self
                    .config
                    .auth
                    .resource_metadata(&format!("{origin}{MCP_PATH}"));
                let mut r = HttpResponse::json(200, doc.to_string().into_bytes());
                r.headers.push(("cache-control", "max-age=300".into()));
                r
            }
            "OPTIONS" => {
                let mut r = HttpResponse::empty(204);
                r.headers
                    .push(("access-control-allow-methods", "GET, OPTIONS".into()));
                r
            }
            _ => {
                let mut r = HttpResponse::empty(405);
                r.headers.push(("allow", "GET, OPTIONS".into()));
                r
            }
        };
        response
            .headers
            .push(("access-control-allow-origin", "*".into()));
        Some(response)
    }

    /// Who is calling (see [`crate::auth`]). Every request to the MCP endpoint is
    /// authenticated, whatever its method: a 2025-11-25 `GET` or `DELETE` acts on a
    /// session as much as a `POST` does. Requests refused before they are read (other
    /// paths, preflights, forbidden origins) touch nothing a principal owns.
    pub fn authenticate(&self, request: &HttpRequest) -> Outcome {
        let forbidden_origin = request
            .headers
            .get("origin")
            .is_some_and(|o| !self.config.origin_allowed(&o));
        if request.path != MCP_PATH || request.method == "OPTIONS" || forbidden_origin {
            return Outcome::Principal(auth::ANONYMOUS.into());
        }
        self.config.auth.authenticate(&request.headers)
    }

    /// The principal of a JWT whose signature the adapter verified (`Ok`), or the
    /// refusal. `origin` is the server's own; the default audience is `origin` + `/mcp`.
    pub fn grant(
        &self,
        token: &auth::jwt::Token,
        origin: &str,
        now_ms: u64,
    ) -> Result<String, McpError> {
        self.config
            .auth
            .grant(token, &format!("{origin}{MCP_PATH}"), now_ms)
    }

    /// How the answers to `request` are dressed: CORS headers (none for a forbidden or
    /// absent origin) and this server's identity.
    pub fn envelope_for(&self, request: &HttpRequest) -> Envelope {
        let origin = (request.headers.get("origin")).filter(|o| self.config.origin_allowed(o));
        Envelope::modern(origin, &self.lists.identity)
    }

    /// An error answered before or beside dispatch (401, 403, 429), with the headers it
    /// needs: the challenge names the metadata at `origin`'s well-known path.
    pub fn refuse(
        &self,
        id: Option<&RequestId>,
        error: &McpError,
        envelope: &Envelope,
        origin: &str,
    ) -> HttpResponse {
        let mut response = error_response(id, error, envelope);
        response
            .headers
            .extend(error.challenge(&auth::metadata_url(origin)));
        response
    }

    /// Handles one HTTP request to the MCP endpoint.
    pub fn handle(&self, request: &HttpRequest, ctx: &Context) -> Action {
        let envelope = match Envelope::checked(&self.config, request.headers.get("origin"), |o| {
            Envelope::modern(o, &self.lists.identity)
        }) {
            Ok(envelope) => envelope,
            Err(forbidden) => return Action::Respond(forbidden),
        };
        if request.path != MCP_PATH {
            let e = McpError::MethodNotFound(format!(
                "HTTP path {} (the MCP endpoint is {MCP_PATH})",
                request.path
            ));
            return Action::Respond(error_response(None, &e, &envelope));
        }
        match request.method.as_str() {
            "POST" => {}
            "OPTIONS" => return Action::Respond(preflight(&envelope, request)),
            other => {
                let mut response = error_response(
                    None,
                    &McpError::MethodNotAllowed(other.to_owned()),
                    &envelope,
                );
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
                &envelope,
            ));
        }
        // The adapter may skip reading a body whose Content-Length is already too large.
        let declared = request.headers.content_length();
        if request.body.len().max(declared.unwrap_or(0)) > self.config.max_body_bytes {
            let e = McpError::PayloadTooLarge {
                limit: self.config.max_body_bytes,
            };
            return Action::Respond(error_response(None, &e, &envelope));
        }
        let message = match jsonrpc::parse_message(&request.body) {
            Ok(message) => message,
            Err(e) => {
                let error = match e.error.code {
                    jsonrpc::ErrorCode::PARSE_ERROR => McpError::Parse(e.error.message),
                    _ => McpError::InvalidRequest(e.error.message),
                };
                return Action::Respond(error_response(e.id.as_ref(), &error, &envelope));
            }
        };
        match message {
            // No client notifications are defined over Streamable HTTP in 2026-07-28; a
            // well-formed one is accepted and has no effect (streamable-http "Sending Messages" 5).
            Message::Notification(_) => Action::Respond(envelope.apply(HttpResponse::empty(202))),
            Message::Request(rpc) => {
                match dispatch::dispatch(self, &rpc, &request.headers, ctx, &envelope) {
                    Ok(action) => action,
                    Err(e) => Action::Respond(error_response(Some(&rpc.id), &e, &envelope)),
                }
            }
        }
    }
}

fn preflight(envelope: &Envelope, request: &HttpRequest) -> HttpResponse {
    let mut response = envelope.apply(HttpResponse::empty(204));
    if envelope.cross_origin() {
        let requested = request
            .headers
            .get("access-control-request-headers")
            .unwrap_or_default();
        let allowed = if requested.is_empty() {
            "content-type, authorization, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, last-event-id".to_owned()
        } else {
            requested
        };
        response.headers.push((
            "access-control-allow-methods",
            "GET, POST, DELETE, OPTIONS".into(),
        ));
        response
            .headers
            .push(("access-control-allow-headers", allowed));
        response
            .headers
            .push(("access-control-max-age", "600".into()));
    }
    response
}
