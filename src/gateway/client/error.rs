//! Why a request to an upstream produced no response, and what a caller sees of it.

use crate::host::HostError;
use crate::jsonrpc::{ErrorCode, ErrorObject};
use std::fmt;

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
    /// The upstream asked a question where it cannot be asked (a step in the Worker):
    /// the call was dropped, for a task object to make again.
    Handover,
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
            UpstreamError::Handover => {
                f.write_str("it asked a question mid-call where none can be asked")
            }
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
