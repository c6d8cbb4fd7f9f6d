//! Task objects that answer a 2025-11-25 session as the real ones do
//! (`auth::anonymous::reaches` decides who sees what), and the session kept in a value:
//! the platform of `legacy::reach` and `legacy::task_ops` in tests/legacy_reach.rs and
//! tests/legacy_task_ops.rs.

use super::{NOW, server};
use mcp_tasks_edge::auth::anonymous::{ANY_SESSION, reaches};
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::legacy::reach::Reaching;
use mcp_tasks_edge::legacy::task_ops::TaskOps;
use mcp_tasks_edge::legacy::{Session, initialize};
use mcp_tasks_edge::tasks::protocol::ObjectRequest;
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub const MINE: &str = "00000000000000000000000000000001";
pub const THEIRS: &str = "00000000000000000000000000000002";
pub const KEYED: &str = "00000000000000000000000000000003";

/// Task objects by id (owner, task) and the session as stored; what was sent, in order.
pub struct Objects {
    pub tasks: BTreeMap<String, (String, Value)>,
    pub stored: Session,
    pub sent: Vec<String>,
    /// Each page of the principal's index asked for (principal, cursor).
    pub pages: Vec<(String, Option<String>)>,
    /// The questions a poll's own response carries.
    pub questions: Vec<Value>,
    /// Every write of the session fails.
    pub storage_fails: bool,
}

pub fn not_found() -> McpError {
    McpError::Wire(McpError::TaskNotFound.to_wire())
}

impl Reaching for Objects {
    async fn send(&mut self, request: ObjectRequest, principal: &str) -> Result<Value, McpError> {
        let (name, id) = match &request {
            ObjectRequest::Get { task_id } => ("get".to_owned(), task_id),
            ObjectRequest::LegacyCancel { task_id } => ("cancel".to_owned(), task_id),
            ObjectRequest::Update {
                task_id,
                input_responses,
            } => {
                let keys = input_responses.keys().cloned().collect::<Vec<_>>();
                (format!("update {}", keys.join(",")), task_id)
            }
            other => panic!("a session sends no {other:?}"),
        };
        let who = if principal == ANY_SESSION {
            "any"
        } else {
            "own"
        };
        self.sent.push(format!("{name} as {who}"));
        let Some((owner, task)) = self.tasks.get_mut(id.as_str()) else {
            return Err(not_found());
        };
        if !reaches(principal, owner) {
            return Err(not_found());
        }
        if name == "cancel" {
            task["status"] = json!("cancelled");
        }
        Ok(task.clone())
    }

    async fn read_all(&mut self, ids: Vec<String>) -> Vec<(String, Option<Value>)> {
        self.sent.push(format!("read {} as any", ids.len()));
        ids.into_iter()
            .map(|id| {
                let task = self
                    .tasks
                    .get(&id)
                    .filter(|(owner, _)| reaches(ANY_SESSION, owner))
                    .map(|(_, task)| task.clone());
                (id, task)
            })
            .collect()
    }

    async fn update(
        &mut self,
        change: &mut dyn FnMut(&mut Session) -> bool,
    ) -> Result<Option<Session>, McpError> {
        let mut session = self.stored.clone();
        if change(&mut session) {
            self.sent.push("store".into());
            if self.storage_fails {
                return Err(McpError::Internal("the session's storage failed".into()));
            }
            self.stored = session.clone();
        }
        Ok(Some(session))
    }
}

pub fn session(caller: &str, id: &str) -> Session {
    let params = json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } });
    let (_, session) = initialize(&server(), params.as_object().unwrap(), id, caller, NOW).unwrap();
    session
}

pub fn task(id: &str, created: &str) -> Value {
    json!({ "taskId": id, "status": "working", "createdAt": created })
}

/// Session B (anonymous) beside: its own task, session A's (anonymous) and a keyed caller's.
pub fn world() -> Objects {
    let a = session("anonymous", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    let b = session("anonymous", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    let mut tasks = BTreeMap::new();
    tasks.insert(
        MINE.into(),
        (b.principal.clone(), task(MINE, "2025-11-25T10:30:03Z")),
    );
    tasks.insert(
        THEIRS.into(),
        (a.principal.clone(), task(THEIRS, "2025-11-25T10:30:02Z")),
    );
    tasks.insert(
        KEYED.into(),
        ("key:alice".into(), task(KEYED, "2025-11-25T10:30:01Z")),
    );
    Objects {
        tasks,
        stored: b,
        sent: Vec::new(),
        pages: Vec::new(),
        questions: Vec::new(),
        storage_fails: false,
    }
}

impl TaskOps for Objects {
    async fn page(
        &mut self,
        principal: &str,
        cursor: Option<&str>,
    ) -> Result<(Vec<Value>, Option<String>), McpError> {
        self.pages
            .push((principal.to_owned(), cursor.map(str::to_owned)));
        let own = self.tasks.values().filter(|(owner, _)| owner == principal);
        Ok((own.map(|(_, task)| task.clone()).collect(), None))
    }

    fn polled(&mut self, _: &Value, _: bool) -> Vec<Value> {
        self.questions.clone()
    }
}
