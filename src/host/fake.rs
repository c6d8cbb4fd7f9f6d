//! An in-memory [`Platform`] for native tests: canned HTTP answers, variables, secrets,
//! KV namespaces, and D1 answers. It records every request so tests can assert on them.
//!
//! ```
//! use mcp_tasks_edge::host::{Host, block_on, fake::FakeHost, post};
//! let fake = FakeHost::new()
//!     .allow("ci.test")
//!     .route("POST", "https://ci.test/runs", 202, "");
//! let host = Host::new(fake.clone());
//! let answer = block_on(host.fetch(post("https://ci.test/runs").json(&"main"))).unwrap();
//! assert_eq!(answer.status, 202);
//! assert_eq!(fake.requests()[0].body, br#""main""#);
//! ```

mod stream;

pub use stream::Piece;

use super::{BoxFuture, HostError, Inbound, Limits, Outbound, Platform, Streaming};
use serde_json::{Map, Value};
use std::any::Any;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// A canned answer: a response, or an error such as [`HostError::Network`].
pub type Answer = Result<Inbound, HostError>;

#[derive(Default)]
struct State {
    routes: Vec<(String, String, Vec<Answer>)>,
    streams: Vec<stream::Route>,
    streams_dropped: usize,
    requests: Vec<Outbound>,
    vars: HashMap<String, String>,
    secrets: HashMap<String, String>,
    kv: HashMap<String, BTreeMap<String, String>>,
    d1: Vec<(String, Vec<Map<String, Value>>)>,
    statements: Vec<D1Statement>,
    slept_ms: u64,
    now_ms: u64,
    latency_ms: u64,
    updated: Vec<String>,
}

/// A D1 statement a step ran ([`FakeHost::d1_statements`]).
#[derive(Debug, Clone, PartialEq)]
pub struct D1Statement {
    pub binding: String,
    pub sql: String,
    pub params: Vec<Value>,
}

/// See the module docs. Clones share state, so a test keeps one to inspect.
#[derive(Clone, Default)]
pub struct FakeHost(Rc<RefCell<State>>);

impl FakeHost {
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers `method url` with `status` and `body`. Several answers for the same route
    /// are given in order; the last one repeats.
    pub fn route(self, method: &str, url: &str, status: u16, body: &str) -> Self {
        let inbound = Inbound {
            status,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: body.as_bytes().to_vec(),
            url: url.to_owned(),
        };
        self.answer(method, url, Ok(inbound))
    }

    /// Answers `method url` with a redirect: `status` and `Location: location`.
    pub fn redirect(self, method: &str, url: &str, status: u16, location: &str) -> Self {
        let inbound = Inbound {
            status,
            headers: vec![("location".into(), location.into())],
            body: Vec::new(),
            url: url.to_owned(),
        };
        self.answer(method, url, Ok(inbound))
    }

    /// Lets a [`Host::new`](super::Host::new) over this fake reach `hosts` (the format
    /// of `FETCH_ALLOWED_HOSTS`, which it sets).
    pub fn allow(self, hosts: &str) -> Self {
        self.var("FETCH_ALLOWED_HOSTS", hosts)
    }

    /// Answers `method url` with `answer` (a response with any headers, or an error).
    pub fn answer(self, method: &str, url: &str, answer: Answer) -> Self {
        {
            let mut state = self.0.borrow_mut();
            let method = method.to_ascii_uppercase();
            match state
                .routes
                .iter_mut()
                .find(|(m, u, _)| *m == method && u == url)
            {
                Some((_, _, answers)) => answers.push(answer),
                None => state.routes.push((method, url.to_owned(), vec![answer])),
            }
        }
        self
    }

    /// Declares a service binding (see [`Platform::fetch_service`] on this fake).
    pub fn service(self, binding: &str) -> Self {
        self.var(&format!("BINDING:{binding}"), "service")
    }

    pub fn var(self, name: &str, value: &str) -> Self {
        self.0.borrow_mut().vars.insert(name.into(), value.into());
        self
    }

    pub fn secret(self, name: &str, value: &str) -> Self {
        self.0
            .borrow_mut()
            .secrets
            .insert(name.into(), value.into());
        self
    }

    /// Declares a KV namespace (empty) so `kv(binding)` finds it.
    pub fn kv_namespace(self, binding: &str) -> Self {
        self.0.borrow_mut().kv.entry(binding.into()).or_default();
        self
    }

