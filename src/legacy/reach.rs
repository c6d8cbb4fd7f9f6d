//! How a 2025-11-25 session reaches a task named by its id, once for every platform. An
//! anonymous task's id is its key in both eras, and what `tasks/get` can read `tasks/list`
//! must list (2025-11-25 tasks "Task Listing" 4), so [`Session::reach`] decides and
//! [`send`] performs:
//!
//! ```text
//! As(p)          send as p                        (a reached task gone for good is forgotten)
//! OwnThenAny(p)  send as p; if "not found":
//!                  read it as ANY_SESSION         (nothing changes yet)
//!                  record it in the session       (at most MAX_REACHED; full: "not found")
//!                  then send as ANY_SESSION       (a cancel happens only once it is listed)
//! ```
//!
//! [`listed`] gives the first page of `tasks/list` the reached tasks, in their place among
//! the newest first. Generic over [`Reaching`]: the Cloudflare session object implements
//! it on the task objects and its storage (`cloudflare::session_object::reach`), the
//! native tests on a map (`tests/common/reach.rs`, in tests/legacy_reach.rs and
//! tests/legacy_task_ops.rs).

use super::session::{Reach, Session};
use crate::auth::anonymous::ANY_SESSION;
use crate::error::McpError;
use crate::tasks::protocol::ObjectRequest;
use serde_json::Value;

/// What reaching a task needs of the session object's platform.
// Single threaded, as `legacy::object::SessionPlatform`.
#[allow(async_fn_in_trait)]
pub trait Reaching {
    /// The task object's answer to `request`, sent as `principal`.
    async fn send(&mut self, request: ObjectRequest, principal: &str) -> Result<Value, McpError>;
    /// The tasks `ids` as [`ANY_SESSION`] reads them (`None`: it cannot).
    async fn read_all(&mut self, ids: Vec<String>) -> Vec<(String, Option<Value>)>;
    /// Applies `change` to the stored session (read and written back with nothing
    /// between, so no other request's change is lost; written only if `change` says it
    /// changed it): the session as stored, `None` if there is none any more; `Err` if its
    /// storage failed (surfaced to the client, never taken for "no session").
    async fn update(
        &mut self,
        change: &mut dyn FnMut(&mut Session) -> bool,
    ) -> Result<Option<Session>, McpError>;
}

fn is_not_found(outcome: &Result<Value, McpError>) -> bool {
    matches!(outcome, Err(McpError::Wire(e)) if crate::tasks::protocol::is_task_not_found(e))
}

/// Sends `request` to its task as `session` reaches it: the task object's answer, and
/// the principal that reached it (for what follows, e.g. `tasks/result`'s answers).
pub async fn send<R: Reaching>(
    r: &mut R,
    session: &Session,
    request: ObjectRequest,
) -> (Result<Value, McpError>, String) {
    let task_id = request.task_id().to_owned();
    let own = match session.reach(&task_id) {
        Reach::As(principal) => {
            let outcome = r.send(request, principal).await;
            if principal == ANY_SESSION && is_not_found(&outcome) {
                // It ended for good: it leaves the session's list.
                if let Err(failed) = r.update(&mut |s| s.reached.remove(&task_id)).await {
                    return (Err(failed), principal.to_owned());
                }
            }
            return (outcome, principal.to_owned());
        }
        Reach::OwnThenAny(own) => own,
    };
    let first = r.send(request.clone(), own).await;
    if !is_not_found(&first) {
        return (first, own.to_owned());
    }
    let probe = ObjectRequest::Get {
        task_id: task_id.clone(),
    };
    let read = r.send(probe, ANY_SESSION).await;
    if read.is_err() {
        return (first, own.to_owned());
    }
    let recorded = match r.update(&mut |s| s.record_reached(&task_id)).await {
        Ok(stored) => stored.is_some_and(|s| s.reached.contains(&task_id)),
        Err(failed) => return (Err(failed), own.to_owned()),
    };
    if !recorded {
        // Not recorded, so not listed: it stays unreachable (the bound is full).
        return (first, own.to_owned());
    }
    let outcome = match request {
        ObjectRequest::Get { .. } => read,
        request => r.send(request, ANY_SESSION).await,
    };
    (outcome, ANY_SESSION.to_owned())
}

/// The principal `session` reaches task `task_id` as, and the task when finding that out
/// took reading it (so whoever follows it starts from that read instead of a second one).
pub async fn principal<R: Reaching>(
    r: &mut R,
    session: &Session,
    task_id: &str,
) -> Result<(String, Option<Value>), McpError> {
    match session.reach(task_id) {
        Reach::As(principal) => Ok((principal.to_owned(), None)),
        Reach::OwnThenAny(_) => {
            let get = ObjectRequest::Get {
                task_id: task_id.to_owned(),
            };
            let (outcome, principal) = send(r, session, get).await;
            outcome.map(|task| (principal, Some(task)))
        }
    }
}

/// The first page of `session`'s `tasks/list` (`tasks`, newest first) with the tasks it
/// reached that it can still read, each in its place (RFC 3339 times of one server
/// compare as strings; inserted, not sorted: a sort of `Value`s would be code of its
/// own). Those it cannot read are forgotten (reaching one again records it again).
pub async fn listed<R: Reaching>(
    r: &mut R,
    session: &Session,
    mut tasks: Vec<Value>,
) -> Result<Vec<Value>, McpError> {
    if session.reached.is_empty() {
        return Ok(tasks);
    }
    let ids = session.reached.iter().cloned().collect();
    let mut gone = Vec::new();
    for (task_id, task) in r.read_all(ids).await {
        let Some(task) = task else {
            gone.push(task_id);
            continue;
        };
        let created = task["createdAt"].as_str();
        let at = tasks
            .iter()
            .position(|t| t["createdAt"].as_str() < created)
            .unwrap_or(tasks.len());
        tasks.insert(at, task);
    }
    if !gone.is_empty() {
        r.update(&mut |s| {
            let before = s.reached.len();
            for task_id in &gone {
                s.reached.remove(task_id);
            }
            s.reached.len() != before
        })
        .await?;
    }
    Ok(tasks)
}
