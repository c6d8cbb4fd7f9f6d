//! The Worker's effects for the core's interpreter (`server::perform`): each one I/O,
//! no decision. The stateless endpoint, a call's progress stream and a 2025-11-25
//! session all perform with these.

use super::creation::Objects;
use super::leave::Leave;
use super::watcher::Watcher;
use super::{WorkerHost, log, new_task_id, now_ms};
use crate::host::Host;
use crate::http::HttpResponse;
use crate::server::follower::{Follower, Step};
use crate::server::jobs::JobRun;
use crate::server::perform::{Effects, Via};
use crate::server::wait::{self, Followed, Jobs};
use crate::server::{Context, Server};
use crate::tasks::calls;
use crate::tasks::protocol::{ObjectError, ObjectRequest};
use crate::tasks::record::TaskRecord;
use serde_json::Value;
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
        Jobs::new_task_id(self)
    }

    async fn detach(
        &self,
        ctx: &Context,
        record: Box<TaskRecord>,
        run: JobRun,
        via: &Via<'_>,
    ) -> HttpResponse {
        let (server, objects) = (self.objects.server, &self.objects);
        wait::detach(server, objects, self, ctx, record, run, via).await
    }

    async fn follow(&self, ctx: &Context, run: JobRun, via: &Via<'_>) -> HttpResponse {
        let (server, objects) = (self.objects.server, &self.objects);
        wait::follow(server, objects, self, ctx, &run, via).await
    }
}

/// A job's platform (`server::wait`): its task followed on the task's own push, the watch
/// WebSocket of `subscriptions/listen` (`watcher`), so a wait costs one object request
/// however long it lasts (docs/benchmarks.md, "Jobs"); the caller's leaving (`leave`).
impl Jobs for WorkerEffects<'_> {
    type Watch = Watcher;

    fn watch(&self, job: &str, principal: &str, follower: (Follower, Step)) -> Watcher {
        let Objects { env, trace, .. } = self.objects;
        Watcher::new(env, job, principal, trace, follower)
    }

    fn now_ms(&self) -> u64 {
        now_ms()
    }

    fn new_task_id(&self) -> Result<String, String> {
        new_task_id().map_err(|e| e.to_string())
    }

    async fn left(&self) {
        self.leave.left().await
    }

    async fn abandon(&self, principal: &str, cancel: ObjectRequest) {
        let Objects { server, env, trace } = self.objects;
        let (env, principal) = (env.clone(), principal.to_owned());
        let (trace, settings) = (trace.map(str::to_owned), server.config.log);
        let work = async move {
            let trace = trace.as_deref();
            if let Err(why) = calls::task(&env, &cancel, &principal, trace).await {
                let line = wait::abandon_failed(&why.to_string(), &principal);
                log::print(&line.request_id(trace), &settings);
            }
        };
        self.leave.keep(work).await
    }
}

impl Followed for Watcher {
    async fn next(&mut self) -> Option<Result<Value, ObjectError>> {
        Watcher::next(self).await
    }

    fn now_ms(&self) -> u64 {
        now_ms()
    }
}