    /// The rows every D1 statement containing `sql_fragment` answers (first match wins).
    pub fn d1_rows(self, sql_fragment: &str, rows: Vec<Map<String, Value>>) -> Self {
        self.0.borrow_mut().d1.push((sql_fragment.into(), rows));
        self
    }

    /// Every D1 statement run so far (`query` and `execute`), with its parameters: what a
    /// step wrote, for a test to assert on.
    pub fn d1_statements(&self) -> Vec<D1Statement> {
        self.0.borrow().statements.clone()
    }

    /// The canned rows for `sql`, recording the statement.
    fn d1_answer(
        &self,
        binding: &str,
        sql: &str,
        params: Vec<Value>,
    ) -> Result<Vec<Map<String, Value>>, HostError> {
        let mut state = self.0.borrow_mut();
        state.statements.push(D1Statement {
            binding: binding.into(),
            sql: sql.into(),
            params,
        });
        state
            .d1
            .iter()
            .find(|(fragment, _)| sql.contains(fragment.as_str()))
            .map(|(_, rows)| rows.clone())
            .ok_or_else(|| HostError::Storage(format!("D1 {binding}: no canned rows for {sql:?}")))
    }

    /// Every request sent so far.
    pub fn requests(&self) -> Vec<Outbound> {
        self.0.borrow().requests.clone()
    }

    /// The KV value at `binding/key`.
    pub fn kv_value(&self, binding: &str, key: &str) -> Option<String> {
        self.0.borrow().kv.get(binding)?.get(key).cloned()
    }

    /// Makes every request take `ms` of the fake clock; one whose deadline is shorter
    /// times out at its deadline, as the platform's would.
    pub fn latency(self, ms: u64) -> Self {
        self.0.borrow_mut().latency_ms = ms;
        self
    }

    /// Sets the fake clock (Unix milliseconds); `sleep` advances it.
    pub fn at(self, now_ms: u64) -> Self {
        self.0.borrow_mut().now_ms = now_ms;
        self
    }

    /// The resources announced as updated, in order.
    pub fn updated_resources(&self) -> Vec<String> {
        self.0.borrow().updated.clone()
    }

    /// Total milliseconds `sleep` was asked for.
    pub fn slept_ms(&self) -> u64 {
        self.0.borrow().slept_ms
    }

    /// An unknown binding (one without a `BINDING:<name>` variable) fails as the
    /// platform's missing binding does.
    fn bound(&self, binding: &str) -> Result<(), HostError> {
        match self.var(&format!("BINDING:{binding}")) {
            Some(_) => Ok(()),
            None => Err(HostError::Missing {
                what: "service binding",
                name: binding.to_owned(),
            }),
        }
    }

    /// Records `request` and takes the fake latency, or the request's deadline if that is
    /// shorter ([`HostError::Timeout`]).
    fn record(&self, request: &Outbound, limits: Limits) -> Result<(), HostError> {
        let mut state = self.0.borrow_mut();
        state.requests.push(request.clone());
        if state.latency_ms > limits.timeout_ms {
            state.now_ms += limits.timeout_ms;
            return Err(HostError::Timeout {
                url: request.url.clone(),
                ms: limits.timeout_ms,
            });
        }
        state.now_ms += state.latency_ms;
        Ok(())
    }

    /// The answer to one request ([`Platform::fetch`]).
    fn exchange(&self, request: Outbound, limits: Limits) -> Answer {
        self.record(&request, limits)?;
        let mut state = self.0.borrow_mut();
        let streamed = state.stream_for(&request).map(|route| {
            let body = state.joined(&route.pieces)?;
            Ok(Inbound {
                status: route.status,
                headers: vec![("content-type".into(), route.content_type.clone())],
                body,
                url: request.url.clone(),
            })
        });
        let answer = match streamed {
            Some(answer) => answer,
            None => match state
                .routes
                .iter_mut()
                .find(|(m, u, _)| *m == request.method && *u == request.url)
            {
                Some((_, _, answers)) if answers.len() > 1 => answers.remove(0),
                Some((_, _, answers)) => answers[0].clone(),
                None => Err(HostError::Network(format!(
                    "no route to {} {}",
                    request.method, request.url
                ))),
            },
        };
        // As the real platform: a body past the limit is not read on.
        answer.and_then(|a| match a.body.len() > limits.max_bytes {
            true => Err(HostError::TooLarge {
                url: request.url.clone(),
                limit: limits.max_bytes,
            }),
            false => Ok(Inbound {
                url: request.url.clone(),
                ..a
            }),
        })
    }

