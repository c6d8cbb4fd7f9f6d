//! The quota Durable Object: the I/O of the core's principal runner
//! ([`crate::objects::principal`]), which loads, plans and writes once. One object per
//! ledger (named by `auth::anonymous::ledger_name`).

use super::bench::{self, PRINCIPAL};
use super::mirror::Mirror;
use super::now_ms;
use super::rpc::{exchange, object_reply, request_body};
use crate::auth::anonymous::ledger_name;
use crate::error::McpError;
use crate::objects::Write;
use crate::objects::principal::{self, LEDGER_KEY, LedgerPlatform};
use crate::quota::{INDEX_PREFIX, LedgerRequest, Reply};
use crate::server::slot::Ledgers;
use crate::tasks::protocol::{ObjectError, ObjectReply};
use worker::{Env, Response, Result, State, web_sys};

/// The Durable Object binding name (wrangler.toml).
pub const PRINCIPALS_BINDING: &str = "PRINCIPALS";
const LEDGER_URL: &str = "https://principal-object/ledger";

/// What the `PrincipalObject` class of `export_worker!` runs.
pub struct PrincipalRunner {
    state: State,
    /// The [`LEDGER_KEY`] row as this instance last read or wrote it (`super::mirror`): a
    /// warm ledger answers without reading it again.
    ledger: Mirror,
}

impl PrincipalRunner {
    pub fn new(state: State, _env: Env) -> Self {
        PrincipalRunner {
            state,
            ledger: Mirror::new(LEDGER_KEY, PRINCIPAL),
        }
    }

    /// One [`LedgerRequest`], answered as every object answers (`principal::serve`).
    pub async fn fetch(&self, req: web_sys::Request) -> Result<web_sys::Response> {
        let body = request_body(&req).await;
        object_reply(&principal::serve(&mut Platform(self), body).await)
    }

    /// The alarm: the object erases itself once everything its ledger holds has expired.
    pub async fn alarm(&self) -> Result<Response> {
        principal::alarm(&mut Platform(self))
            .await
            .map_err(super::rust_error)?;
        Response::empty()
    }
}

/// The object's storage as the runner's platform.
struct Platform<'a>(&'a PrincipalRunner);

impl LedgerPlatform for Platform<'_> {
    async fn ledger(&mut self) -> std::result::Result<Option<String>, String> {
        let storage = self.0.state.storage();
        self.0.ledger.get(&storage).await.map_err(|e| e.to_string())
    }

    async fn index(
        &mut self,
        newest: bool,
        limit: usize,
        before: Option<&str>,
    ) -> std::result::Result<Vec<(String, String)>, String> {
        index_rows(&self.0.state, newest, limit, before)
            .await
            .map_err(|e| e.to_string())
    }

    async fn write(&mut self, write: Write) -> std::result::Result<(), String> {
        let storage = self.0.state.storage();
        self.0
            .ledger
            .write(&storage, write)
            .await
            .map_err(|e| e.to_string())
    }

    fn now_ms(&self) -> u64 {
        now_ms()
    }
}

/// The index's rows (key, value), newest first when `newest`, at most `limit`, only
/// those before the key `before` when given.
async fn index_rows(
    state: &State,
    newest: bool,
    limit: usize,
    before: Option<&str>,
) -> Result<Vec<(String, String)>> {
    let map = super::js_api::storage_list(
        &state.as_raw().storage()?,
        INDEX_PREFIX,
        newest,
        Some(limit),
        before,
    )
    .await?;
    bench::rows_read(PRINCIPAL, map.size() as usize);
    let mut entries = Vec::new();
    for entry in map.entries() {
        let pair: js_sys::Array = entry?.into();
        if let (Some(key), Some(value)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
            entries.push((key, value));
        }
    }
    Ok(entries)
}

/// Sends one request to the ledger counting `principal`'s work: `Err` is the 429 naming
/// the limit that refuses it, or a -32603 when the ledger cannot be reached. (Which
/// ledgers a run asks is `server::creation`'s.)
pub(crate) async fn ledger(
    env: &Env,
    principal: &str,
    request: &LedgerRequest,
) -> std::result::Result<(), McpError> {
    let reply = send(env, principal, request)
        .await
        .map_err(|why| McpError::Internal(format!("quota ledger unavailable: {why}")))?;
    match reply.exceeded {
        Some(exceeded) => Err(exceeded.to_error()),
        None => Ok(()),
    }
}

/// One page of `principal`'s tasks, newest first, from its ledger's index: those before
/// the cursor `before` (or the newest), and the cursor of the next page.
pub(crate) async fn task_index(
    env: &Env,
    principal: &str,
    before: Option<&str>,
) -> std::result::Result<(Vec<String>, Option<String>), String> {
    let before = before.map(str::to_owned);
    let reply = send(env, principal, &LedgerRequest::ListTasks { before }).await?;
    Ok((reply.tasks.unwrap_or_default(), reply.next))
}

/// Sends `request` to the ledger that counts `principal`'s work.
async fn send(
    env: &Env,
    principal: &str,
    request: &LedgerRequest,
) -> std::result::Result<Reply, String> {
    let namespace = env.durable_object(PRINCIPALS_BINDING).map_err(|_| {
        format!(
            "quotas need the {PRINCIPALS_BINDING} Durable Object binding (class PrincipalObject, \
             docs/authoring.md), or set QUOTA_TASKS_PER_MINUTE, QUOTA_LIVE_TASKS \
             and QUOTA_LISTEN_STREAMS to unlimited"
        )
    })?;
    let stub = namespace
        .get_by_name(ledger_name(principal))
        .map_err(|e| e.to_string())?;
    let body = serde_json::to_string(request).map_err(|e| e.to_string())?;
    match ObjectReply::outcome(exchange(stub, LEDGER_URL, &[], body).await) {
        Ok(reply) => serde_json::from_value(reply).map_err(|e| e.to_string()),
        Err(ObjectError::Refused(error)) => Err(error.message),
        Err(ObjectError::Unreachable(why)) => Err(why),
    }
}

/// The ledgers a listen stream's slot is kept in (`server::slot`).
impl Ledgers for Env {
    async fn ledger(
        &self,
        principal: &str,
        request: &LedgerRequest,
    ) -> std::result::Result<(), McpError> {
        ledger(self, principal, request).await
    }
}
