//! The Worker's effects for the core's interpreter (`server::perform`): each one I/O,
//! no decision. The stateless endpoint, a call's progress stream and a 2025-11-25
//! session all perform with these.

use super::creation::Objects;
use super::job;
use super::leave::Leave;
use super::{WorkerHost, new_task_id};
use crate::host::Host;
use crate::http::HttpResponse;
use crate::server::jobs::JobRun;
use crate::server::perform::{Effects, Via};
use crate::server::{Context, Server};
use crate::tasks::record::TaskRecord;
use worker::Env;

/// One request's effects: its server, bindings, request id (`trace`) for the log lines,
/// and how its caller leaving is noticed (a job it left is cancelled).
pub(crate) struct WorkerEffects<'a> {
    /// Its server, bindings and request id, as the ledgers and task objects need them.
    objects: Objects<'a>,
    leave: &'a Leave,
}

impl<'a> WorkerEffects<'a> {
    pub(crate) fn new(
        server: &'a Server,
        env: &'a Env,
        trace: Option<&'a str>,
        leave: &'a Leave,
    ) -> Self {
        WorkerEffects {
            objects: Objects { server, env, trace },
            leave,
        }
    }
}

impl<'a> Effects for WorkerEffects<'a> {
    type Objects = Objects<'a>;

    fn objects(&self) -> &Objects<'a> {
        &self.objects
    }

    fn host(&self) -> Host {
        WorkerHost::host(self.objects.env.clone(), self.objects.server)
    }

    fn new_task_id(&self) -> Result<String, String> {
        new_task_id().map_err(|e| e.to_string())
    }

    async fn detach(
        &self,
        ctx: &Context,
        record: Box<TaskRecord>,
        run: JobRun,
        via: &Via<'_>,
    ) -> HttpResponse {
        job::detach(&self.objects, ctx, record, run, via, self.leave).await
    }

    async fn follow(&self, ctx: &Context, run: JobRun, via: &Via<'_>) -> HttpResponse {
        job::follow(&self.objects, ctx, run, via).await
    }
}
