//! Calls to a principal's ledger (`PrincipalObject`, one per ledger: `auth::anonymous`
//! says which counts a caller), over the adapter's [`Calls`]. Which ledgers a run asks,
//! and in which order, is `server::creation`'s.

use super::{LedgerRequest, Reply};
use crate::auth::anonymous::ledger_name;
use crate::error::McpError;
use crate::tasks::calls::{Call, CallError, Calls, Class};
use crate::tasks::protocol::{ObjectError, ObjectReply};

/// The URL the ledgers are called at (never routed: only the body matters).
pub const LEDGER_URL: &str = "https://principal-object/ledger";

/// Sends one request to the ledger counting `principal`'s work: `Err` is the 429 naming
/// the limit that refuses it, or a -32603 when the ledger cannot be reached.
pub async fn ledger(
    calls: &impl Calls,
    principal: &str,
    request: &LedgerRequest,
) -> Result<(), McpError> {
    let reply = send(calls, principal, request)
        .await
        .map_err(|why| McpError::Internal(format!("quota ledger unavailable: {why}")))?;
    match reply.exceeded {
        Some(exceeded) => Err(exceeded.to_error()),
        None => Ok(()),
    }
}

/// One page of `principal`'s tasks, newest first, from its ledger's index: those before
/// the cursor `before` (or the newest), and the cursor of the next page.
pub async fn task_index(
    calls: &impl Calls,
    principal: &str,
    before: Option<&str>,
) -> Result<(Vec<String>, Option<String>), String> {
    let before = before.map(str::to_owned);
    let reply = send(calls, principal, &LedgerRequest::ListTasks { before }).await?;
    Ok((reply.tasks.unwrap_or_default(), reply.next))
}

/// Sends `request` to the ledger that counts `principal`'s work.
async fn send(
    calls: &impl Calls,
    principal: &str,
    request: &LedgerRequest,
) -> Result<Reply, String> {
    let call = Call {
        class: Class::Principals,
        name: ledger_name(principal),
        url: LEDGER_URL,
        headers: &[],
        body: serde_json::to_string(request).map_err(|e| e.to_string())?,
    };
    let sent = calls.call(call).await.map_err(|e| match e {
        CallError::Unbound(_) => format!(
            "quotas need the {} Durable Object binding (class PrincipalObject, \
             docs/authoring.md), or set QUOTA_TASKS_PER_MINUTE, QUOTA_LIVE_TASKS \
             and QUOTA_LISTEN_STREAMS to unlimited",
            Class::Principals.binding()
        ),
        CallError::Failed(why) => why,
    });
    match ObjectReply::outcome(sent) {
        Ok(reply) => serde_json::from_value(reply).map_err(|e| e.to_string()),
        Err(ObjectError::Refused(error)) => Err(error.message),
        Err(ObjectError::Unreachable(why)) => Err(why),
    }
}
