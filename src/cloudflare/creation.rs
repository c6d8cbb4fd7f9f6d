//! The Worker's ledgers, task index and task objects, as running tools, creating tasks
//! and listing them need them (`server::creation` and `server::my_tasks` decide what is
//! asked of which, and in which order), and the release of a task that ended.

use super::log;
use crate::error::McpError;
use crate::ops::log::{Line, LogSettings, warning};
use crate::quota::{self, LedgerRequest};
use crate::server::Server;
use crate::server::creation::{Creating, Reply};
use crate::server::my_tasks::Index;
use crate::tasks::calls;
use crate::tasks::protocol::ObjectRequest;
use worker::Env;

/// One request's ledgers and task objects (`trace`: its id, in the log lines).
#[derive(Clone, Copy)]
pub(crate) struct Objects<'a> {
    pub(crate) server: &'a Server,
    pub(crate) env: &'a Env,
    pub(crate) trace: Option<&'a str>,
}

impl Index for Objects<'_> {
    async fn index(
        &self,
        principal: &str,
        before: Option<&str>,
    ) -> Result<(Vec<String>, Option<String>), String> {
        quota::calls::task_index(self.env, principal, before).await
    }
}

impl Creating for Objects<'_> {
    async fn ledger(&self, principal: &str, request: &LedgerRequest) -> Result<(), McpError> {
        quota::calls::ledger(self.env, principal, request).await
    }

    async fn forward(&self, principal: &str, request: &ObjectRequest) -> Reply {
        calls::task_call(self.env, request, principal, self.trace).await
    }

    fn print(&self, line: Line) {
        log::print(&line.request_id(self.trace), &self.server.config.log);
    }
}

/// Tells a task's owner's ledger that the task ended (best effort: the entry's deadline,
/// the task's expiry, is the fallback).
pub(crate) async fn task_ended(env: &Env, owner: &str, task_id: &str, settings: &LogSettings) {
    let release = LedgerRequest::ReleaseTask {
        task_id: task_id.to_owned(),
    };
    if let Err(why) = quota::calls::ledger(env, owner, &release).await {
        let line = warning(&format!("could not release the task from its quota: {why}"))
            .principal(owner)
            .field("taskId", task_id);
        log::print(&line, settings);
    }
}
