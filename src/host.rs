//! The platform a tool step reaches: outbound HTTP, variables and secrets, KV and D1
//! (docs/authoring.md). A step gets a [`Host`]; the Cloudflare adapter implements
//! [`Platform`] with the Worker's `fetch` and bindings, native tests use
//! [`fake::FakeHost`]. The core never does I/O itself: it only awaits what a `Host` does.
//!
//! ```
//! use mcp_tasks_edge::host::{Host, fake::FakeHost, get};
//! # mcp_tasks_edge::host::block_on(async {
//! let host = Host::new(
//!     FakeHost::new()
//!         .var("GREETING", "hi")
//!         .allow("api.test")
//!         .route("GET", "https://api.test/x", 200, "ok"),
//! );
//! assert_eq!(host.var("GREETING")?, "hi");
//! let response = host.fetch(get("https://api.test/x")).await?;
//! assert_eq!(response.text()?, "ok");
//! # Ok::<(), mcp_tasks_edge::host::HostError>(())
//! # }).unwrap();
//! ```

pub mod allow;
pub mod fake;
mod outbound;
pub mod policy;
mod storage;
mod streaming;

pub use allow::AllowList;
pub use outbound::{Inbound, Outbound, get, post};
pub use policy::{Limits, Policy};
pub use storage::{D1, Kv};
pub use streaming::{Chunks, Streaming};

use serde_json::{Map, Value};
use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

/// A boxed future that need not be `Send` (wasm32 is single-threaded).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// What went wrong reaching the platform. Its `Display` is a sentence a tool can show.
#[derive(Debug, Clone, PartialEq)]
pub enum HostError {
    /// The outbound policy refused the request (or a redirect) before any connection.
    Refused(String),
    /// No whole answer within the request's timeout.
    Timeout { url: String, ms: u64 },
    /// The answer's body is longer than the request allows (reading stopped there).
    TooLarge { url: String, limit: usize },
    /// The request could not be sent or its answer not read.
    Network(String),
    /// A variable, secret or binding the tool needs is not configured.
    Missing { what: &'static str, name: String },
    /// A variable is set but malformed (the message names it).
    Misconfigured(String),
    /// A KV or D1 operation failed.
    Storage(String),
    /// An answer could not be decoded (not JSON, not UTF-8, wrong shape).
    Decode(String),
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::Refused(why) => write!(f, "refused: {why}"),
            HostError::Timeout { url, ms } => write!(f, "{url} did not answer within {ms} ms"),
            HostError::TooLarge { url, limit } => {
                write!(f, "{url} answered with more than the {limit} bytes allowed")
            }
            HostError::Network(why) => write!(f, "network error: {why}"),
            HostError::Missing { what, name } => write!(f, "the {what} {name} is not configured"),
            HostError::Misconfigured(why) => write!(f, "misconfigured: {why}"),
            HostError::Storage(why) => write!(f, "storage error: {why}"),
            HostError::Decode(why) => write!(f, "could not decode the answer: {why}"),
        }
    }
}

impl std::error::Error for HostError {}

