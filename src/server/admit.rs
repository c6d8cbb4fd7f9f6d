//! A request's admission at the endpoint, before the core decides what it asks
//! (`Server::handle`): the Protected Resource Metadata answered at once, the caller
//! authenticated from the headers alone, and only then the body read, unless its declared
//! length is already over `MAX_BODY_BYTES` (the gate then answers 413 from the header,
//! and nothing is read). A stranger's request costs no body read and no work beyond its
//! headers. The platform ([`Door`]) checks a JWT's signature, reads the body and prints.

use super::{Context, Server};
use crate::auth::jwt::Token;
use crate::auth::{AuthConfig, Outcome};
use crate::error::McpError;
use crate::http::{HttpRequest, HttpResponse};
use crate::ops::log::{self, Line};

/// What admission needs of the platform.
#[allow(async_fn_in_trait)] // single-threaded (wasm): no Send bound is wanted
pub trait Door {
    /// Checks `token`'s signature with the issuer's keys (`auth::keys::verify`); `Err` is
    /// the refusal to answer with.
    async fn verify(&self, auth: &AuthConfig, token: &Token, now_ms: u64) -> Result<(), McpError>;

    /// The request's body: `declared` (its `Content-Length`) is within `limit` when
    /// given; without it, at most `limit + 1` bytes are read (the gate answers 413).
    async fn body(&self, declared: Option<usize>, limit: usize) -> Result<Vec<u8>, String>;

    fn now_ms(&self) -> u64;

    fn print(&self, line: &Line);
}

/// How admission ended.
#[derive(Debug)]
pub enum Admitted {
    /// Answered at the door: the metadata, or the caller's refusal (401/403, logged).
    Answer(HttpResponse),
    /// The request, its body read, and who is calling.
    Caller(HttpRequest, Context),
}

impl Server {
    /// Admits `request` (its body not read yet) at `origin` (`scheme://host[:port]`);
    /// `trace` is its request id, in the refusal's log line. `Err`: the body could not
    /// be read.
    pub async fn admit(
        &self,
        mut request: HttpRequest,
        origin: &str,
        trace: &str,
        door: &impl Door,
    ) -> Result<Admitted, String> {
        if let Some(response) = self.well_known(&request, origin) {
            return Ok(Admitted::Answer(response));
        }
        let granted = match self.authenticate(&request) {
            Outcome::Principal(principal) => Ok(principal),
            Outcome::Refused(error) => Err(error),
            Outcome::Jwt(token) => {
                let now = door.now_ms();
                match door.verify(&self.config.auth, &token, now).await {
                    Ok(()) => self.grant(&token, origin, now),
                    Err(error) => Err(error),
                }
            }
        };
        let principal = match granted {
            Ok(principal) => principal,
            Err(error) => {
                if let Some(line) = log::refused(&error, None, Some(trace)) {
                    door.print(&line);
                }
                let envelope = self.envelope_for(&request);
                return Ok(Admitted::Answer(
                    self.refuse(None, &error, &envelope, origin),
                ));
            }
        };
        let declared = request.headers.content_length();
        let limit = self.config.max_body_bytes;
        if request.method == "POST" && declared.is_none_or(|n| n <= limit) {
            request.body = door.body(declared, limit).await?;
        }
        let now_ms = door.now_ms();
        Ok(Admitted::Caller(request, Context { principal, now_ms }))
    }
}
