//! How the answers to one request are dressed: the CORS headers its browser origin gets,
//! and, for a 2026-07-28 client, this server's identity in every result's `_meta`
//! (`mcp::identity`). A 2025-11-25 session's answers carry neither: its session object
//! answers with [`Envelope::default`] (that revision names the server once, in
//! `initialize`).

use crate::error::McpError;
use crate::http::HttpResponse;
use crate::jsonrpc::{self, RequestId};
use crate::mcp::identity::{self, MetaFirst};
use crate::server::Config;
use serde_json::Value;
use std::rc::Rc;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Envelope {
    /// The allowed browser origin the answers name, if any.
    origin: Option<String>,
    /// The `_meta` entry naming this server ([`identity::entry`], serialized once per
    /// isolate), for 2026-07-28 results.
    identity: Option<Rc<[u8]>>,
}

impl Envelope {
    /// A 2026-07-28 request's: CORS headers for `origin` (an allowed one), `identity` in
    /// its results.
    pub fn modern(origin: Option<String>, identity: &Rc<[u8]>) -> Self {
        Envelope {
            origin,
            identity: Some(identity.clone()),
        }
    }

    /// A 2025-11-25 request's: CORS headers for `origin` (an allowed one) only.
    pub fn legacy(origin: Option<String>) -> Self {
        Envelope {
            origin,
            identity: None,
        }
    }

    /// The `Origin` header `origin` checked against `config`: `dress` makes the envelope of
    /// an absent or allowed one; a forbidden one is answered 403 at once, without CORS
    /// headers (streamable-http "Security": the DNS-rebinding protection), in either era.
    pub fn checked(
        config: &Config,
        origin: Option<String>,
        dress: impl FnOnce(Option<String>) -> Envelope,
    ) -> Result<Envelope, HttpResponse> {
        match origin {
            Some(o) if !config.origin_allowed(&o) => Err(error_response(
                None,
                &McpError::ForbiddenOrigin(o),
                &Envelope::default(),
            )),
            origin => Ok(dress(origin)),
        }
    }

    /// Whether the request came from an allowed browser origin (its answers carry CORS
    /// headers).
    pub fn cross_origin(&self) -> bool {
        self.origin.is_some()
    }

    /// Adds the CORS headers, if the request came from an allowed origin.
    pub fn apply(&self, mut response: HttpResponse) -> HttpResponse {
        if let Some(origin) = &self.origin {
            response
                .headers
                .push(("access-control-allow-origin", origin.clone()));
            response.headers.push(("vary", "Origin".into()));
            response.headers.push((
                "access-control-expose-headers",
                "content-type, mcp-session-id, www-authenticate, retry-after".into(),
            ));
        }
        response
    }

    /// The JSON-RPC response carrying `result`, its `_meta` naming this server unless the
    /// result names one itself.
    pub fn result_body(&self, id: &RequestId, result: &Value) -> Vec<u8> {
        let raw = serde_json::to_vec(&MetaFirst(result)).expect("values serialize");
        if identity::names_server(result) {
            jsonrpc::result_response_raw(id, &raw)
        } else {
            self.raw_result_body(id, &raw)
        }
    }

    /// The JSON-RPC response around a result this server serialized already (a list built
    /// once per isolate, a task object's reply), its `_meta` first when it has one
    /// ([`MetaFirst`]): not parsed again.
    pub fn raw_result_body(&self, id: &RequestId, raw: &[u8]) -> Vec<u8> {
        let entry = self.identity.as_deref();
        match entry.and_then(|entry| identity::stamped(raw, entry)) {
            Some(parts) => jsonrpc::result_response_parts(id, &parts),
            None => jsonrpc::result_response_raw(id, raw),
        }
    }

    /// [`Envelope::raw_result_body`] as a 200 response with the CORS headers.
    pub fn raw_result(&self, id: &RequestId, raw: &[u8]) -> HttpResponse {
        self.apply(HttpResponse::json(200, self.raw_result_body(id, raw)))
    }
}

/// A JSON-RPC error response with the error's HTTP status and its `Retry-After` (a 429's);
/// an authentication challenge needs the origin, so `Server::refuse` adds that.
pub fn error_response(
    id: Option<&RequestId>,
    error: &McpError,
    envelope: &Envelope,
) -> HttpResponse {
    let mut response = HttpResponse::json(
        error.http_status(),
        jsonrpc::error_response(id, &error.to_wire()),
    );
    response.headers.extend(error.retry_after());
    envelope.apply(response)
}

/// A JSON-RPC result response (status 200).
pub fn result_response(id: &RequestId, result: &Value, envelope: &Envelope) -> HttpResponse {
    envelope.apply(HttpResponse::json(200, envelope.result_body(id, result)))
}
