//! The outbound policy every request a tool sends goes through ([`super::Host::fetch`]):
//! which hosts may be reached, how redirects are followed, how much of an answer is read
//! and how long it may all take. It is the library's, on by default, so a tool that
//! passes a URL from a model to `host.fetch` is never an open proxy (MCP "Security Best
//! Practices", Server-Side Request Forgery).
//!
//! # Configuration
//!
//! ```text
//! FETCH_ALLOWED_HOSTS  = "api.example.com, *.example.org, 127.0.0.1:*"   (empty: nothing)
//! FETCH_MAX_REDIRECTS  = 5           hops followed, each re-checked against the list
//! FETCH_MAX_BYTES      = 8388608     the most of an answer's body that is read
//! FETCH_TIMEOUT_MS     = 10000       the whole exchange, every hop and the body included
//! ```
//!
//! A tool widens the list for itself with `Tool::allow_hosts` (explicit in its definition);
//! a request may set its own `timeout` and `max_bytes`.
//!
//! # Redirects (RFC 9110 §15.4)
//!
//! Requests are sent with `redirect: manual`; a 301/302/303/307/308 with a `Location` is
//! followed here, hop by hop, each target checked before any connection:
//!
//! ```text
//! 301, 302  POST → GET without the body (as browsers do, §15.4.2/3); other methods unchanged
//! 303       every method but HEAD → GET without the body (§15.4.4)
//! 307, 308  same method, same body (§15.4.8/9)
//! another origin: Authorization, Cookie and Proxy-Authorization are not sent on
//! ```

use super::allow::AllowList;
use super::outbound::{Inbound, Outbound, resolve};
use super::{HostError, Platform};
use crate::uri::Uri;
use crate::vars::{ConfigError, number};

/// Defaults of the variables above.
pub const DEFAULT_MAX_REDIRECTS: u32 = 5;
pub const DEFAULT_MAX_BYTES: usize = 8 * 1024 * 1024;
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// Headers that carry credentials for one origin only.
const CREDENTIALS: [&str; 3] = ["authorization", "cookie", "proxy-authorization"];

/// See the module docs. The default allows no host at all.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    pub allow: AllowList,
    pub max_redirects: u32,
    pub max_bytes: usize,
    pub timeout_ms: u64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            allow: AllowList::default(),
            max_redirects: DEFAULT_MAX_REDIRECTS,
            max_bytes: DEFAULT_MAX_BYTES,
            timeout_ms: DEFAULT_TIMEOUT_MS,
        }
    }
}

/// The bounds of one exchange the platform performs (one hop).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The answer (status, headers and the whole body) must arrive within this.
    pub timeout_ms: u64,
    /// Reading stops, with [`HostError::TooLarge`], past this many body bytes.
    pub max_bytes: usize,
}

impl Policy {
    /// The policy the variables above configure, over the defaults; `Err` names the bad
    /// one.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Policy, ConfigError> {
        Policy::default().with_vars(var)
    }

    /// This policy with the variables that `var` finds applied over it.
    pub fn with_vars(
        mut self,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Policy, ConfigError> {
        if let Some(v) = var("FETCH_ALLOWED_HOSTS") {
            self.allow = AllowList::parse(&v).map_err(|e| {
                ConfigError::new("FETCH_ALLOWED_HOSTS", format!("FETCH_ALLOWED_HOSTS: {e}"))
            })?;
        }
        if let Some(v) = var("FETCH_MAX_REDIRECTS") {
            self.max_redirects = number("FETCH_MAX_REDIRECTS", &v)?;
        }
        if let Some(v) = var("FETCH_MAX_BYTES") {
            self.max_bytes = number("FETCH_MAX_BYTES", &v)?;
        }
        if let Some(v) = var("FETCH_TIMEOUT_MS") {
            self.timeout_ms = number("FETCH_TIMEOUT_MS", &v)?;
        }
        Ok(self)
    }

    /// This policy with `extra` hosts allowed too (a tool's own).
    pub fn widened(&self, extra: &AllowList) -> Policy {
        Policy {
            allow: self.allow.union(extra),
            ..self.clone()
        }
    }

    /// Sends `request` through `platform` under this policy, following redirects.
    pub async fn fetch(
        &self,
        platform: &dyn Platform,
        request: Outbound,
    ) -> Result<Inbound, HostError> {
        let timeout_ms = request.timeout_ms.unwrap_or(self.timeout_ms);
        let max_bytes = request.max_bytes.unwrap_or(self.max_bytes);
        let started = platform.now_ms();
        let original = request.url.clone();
        let mut request = request;
        let mut hops = 0;
        loop {
            self.allow.check(&request.url).map_err(|e| match e {
                HostError::Refused(why) if hops > 0 => HostError::Refused(format!(
                    "{original} redirected to {}, which is not allowed: {why}",
                    request.url
                )),
                e => e,
            })?;
            let elapsed = platform.now_ms().saturating_sub(started);
            let left = timeout_ms.saturating_sub(elapsed);
            if left == 0 {
                return Err(HostError::Timeout {
                    url: original,
                    ms: timeout_ms,
                });
            }
            let limits = Limits {
                timeout_ms: left,
                max_bytes,
            };
            let answer = platform
                .fetch(request.clone(), limits)
                .await
                .map_err(|e| match e {
                    // The whole exchange's deadline, not this hop's remainder, is what the
                    // tool asked for.
                    HostError::Timeout { .. } => HostError::Timeout {
                        url: original.clone(),
                        ms: timeout_ms,
                    },
                    e => e,
                })?;
            let next = match redirect(&request, &answer) {
                Some(next) if request.follow_redirects => next?,
                _ => return Ok(answer),
            };
            hops += 1;
            if hops > self.max_redirects {
                return Err(HostError::Refused(format!(
                    "{original} redirected more than {} times (FETCH_MAX_REDIRECTS)",
                    self.max_redirects
                )));
            }
            request = next;
        }
    }
}

/// The request a redirect answer asks for next, as RFC 9110 §15.4 says (module docs);
/// `None` when `answer` is not a redirect to follow (another status, or no `Location`).
pub fn redirect(request: &Outbound, answer: &Inbound) -> Option<Result<Outbound, HostError>> {
    if !matches!(answer.status, 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let location = answer.header("location")?;
    let target = match resolve(&request.url, location) {
        Ok(target) => target,
        Err(e) => return Some(Err(e)),
    };
    let mut next = request.clone();
    let to_get = match answer.status {
        303 => request.method != "HEAD",
        301 | 302 => request.method == "POST",
        _ => false,
    };
    if to_get {
        next.method = "GET".into();
        next.body.clear();
        next.headers
            .retain(|(name, _)| !name.to_ascii_lowercase().starts_with("content-"));
    }
    if !same_origin(&request.url, &target) {
        // Any case: `Outbound`'s fields are public, so a name may not be lower-cased.
        next.headers.retain(|(name, _)| {
            !CREDENTIALS
                .iter()
                .any(|credential| name.eq_ignore_ascii_case(credential))
        });
    }
    next.url = target;
    Some(Ok(next))
}

fn same_origin(a: &str, b: &str) -> bool {
    match (Uri::parse(a), Uri::parse(b)) {
        (Ok(a), Ok(b)) => a.same_origin(&b),
        _ => false,
    }
}
