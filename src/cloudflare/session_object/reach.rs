//! `legacy::reach` and `legacy::task_ops` on this object: task objects, the principal's
//! index, the session's storage and GET streams.

use super::{Platform, SessionRunner};
use crate::auth::anonymous::ANY_SESSION;
use crate::cloudflare::creation::Objects;
use crate::error::McpError;
use crate::legacy::Session;
use crate::legacy::object;
use crate::legacy::reach::Reaching;
use crate::legacy::task_ops::TaskOps;
use crate::server::Server;
use crate::server::my_tasks;
use crate::tasks::calls;
use crate::tasks::protocol::ObjectRequest;
use serde_json::Value;

/// How this object reaches tasks for one request.
pub(super) struct Reacher<'a> {
    pub(super) runner: &'a SessionRunner,
    pub(super) server: &'a Server,
}

impl Reaching for Reacher<'_> {
    async fn send(&mut self, request: ObjectRequest, principal: &str) -> Result<Value, McpError> {
        calls::task(&self.runner.env, &request, principal, None)
            .await
            .map_err(McpError::from)
    }

    async fn read_all(&mut self, ids: Vec<String>) -> Vec<(String, Option<Value>)> {
        my_tasks::read(&self.objects(), ids, ANY_SESSION).await
    }

    async fn update(
        &mut self,
        change: &mut dyn FnMut(&mut Session) -> bool,
    ) -> Result<Option<Session>, McpError> {
        let mut platform = Platform {
            runner: self.runner,
            server: self.server,
        };
        let Some(mut session) = object::load(&mut platform)
            .await
            .map_err(McpError::Internal)?
        else {
            return Ok(None);
        };
        if change(&mut session) {
            let stored = object::store(&mut platform, &session, None).await;
            stored.map_err(McpError::Internal)?;
        }
        Ok(Some(session))
    }
}

impl TaskOps for Reacher<'_> {
    async fn page(
        &mut self,
        principal: &str,
        cursor: Option<&str>,
    ) -> Result<(Vec<Value>, Option<String>), McpError> {
        my_tasks::page(&self.objects(), principal, cursor).await
    }

    fn polled(&mut self, task: &Value, streaming: bool) -> Vec<Value> {
        self.runner.polled(task, streaming)
    }
}

impl Reacher<'_> {
    /// The task objects and the principal's index, for this object's requests.
    fn objects(&self) -> Objects<'_> {
        Objects {
            server: self.server,
            env: &self.runner.env,
            trace: None,
        }
    }
}
