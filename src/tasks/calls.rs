//! Calls among the Worker and the Durable Objects, decided once: which object of which
//! class, at which URL, with which internal headers and body, and what its reply means.
//! The adapter carries them ([`Calls`]: one POST to one object, its reply as sent); the
//! typed calls are here (a task's object) and beside each object's protocol (a principal's
//! ledger, `quota::calls`; a resource's registry, `legacy::subscribers`; an upstream's
//! watcher, `server::upstreams`). Rust Durable Objects cannot be called over JS RPC, so
//! every call is a `fetch` to the object's stub, answered as `protocol::ObjectReply`.

use super::protocol::{
    OBJECT_URL, ObjectError, ObjectReply, ObjectRequest, PRINCIPAL_HEADER, REQUEST_ID_HEADER,
};
use crate::auth::anonymous::task_principal;
use serde_json::Value;
use std::borrow::Cow;
use std::future::Future;

/// The Durable Object classes one deployment calls, each by its binding (wrangler.toml).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Class {
    /// `TaskObject`: one per task, named by its id.
    Tasks,
    /// `PrincipalObject`: one quota ledger per principal.
    Principals,
    /// `SessionObject`: one per 2025-11-25 session, and one registry per subscribed resource.
    Sessions,
    /// `UpstreamObject`: one watcher per upstream (gateway builds).
    Watchers,
}

impl Class {
    /// The binding's name in wrangler.toml.
    pub const fn binding(self) -> &'static str {
        match self {
            Class::Tasks => "TASKS",
            Class::Principals => "PRINCIPALS",
            Class::Sessions => "SESSIONS",
            Class::Watchers => "WATCHERS",
        }
    }
}

/// Why a call got no reply.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// The deployment does not bind the class.
    Unbound(Class),
    /// The call failed on its way (the object's name, the runtime's fetch).
    Failed(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Unbound(class) => write!(
                f,
                "the deployment has no {} Durable Object binding",
                class.binding()
            ),
            CallError::Failed(why) => f.write_str(why),
        }
    }
}

/// One call: `body` POSTed with `headers` to `url` on the object `name` of `class`.
pub struct Call<'a> {
    pub class: Class,
    pub name: &'a str,
    pub url: &'a str,
    pub headers: &'a [(&'a str, &'a str)],
    pub body: String,
}

/// What the adapter does for a call: the I/O, no decision. The reply as sent (status,
/// body), for [`ObjectReply::outcome`].
// Single threaded, as `server::perform::Effects`.
#[allow(async_fn_in_trait)]
pub trait Calls {
    fn call(&self, call: Call<'_>) -> impl Future<Output = Result<(u16, Vec<u8>), CallError>>;
}

/// The header that tells `task_id`'s object who calls: `principal`, or for an anonymous
/// caller that task's own principal (`auth::anonymous::task_principal`).
pub fn principal_header<'a>(principal: &'a str, task_id: &str) -> (&'static str, Cow<'a, str>) {
    (PRINCIPAL_HEADER, task_principal(principal, task_id))
}

/// `call`'s reply read ([`ObjectReply::outcome`]): the result, or why not.
pub async fn outcome(calls: &impl Calls, call: Call<'_>) -> Result<Value, ObjectError> {
    ObjectReply::outcome(calls.call(call).await.map_err(|e| e.to_string()))
}

/// Sends `request` to its task's object as `principal` ([`principal_header`]), naming the Worker's request (`request_id`) for the
/// object's log lines; the reply as sent (`server::creation::Reply`).
pub async fn task_call(
    calls: &impl Calls,
    request: &ObjectRequest,
    principal: &str,
    request_id: Option<&str>,
) -> Result<(u16, Vec<u8>), String> {
    let (name, principal) = principal_header(principal, request.task_id());
    let mut headers = vec![(name, principal.as_ref())];
    if let Some(request_id) = request_id {
        headers.push((REQUEST_ID_HEADER, request_id));
    }
    let body = serde_json::to_string(request).map_err(|e| e.to_string())?;
    let call = Call {
        class: Class::Tasks,
        name: request.task_id(),
        url: OBJECT_URL,
        headers: &headers,
        body,
    };
    calls.call(call).await.map_err(|e| e.to_string())
}

/// [`task_call`]'s reply read: the result, or why not.
pub async fn task(
    calls: &impl Calls,
    request: &ObjectRequest,
    principal: &str,
    request_id: Option<&str>,
) -> Result<Value, ObjectError> {
    ObjectReply::outcome(task_call(calls, request, principal, request_id).await)
}
