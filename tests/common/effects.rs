//! Effects for the core's interpreter (`server::perform`) that only record what they were
//! asked (tests/perform.rs): the run quota refuses when `over_quota`, an object is
//! unreachable, a listing is empty, a job is detached or followed by name.

use super::{NOW, SID};
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::{Host, fake::FakeHost};
use mcp_tasks_edge::http::HttpResponse;
use mcp_tasks_edge::jsonrpc;
use mcp_tasks_edge::ops::log::Line;
use mcp_tasks_edge::quota::LedgerRequest;
use mcp_tasks_edge::server::Context;
use mcp_tasks_edge::server::creation::{Creating, Reply};
use mcp_tasks_edge::server::jobs::JobRun;
use mcp_tasks_edge::server::my_tasks::Index;
use mcp_tasks_edge::server::perform::{Effects, Via};
use mcp_tasks_edge::tasks::protocol::ObjectRequest;
use mcp_tasks_edge::tasks::record::TaskRecord;
use serde_json::json;
use std::cell::RefCell;

/// Effects that record each call; the run quota refuses when `over_quota`.
#[derive(Default)]
pub struct Recorded {
    pub over_quota: bool,
    pub calls: RefCell<Vec<String>>,
}

impl Recorded {
    fn note(&self, call: String) {
        self.calls.borrow_mut().push(call);
    }
    pub fn calls(&self) -> Vec<String> {
        self.calls.borrow().clone()
    }
}

fn answered(call: &str) -> HttpResponse {
    HttpResponse::json(200, json!({ "answered": call }).to_string().into_bytes())
}

const OVER: McpError = McpError::TooManyRequests {
    limit: "QUOTA_TASKS_PER_MINUTE",
    max: 1,
    retry_after_s: 5,
};

impl Creating for Recorded {
    async fn ledger(&self, principal: &str, request: &LedgerRequest) -> Result<(), McpError> {
        let op = jsonrpc::payload(request)["op"].clone();
        self.note(format!("ledger {principal} {op}"));
        if self.over_quota { Err(OVER) } else { Ok(()) }
    }

    async fn forward(&self, _: &str, request: &ObjectRequest) -> Reply {
        self.note(format!("forward {}", request.task_id()));
        Err("the object is gone".into())
    }

    fn print(&self, _: Line) {}
}

impl Index for Recorded {
    async fn index(
        &self,
        principal: &str,
        _: Option<&str>,
    ) -> Result<(Vec<String>, Option<String>), String> {
        self.note(format!("index {principal}"));
        Ok((Vec::new(), None))
    }
}

impl Effects for Recorded {
    type Objects = Self;
    fn objects(&self) -> &Self {
        self
    }
    fn host(&self) -> Host {
        Host::new(FakeHost::new().at(NOW))
    }

    fn new_task_id(&self) -> Result<String, String> {
        Ok(SID.into())
    }

    async fn detach(
        &self,
        ctx: &Context,
        record: Box<TaskRecord>,
        _: JobRun,
        via: &Via<'_>,
    ) -> HttpResponse {
        let asker = via.asker.is_some();
        let call = format!(
            "detach {} {} asks={} asker={asker}",
            ctx.principal,
            record.tool(),
            via.asks
        );
        self.note(call);
        answered("detach")
    }

    async fn follow(&self, ctx: &Context, run: JobRun, via: &Via<'_>) -> HttpResponse {
        let asker = via.asker.is_some();
        let call = format!(
            "follow {} {} asks={} asker={asker}",
            ctx.principal, run.job, via.asks
        );
        self.note(call);
        answered("follow")
    }
}
