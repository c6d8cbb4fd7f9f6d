//! Anonymous callers (`ALLOW_ANONYMOUS=true`) have no identity to bind their work to, so
//! none of them shares a principal with another: holding an id is the only key.
//!
//! ```text
//! caller            owns                                  counted in the ledger   lists
//! anonymous         each task: "anonymous-task:<taskId>"  "anonymous" (shared)     nothing
//! anonymous, in a   the session and its tasks:            "anonymous-session:<id>" its session's
//!   legacy session  "anonymous-session:<sessionId>"       (+ its place among the    tasks, and those
//!                                                          "anonymous" sessions, and it reached by id
//!                                                          each tool run in
//!                                                          "anonymous" too)
//! key / OAuth       everything it creates                 its own                  its own tasks
//! ```
//!
//! So one anonymous caller never lists another's tasks or sessions, and anonymous work as
//! a whole stays bounded by the quotas of the shared `anonymous` ledger (sessions, tool
//! runs in and out of sessions, task creations, listen streams) and each session's own
//! (`quota::shared_run`). An anonymous task's id is its key in both eras: a 2025-11-25
//! anonymous session reaches another anonymous session's task by its id, as
//! [`ANY_SESSION`] (`legacy::Session::reach`), and lists it from then on.

use super::ANONYMOUS;
use std::borrow::Cow;

const TASK_PREFIX: &str = "anonymous-task:";
const SESSION_PREFIX: &str = "anonymous-session:";

/// The principal a 2025-11-25 anonymous session reaches another anonymous session's task
/// with. No caller is ever this principal: authenticated ones are `key:` or `oauth:`, and
/// a session id is hex digits.
pub const ANY_SESSION: &str = "anonymous-session:*";

/// Whether `principal` reaches a task `owner` owns: its own, or, as [`ANY_SESSION`], any
/// anonymous session's.
pub fn reaches(principal: &str, owner: &str) -> bool {
    principal == owner || (principal == ANY_SESSION && owner.starts_with(SESSION_PREFIX))
}

/// The principal that owns task `task_id` when `principal` creates or reaches it.
pub fn task_principal<'a>(principal: &'a str, task_id: &str) -> Cow<'a, str> {
    if principal == ANONYMOUS {
        Cow::Owned(format!("{TASK_PREFIX}{task_id}"))
    } else {
        Cow::Borrowed(principal)
    }
}

/// The principal of legacy session `session_id` when `principal` opens or uses it.
pub fn session_principal<'a>(principal: &'a str, session_id: &str) -> Cow<'a, str> {
    if principal == ANONYMOUS {
        Cow::Owned(format!("{SESSION_PREFIX}{session_id}"))
    } else {
        Cow::Borrowed(principal)
    }
}

/// The name of the quota ledger (a PrincipalObject) that counts `principal`'s work.
pub fn ledger_name(principal: &str) -> &str {
    if principal.starts_with(TASK_PREFIX) {
        ANONYMOUS
    } else {
        principal
    }
}

/// Whether `principal`'s tasks are indexed and listed (stateless anonymous callers have
/// no list: each of their tasks is its own principal).
pub fn lists_tasks(principal: &str) -> bool {
    principal != ANONYMOUS && !principal.starts_with(TASK_PREFIX)
}

/// Whether `principal` is an anonymous 2025-11-25 session's.
pub fn is_session(principal: &str) -> bool {
    principal.starts_with(SESSION_PREFIX)
}

/// Whether `principal` is one of the anonymous ones.
pub fn is_anonymous(principal: &str) -> bool {
    principal == ANONYMOUS
        || principal.starts_with(TASK_PREFIX)
        || principal.starts_with(SESSION_PREFIX)
}
