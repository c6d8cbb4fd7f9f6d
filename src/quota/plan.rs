//! What the PrincipalObject does for one request, decided here so the object only loads,
//! applies and stores (as `tasks::object` does for tasks).
//!
//! ```text
//! load the ledger value ── (ListTasks: also one page of index keys, newest first)
//!   └─▶ plan(): the reply; the ledger to store if it changed; index keys to put/delete;
//!                how many of the oldest index keys to trim
//!         └─▶ (trim > 0: read that many oldest keys ─▶ Plan::trimmed())
//!               └─▶ one delete + one put; reply
//! ```

use super::index::{IndexEntry, LIST_PAGE, index_value, read_page};
use super::{Exceeded, Ledger, LedgerRequest};
use serde::{Deserialize, Serialize};

/// The ledger's answer on the wire.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reply {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::jsonrpc::top::nested"
    )]
    pub exceeded: Option<Exceeded>,
    /// For [`LedgerRequest::ListTasks`]: one page of indexed task ids, newest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Vec<String>>,
    /// For [`LedgerRequest::ListTasks`]: the cursor of the next page, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// The effects of one request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    pub reply: Reply,
    /// The ledger value to store (serialized), when it changed.
    pub ledger: Option<String>,
    /// Index entries to write: (key, value).
    pub put: Vec<(String, String)>,
    /// Index keys to delete.
    pub delete: Vec<String>,
    /// How many of the oldest index keys to read next and hand to [`Plan::trimmed`].
    pub trim: usize,
    /// Set the object's alarm to this: when everything the ledger holds has expired
    /// (see [`expired`]). `None`: leave it.
    pub alarm: Option<u64>,
    /// The ledger as loaded and after the request (to recount what [`Plan::trimmed`]
    /// finds, and to know whether to store it).
    before: Ledger,
    after: Ledger,
}

/// Which index entries the object must read before [`plan`], newest first: those before
/// the key (all when `None`), at most this many. `None`: no listing.
pub fn listing(request: &LedgerRequest) -> Option<(Option<&str>, usize)> {
    match request {
        LedgerRequest::ListTasks { before } => Some((before.as_deref(), LIST_PAGE + 1)),
        _ => None,
    }
}

/// Plans `request` at `now_ms` against the stored ledger value (`None`: a new ledger) and,
/// for [`listing`] requests, the index entries it asked for. A stored value that
/// does not decode is an error: quotas are never silently reset.
pub fn plan(
    stored: Option<&str>,
    request: &LedgerRequest,
    now_ms: u64,
    listed: Option<Vec<(String, String)>>,
) -> Result<Plan, String> {
    let before: Ledger = match stored {
        None => Ledger::default(),
        Some(text) => crate::jsonrpc::read(text.as_bytes())
            .map_err(|e| format!("the quota ledger does not decode ({e}): {text:.200}"))?,
    };
    let mut ledger = before.clone();
    let mut entries = ledger.take_legacy_index();
    let outcome = ledger.apply(request, now_ms);
    let mut plan = Plan::default();
    match outcome {
        Ok(Some(entry)) => entries.push(entry),
        Ok(None) => {}
        Err(exceeded) => plan.reply.exceeded = Some(exceeded),
    }
    if let Some(listed) = listed {
        let (live, expired, next) = read_page(listed, now_ms);
        ledger.indexed = ledger.indexed.saturating_sub(expired.len() as u64);
        plan.reply.tasks = Some(live);
        plan.reply.next = next;
        plan.delete = expired;
    }
    plan.trim = ledger.trim_index() as usize;
    plan.put = entries.iter().map(put).collect();
    let latest = ledger.latest_ms();
    if latest > before.latest_ms() && latest != u64::MAX {
        plan.alarm = Some(latest);
    }
    plan.after = ledger;
    plan.before = before;
    plan.ledger = plan.stored_ledger()?;
    Ok(plan)
}

fn put(entry: &IndexEntry) -> (String, String) {
    (entry.key.clone(), index_value(entry.until_ms))
}

impl Plan {
    /// Takes the oldest index entries read for [`Plan::trim`]: they are deleted, except
    /// those already deleted as expired, which were uncounted once already.
    pub fn trimmed(&mut self, oldest: Vec<(String, String)>) -> Result<(), String> {
        for (key, _) in oldest {
            if self.delete.contains(&key) {
                self.after.indexed += 1;
            } else {
                self.delete.push(key);
            }
        }
        self.trim = 0;
        self.ledger = self.stored_ledger()?;
        Ok(())
    }

    fn stored_ledger(&self) -> Result<Option<String>, String> {
        if self.after == self.before {
            return Ok(None);
        }
        serde_json::to_string(&self.after)
            .map(Some)
            .map_err(|e| e.to_string())
    }
}

/// The ledger object's alarm at `now_ms`: `None` when everything it holds has expired
/// (delete it all: an abandoned principal, such as an ended anonymous session, leaves
/// nothing behind), else when to look again.
pub fn expired(stored: Option<&str>, now_ms: u64) -> Result<Option<u64>, String> {
    let Some(text) = stored else {
        return Ok(None);
    };
    let ledger: Ledger = crate::jsonrpc::read(text.as_bytes())
        .map_err(|e| format!("the quota ledger does not decode ({e}): {text:.200}"))?;
    let latest = ledger.latest_ms();
    Ok((now_ms < latest).then_some(latest))
}