    fn namespace<T>(
        &self,
        binding: &str,
        f: impl FnOnce(&mut BTreeMap<String, String>) -> T,
    ) -> Result<T, HostError> {
        let mut state = self.0.borrow_mut();
        let ns = state
            .kv
            .get_mut(binding)
            .ok_or_else(|| HostError::Missing {
                what: "KV binding",
                name: binding.into(),
            })?;
        Ok(f(ns))
    }
}

impl Platform for FakeHost {
    /// A service binding's request is answered as a request to its URL would be (route
    /// it with [`FakeHost::answer`]), and recorded among [`FakeHost::requests`]; an
    /// unknown binding (one without a `BINDING:<name>` variable) fails as the platform's
    /// missing binding does.
    fn fetch_service<'a>(
        &'a self,
        binding: &'a str,
        request: Outbound,
        limits: Limits,
    ) -> BoxFuture<'a, Result<Inbound, HostError>> {
        if let Err(missing) = self.bound(binding) {
            return Box::pin(async move { Err(missing) });
        }
        self.fetch(request, limits)
    }

    fn fetch(
        &self,
        request: Outbound,
        limits: Limits,
    ) -> BoxFuture<'_, Result<Inbound, HostError>> {
        let answer = self.exchange(request, limits);
        Box::pin(async move { answer })
    }

    /// A streamed route's answer as its pieces (recorded as `fetch` records a request);
    /// another route's as one piece.
    fn open<'a>(
        &'a self,
        binding: Option<&'a str>,
        request: Outbound,
        limits: Limits,
    ) -> BoxFuture<'a, Result<Streaming, HostError>> {
        let answer = self.opened(binding, request, limits);
        Box::pin(async move { answer })
    }

    fn var(&self, name: &str) -> Option<String> {
        self.0.borrow().vars.get(name).cloned()
    }

    fn secret(&self, name: &str) -> Option<String> {
        let state = self.0.borrow();
        state
            .secrets
            .get(name)
            .or_else(|| state.vars.get(name))
            .cloned()
    }

    fn sleep(&self, ms: u64) -> BoxFuture<'_, ()> {
        let mut state = self.0.borrow_mut();
        state.slept_ms += ms;
        state.now_ms += ms;
        Box::pin(async {})
    }

    fn now_ms(&self) -> u64 {
        self.0.borrow().now_ms
    }

    fn resource_updated<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Result<(), HostError>> {
        self.0.borrow_mut().updated.push(uri.to_owned());
        Box::pin(async { Ok(()) })
    }

    fn kv_get<'a>(
        &'a self,
        binding: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, HostError>> {
        let result = self.namespace(binding, |ns| ns.get(key).cloned());
        Box::pin(async move { result })
    }

    fn kv_put<'a>(
        &'a self,
        binding: &'a str,
        key: &'a str,
        value: String,
        _ttl: Option<u64>,
    ) -> BoxFuture<'a, Result<(), HostError>> {
        let result = self.namespace(binding, |ns| {
            ns.insert(key.into(), value);
        });
        Box::pin(async move { result })
    }

    fn kv_delete<'a>(
        &'a self,
        binding: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<(), HostError>> {
        let result = self.namespace(binding, |ns| {
            ns.remove(key);
        });
        Box::pin(async move { result })
    }

    fn d1_query<'a>(
        &'a self,
        binding: &'a str,
        sql: &'a str,
        params: Vec<Value>,
    ) -> BoxFuture<'a, Result<Vec<Map<String, Value>>, HostError>> {
        let rows = self.d1_answer(binding, sql, params);
        Box::pin(async move { rows })
    }

    /// The number of changes is the number of canned rows.
    fn d1_execute<'a>(
        &'a self,
        binding: &'a str,
        sql: &'a str,
        params: Vec<Value>,
    ) -> BoxFuture<'a, Result<u64, HostError>> {
        let changes = self.d1_answer(binding, sql, params).map(|r| r.len() as u64);
        Box::pin(async move { changes })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
