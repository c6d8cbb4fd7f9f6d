//! How a session reaches a task named by its id, as `legacy::Session::reach` decides: an
//! anonymous session reaches another anonymous session's task as `ANY_SESSION`, records
//! it in the session, and lists it from then on (2025-11-25 tasks "Task Listing" 4: what
//! `tasks/get` can read, `tasks/list` lists).

use super::tasks::object;
use super::{Platform, SessionRunner};
use crate::auth::anonymous::ANY_SESSION;
use crate::cloudflare::my_tasks;
use crate::error::McpError;
use crate::legacy::object::SessionPlatform;
use crate::legacy::{Reach, Session};
use crate::server::Server;
use crate::tasks::protocol::ObjectRequest;
use serde_json::Value;

fn is_not_found(outcome: &Result<Value, McpError>) -> bool {
    matches!(outcome, Err(McpError::Wire(e)) if *e == McpError::TaskNotFound.to_wire())
}

impl SessionRunner {
    /// Sends `request` to its task as `session` reaches it: the task object's answer, and
    /// the principal that reached it (for what follows, e.g. `tasks/result`'s answers).
    pub(super) async fn reaching(
        &self,
        server: &Server,
        session: &Session,
        request: ObjectRequest,
    ) -> (Result<Value, McpError>, String) {
        let task_id = request.task_id().to_owned();
        let own = match session.reach(&task_id) {
            Reach::As(principal) => {
                let outcome = object(&self.env, request, principal).await;
                if principal == ANY_SESSION && is_not_found(&outcome) {
                    // It ended for good: it leaves the session's list.
                    self.update_reached(server, &mut |s| s.reached.remove(&task_id))
                        .await;
                }
                return (outcome, principal.to_owned());
            }
            Reach::OwnThenAny(own) => own,
        };
        let first = object(&self.env, request.clone(), own).await;
        if !is_not_found(&first) {
            return (first, own.to_owned());
        }
        // Another session's, perhaps: read it as any session's (nothing changes yet),
        // record it, and only then send what may change it.
        let probe = ObjectRequest::Get {
            task_id: task_id.clone(),
        };
        let read = object(&self.env, probe, ANY_SESSION).await;
        if read.is_err() {
            return (first, own.to_owned());
        }
        let recorded = self
            .update_reached(server, &mut |s| s.record_reached(&task_id))
            .await
            .is_some_and(|s| s.reached.contains(&task_id));
        if !recorded {
            // Not recorded, so not listed: it stays unreachable (the bound is full).
            return (first, own.to_owned());
        }
        let outcome = match request {
            ObjectRequest::Get { .. } => read,
            request => object(&self.env, request, ANY_SESSION).await,
        };
        (outcome, ANY_SESSION.to_owned())
    }

    /// The tasks this session reached that it can still read, for the first page of its
    /// `tasks/list`; those it cannot are forgotten (reaching one again records it again).
    pub(super) async fn reached_tasks(&self, server: &Server, session: &Session) -> Vec<Value> {
        if session.reached.is_empty() {
            return Vec::new();
        }
        let ids = session.reached.iter().cloned().collect();
        let mut tasks = Vec::new();
        let mut gone = Vec::new();
        for (task_id, task) in my_tasks::read(&self.env, ids, ANY_SESSION).await {
            match task {
                Some(task) => tasks.push(task),
                None => gone.push(task_id),
            }
        }
        if !gone.is_empty() {
            self.update_reached(server, &mut |s| {
                let before = s.reached.len();
                for task_id in &gone {
                    s.reached.remove(task_id);
                }
                s.reached.len() != before
            })
            .await;
        }
        tasks
    }

    /// Changes the stored session's reached tasks with `change` (read and written back
    /// with nothing between, so no other request's change is lost; written only if
    /// `change` says it changed them): the session as stored, `None` if it could not be
    /// read or written. (`dyn`: one copy of this future for every change.)
    async fn update_reached(
        &self,
        server: &Server,
        change: &mut dyn FnMut(&mut Session) -> bool,
    ) -> Option<Session> {
        let mut platform = Platform {
            runner: self,
            server,
        };
        let mut session = platform.load().await.ok()??;
        if change(&mut session) {
            platform.store(&session).await.ok()?;
        }
        Some(session)
    }
}