/// What an adapter implements. Tool authors use [`Host`], which wraps one of these.
pub trait Platform {
    /// Sends exactly one HTTP request, without following redirects (a 3xx is an answer:
    /// [`Policy::fetch`] decides about the next hop), and reads the whole answer within
    /// `limits`: [`HostError::Timeout`] when status, headers and body take longer than
    /// `limits.timeout_ms`, [`HostError::TooLarge`] as soon as the body passes
    /// `limits.max_bytes` (a body that never ends is never read whole).
    fn fetch(&self, request: Outbound, limits: Limits)
    -> BoxFuture<'_, Result<Inbound, HostError>>;
    /// Sends exactly one HTTP request to the Worker bound as `binding` (a Cloudflare
    /// service binding: another Worker of the same account, reached without the
    /// network), read within `limits` as [`Platform::fetch`] reads an answer.
    fn fetch_service<'a>(
        &'a self,
        binding: &'a str,
        request: Outbound,
        limits: Limits,
    ) -> BoxFuture<'a, Result<Inbound, HostError>>;
    /// Sends exactly one request (no redirect is followed: a 3xx is the answer) to the
    /// network (`binding` `None`) or to the Worker bound as `binding`, and answers as soon
    /// as status and headers came; the body is then read with [`Streaming::next_chunk`]
    /// within `limits` (the deadline counts from now and covers the whole body). Default:
    /// [`Platform::fetch`] / [`Platform::fetch_service`], the body whole as one piece.
    fn open<'a>(
        &'a self,
        binding: Option<&'a str>,
        request: Outbound,
        limits: Limits,
    ) -> BoxFuture<'a, Result<Streaming, HostError>> {
        Box::pin(async move {
            let inbound = match binding {
                None => self.fetch(request, limits).await?,
                Some(binding) => self.fetch_service(binding, request, limits).await?,
            };
            Ok(Streaming::whole(inbound).max_bytes(limits.max_bytes))
        })
    }
    /// A plain variable (`[vars]` in wrangler.toml, `--var` on `wrangler dev`).
    fn var(&self, name: &str) -> Option<String>;
    /// A secret (`wrangler secret put`); adapters may fall back to a variable of that name.
    fn secret(&self, name: &str) -> Option<String>;
    /// Resolves after `ms` milliseconds.
    fn sleep(&self, ms: u64) -> BoxFuture<'_, ()>;
    /// The time, in Unix milliseconds.
    fn now_ms(&self) -> u64;
    /// Tells the clients subscribed to `uri` (2025-11-25 `resources/subscribe`) that the
    /// resource changed: `notifications/resources/updated` on their sessions' streams.
    fn resource_updated<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Result<(), HostError>>;
    fn kv_get<'a>(
        &'a self,
        binding: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, HostError>>;
    fn kv_put<'a>(
        &'a self,
        binding: &'a str,
        key: &'a str,
        value: String,
        ttl_seconds: Option<u64>,
    ) -> BoxFuture<'a, Result<(), HostError>>;
    fn kv_delete<'a>(
        &'a self,
        binding: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<(), HostError>>;
    /// Runs a statement and returns its rows as JSON objects.
    fn d1_query<'a>(
        &'a self,
        binding: &'a str,
        sql: &'a str,
        params: Vec<Value>,
    ) -> BoxFuture<'a, Result<Vec<Map<String, Value>>, HostError>>;
    /// Runs a statement and returns how many rows it changed.
    fn d1_execute<'a>(
        &'a self,
        binding: &'a str,
        sql: &'a str,
        params: Vec<Value>,
    ) -> BoxFuture<'a, Result<u64, HostError>>;
    /// The concrete platform, for escape hatches such as the Cloudflare adapter's raw `Env`.
    fn as_any(&self) -> &dyn Any;
}

/// A step's handle on the platform and the outbound policy its requests go through.
/// Cheap to clone; steps take it by value so their futures borrow nothing.
#[derive(Clone)]
pub struct Host {
    platform: Rc<dyn Platform>,
    /// `Err`: the policy's variables are malformed, and every fetch says so.
    policy: Rc<Result<Policy, String>>,
}

impl fmt::Debug for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Host")
    }
}

impl Host {
    /// A host whose outbound policy comes from the platform's own variables
    /// (`FETCH_ALLOWED_HOSTS`, …; see [`policy`]): nothing may be fetched unless they
    /// allow it.
    pub fn new(platform: impl Platform + 'static) -> Self {
        let policy = Policy::from_vars(|name| platform.var(name)).map_err(|e| e.reason);
        Host {
            platform: Rc::new(platform),
            policy: Rc::new(policy),
        }
    }

    /// A host with an explicit outbound policy (the adapter's, parsed once).
    pub fn with_policy(platform: Rc<dyn Platform>, policy: Rc<Result<Policy, String>>) -> Self {
        Host { platform, policy }
    }

    /// The same host with `extra` hosts allowed (a tool's own, see `Tool::allow_hosts`).
    pub fn widened(&self, extra: &AllowList) -> Host {
        if extra.is_empty() {
            return self.clone();
        }
        let policy = match self.policy.as_ref() {
            Ok(policy) => Ok(policy.widened(extra)),
            Err(e) => Err(e.clone()),
        };
        Host {
            platform: self.platform.clone(),
            policy: Rc::new(policy),
        }
    }

    /// The platform behind this host (see [`Platform::as_any`]).
    pub fn platform(&self) -> &dyn Platform {
        self.platform.as_ref()
    }

    /// Sends an HTTP request under the outbound policy:
    /// `host.fetch(get(url).bearer(&token)).await?`. A host the policy does not allow is
    /// [`HostError::Refused`] before any connection; redirects are followed hop by hop,
    /// each re-checked; the answer is bounded in size and time (see [`policy`]).
    pub async fn fetch(&self, request: Outbound) -> Result<Inbound, HostError> {
        request.check()?;
        match self.policy.as_ref() {
            Ok(policy) => policy.fetch(self.platform.as_ref(), request).await,
            Err(e) => Err(HostError::Misconfigured(e.clone())),
        }
    }

