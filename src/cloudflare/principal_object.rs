//! The quota Durable Object: the I/O of the core's principal runner
//! ([`crate::objects::principal`]), which loads, plans and writes once. One object per
//! ledger (named by `auth::anonymous::ledger_name`).

use super::bench::{self, PRINCIPAL};
use super::mirror::Mirror;
use super::now_ms;
use super::rpc::{object_reply, request_body};
use crate::error::McpError;
use crate::objects::Write;
use crate::objects::principal::{self, LEDGER_KEY, LedgerPlatform};
use crate::quota::{self, INDEX_PREFIX, LedgerRequest};
use crate::server::slot::Ledgers;
use crate::tasks::calls::Class;
use worker::{Env, Response, Result, State, web_sys};

/// The Durable Object binding name (wrangler.toml).
pub const PRINCIPALS_BINDING: &str = Class::Principals.binding();

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

/// The ledgers a listen stream's slot is kept in (`server::slot`).
impl Ledgers for Env {
    async fn ledger(
        &self,
        principal: &str,
        request: &LedgerRequest,
    ) -> std::result::Result<(), McpError> {
        quota::calls::ledger(self, principal, request).await
    }
}
