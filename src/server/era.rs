//! The protocol revision an answer is shaped for. The handlers speak 2026-07-28; a
//! 2025-11-25 session's answers are the same answers with that revision's transport rules
//! (`error::legacy_status`) and without the fields it does not know.

use crate::error::{McpError, legacy_status};
use crate::http::HttpResponse;
use serde_json::Value;

/// Which revision's client an answer goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28 (the stateless endpoint).
    Modern,
    /// 2025-11-25 (a session's object).
    Legacy,
}

impl Era {
    /// `response`, a handler's answer, as this era's client gets it: for 2025-11-25, the
    /// status its transport gives (a 429 or 406 stays, any other error is a 200 carrying
    /// it), the body without the 2026-07-28 fields, and a 429's `Retry-After` kept, as on
    /// the stateless endpoint.
    pub fn answer(self, response: HttpResponse) -> HttpResponse {
        match self {
            Era::Modern => response,
            Era::Legacy => {
                let mut answer =
                    HttpResponse::json(legacy_status(response.status), legacy_body(&response.body));
                let retry =
                    (response.headers.into_iter()).filter(|(name, _)| *name == "retry-after");
                answer.headers.extend(retry);
                answer
            }
        }
    }
}

/// A modern result as a 2025-11-25 client expects it: without the 2026-07-28 fields.
pub fn legacy_result(mut result: Value) -> Value {
    if let Some(object) = result.as_object_mut() {
        for field in ["resultType", "ttlMs", "cacheScope"] {
            object.remove(field);
        }
    }
    result
}

/// A modern response body (JSON-RPC) with its result reshaped for 2025-11-25. The body
/// is the core's own: one that does not parse is a bug, answered as a -32603 that says so,
/// never passed on unshaped.
pub fn legacy_body(body: &[u8]) -> Vec<u8> {
    let mut message: Value = match serde_json::from_slice(body) {
        Ok(message) => message,
        Err(e) => {
            let bug = McpError::Internal(format!("an answer that is not JSON ({e})"));
            return crate::jsonrpc::error_response(None, &bug.to_wire());
        }
    };
    if let Some(result) = message.get_mut("result") {
        *result = legacy_result(result.take());
    }
    serde_json::to_vec(&message).expect("a parsed value serializes")
}