    /// Sends an HTTP request to the Worker bound as `binding` (a service binding the
    /// deployment configured, so no allow-list applies: it is not a network address),
    /// within the policy's bounds (the request's own `timeout` and `max_bytes` first);
    /// redirects are answers, not followed.
    pub async fn fetch_service(
        &self,
        binding: &str,
        request: Outbound,
    ) -> Result<Inbound, HostError> {
        request.check()?;
        let limits = self.limits(&request)?;
        self.platform.fetch_service(binding, request, limits).await
    }

    /// Like [`Host::fetch`] (the outbound policy's allow-list checked first, its default
    /// limits unless the request sets its own) but never follows a redirect and answers
    /// with the body still arriving: read it with [`Streaming::next_chunk`] (a
    /// `text/event-stream`, say), within the request's `timeout` (counted from now, the
    /// whole body included) and `max_bytes` (in total). Dropping the answer stops it.
    pub async fn open(&self, request: Outbound) -> Result<Streaming, HostError> {
        self.check_url(&request.url)?;
        request.check()?;
        let limits = self.limits(&request)?;
        self.platform.open(None, request, limits).await
    }

    /// Like [`Host::fetch_service`], the body still arriving (see [`Host::open`]).
    pub async fn open_service(
        &self,
        binding: &str,
        request: Outbound,
    ) -> Result<Streaming, HostError> {
        request.check()?;
        let limits = self.limits(&request)?;
        self.platform.open(Some(binding), request, limits).await
    }

    /// The bounds of one exchange: the request's own, else the policy's.
    fn limits(&self, request: &Outbound) -> Result<Limits, HostError> {
        match self.policy.as_ref() {
            Ok(policy) => Ok(Limits {
                timeout_ms: request.timeout_ms.unwrap_or(policy.timeout_ms),
                max_bytes: request.max_bytes.unwrap_or(policy.max_bytes),
            }),
            Err(e) => Err(HostError::Misconfigured(e.clone())),
        }
    }

    /// Whether the outbound policy lets a request reach `url` (the check every
    /// [`Host::fetch`] makes first), for a tool that wants to refuse a URL early.
    pub fn check_url(&self, url: &str) -> Result<(), HostError> {
        match self.policy.as_ref() {
            Ok(policy) => policy.allow.check(url),
            Err(e) => Err(HostError::Misconfigured(e.clone())),
        }
    }

    /// A configured variable, or [`HostError::Missing`].
    pub fn var(&self, name: &str) -> Result<String, HostError> {
        self.platform.var(name).ok_or_else(|| HostError::Missing {
            what: "variable",
            name: name.to_owned(),
        })
    }

    /// A variable that may be absent.
    pub fn var_opt(&self, name: &str) -> Option<String> {
        self.platform.var(name)
    }

    /// A configured secret, or [`HostError::Missing`].
    pub fn secret(&self, name: &str) -> Result<String, HostError> {
        self.platform
            .secret(name)
            .ok_or_else(|| HostError::Missing {
                what: "secret",
                name: name.to_owned(),
            })
    }

    /// Waits `ms` milliseconds (prefer `Step::wait` for long waits inside tasks: it
    /// frees the object instead of holding it).
    pub async fn sleep(&self, ms: u64) {
        self.platform.sleep(ms).await
    }

    /// The time, in Unix milliseconds.
    pub fn now_ms(&self) -> u64 {
        self.platform.now_ms()
    }

    /// Announces that resource `uri` changed: every session subscribed to it gets
    /// `notifications/resources/updated` (best effort: a client not listening misses it).
    pub async fn resource_updated(&self, uri: &str) -> Result<(), HostError> {
        self.platform.resource_updated(uri).await
    }

    /// The KV namespace bound as `binding`.
    pub fn kv<'a>(&'a self, binding: &'a str) -> Kv<'a> {
        Kv::new(self.platform.as_ref(), binding)
    }

    /// The D1 database bound as `binding`.
    pub fn d1<'a>(&'a self, binding: &'a str) -> D1<'a> {
        D1::new(self.platform.as_ref(), binding)
    }
}

/// Runs a future to completion on the current thread. For native tests and doc examples
/// with [`fake::FakeHost`], whose futures never wait on anything outside.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}
