//! Which requests belong to the 2025-11-25 era, and which session object they go to
//! (spec-2026-07-28 basic/versioning "Backward Compatibility": an `initialize` without
//! modern `_meta`, or a request naming a session with `Mcp-Session-Id`).

use super::SESSION_HEADER;
use crate::error::McpError;
use crate::http::{HttpRequest, HttpResponse};
use crate::mcp::meta::{KEY_PROTOCOL_VERSION, SUPPORTED_VERSIONS};
use crate::server::{Envelope, MCP_PATH, Server, error_response};
use crate::tasks::id;
use serde_json::Value;

/// Where a 2025-11-25 request goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// `initialize`: a new session, whose id the server draws (never the client's:
    /// an `Mcp-Session-Id` sent with `initialize` is ignored).
    New(Envelope),
    /// A request naming this session.
    Existing(String, Envelope),
    /// Answer this at once (a refused origin, a malformed session id, legacy off).
    Refused(HttpResponse),
}

/// Whether `request` belongs to the 2025-11-25 era, and where it goes; `None`: a
/// 2026-07-28 request for [`Server::handle`].
pub fn route(server: &Server, request: &HttpRequest) -> Option<Route> {
    if request.path != MCP_PATH {
        return None;
    }
    let session = request.headers.get(SESSION_HEADER);
    let initialize = request.method == "POST" && is_initialize(&request.body);
    if !initialize && session.is_none() {
        return None;
    }
    let envelope = match Envelope::checked(
        &server.config,
        request.headers.get("origin"),
        Envelope::legacy,
    ) {
        Ok(envelope) => envelope,
        Err(forbidden) => return Some(Route::Refused(forbidden)),
    };
    if !server.config.legacy_sessions {
        // A modern-only server: say which versions it speaks (basic/versioning).
        let requested = serde_json::from_slice::<Value>(&request.body)
            .ok()
            .and_then(|v| {
                v.pointer("/params/protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| "2025-11-25".into());
        let e = McpError::UnsupportedVersion {
            requested,
            supported: SUPPORTED_VERSIONS.to_vec(),
        };
        return Some(Route::Refused(error_response(None, &e, &envelope)));
    }
    if initialize {
        return Some(Route::New(envelope));
    }
    Some(match session {
        Some(id) if id::is_valid(id.trim()) => Route::Existing(id.trim().to_owned(), envelope),
        _ => Route::Refused(error_response(None, &McpError::SessionNotFound, &envelope)),
    })
}

/// Whether a body is a legacy `initialize` request (parsed only when it may be one). One
/// carrying modern `_meta` is a 2026-07-28 request, where `initialize` no longer exists
/// (basic/versioning "Backward Compatibility": modern `_meta` selects this revision).
pub(super) fn is_initialize(body: &[u8]) -> bool {
    if !body.windows(12).any(|w| w == b"\"initialize\"") {
        return false;
    }
    serde_json::from_slice::<Value>(body).ok().is_some_and(|v| {
        v.get("method").and_then(Value::as_str) == Some("initialize")
            && v.pointer("/params/_meta")
                .and_then(|m| m.get(KEY_PROTOCOL_VERSION))
                .is_none()
    })
}
