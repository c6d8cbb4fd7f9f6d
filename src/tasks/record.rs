//! What a TaskObject stores: the task plus everything needed to resume its tool on any
//! instance (invariant 4: storage is the source of truth).

use super::machine::{self, Event, Illegal};
use super::task::{Task, TaskStatus};
use crate::mcp::meta::ClientCapabilities;
use crate::time::iso8601;
use crate::tools::ToolCall;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    pub task_id: String,
    /// The principal that created the task; every other principal gets "not found".
    pub owner: String,
    pub tool: String,
    pub arguments: Map<String, Value>,
    /// The creating request's client capabilities: later input requests are gated on them.
    pub capabilities: Map<String, Value>,
    #[serde(flatten)]
    pub status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    pub created_at_ms: u64,
    pub last_updated_at_ms: u64,
    /// `None` is unlimited.
    pub ttl_ms: Option<u64>,
    pub poll_interval_ms: u64,
    /// The tool's last checkpoint (`Null` before the first `Continue`).
    #[serde(default)]
    pub checkpoint: Value,
    /// Answers so far, keyed by the tool's own keys (MRTR answers carried in, plus task rounds).
    #[serde(default)]
    pub answers: Map<String, Value>,
    /// Input rounds so far; task input keys are `{toolKey}#{round}`, unique for the task's life.
    #[serde(default)]
    pub round: u32,
    /// When the next step is due (only while `working`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_step_at_ms: Option<u64>,
    /// Set while a step runs. Finding it set at the next alarm means the step crashed the
    /// instance (a wasm panic), so the task fails instead of crashing forever.
    #[serde(default)]
    pub step_running: bool,
}

impl TaskRecord {
    /// When the task may be discarded, if ever.
    pub fn expires_at_ms(&self) -> Option<u64> {
        self.ttl_ms
            .map(|ttl| self.created_at_ms.saturating_add(ttl))
    }

    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms().is_some_and(|at| now_ms >= at)
    }

    /// The wire view (`DetailedTask`).
    pub fn to_task(&self) -> Task {
        Task {
            task_id: self.task_id.clone(),
            status: self.status.clone(),
            status_message: self.status_message.clone(),
            created_at: iso8601(self.created_at_ms),
            last_updated_at: iso8601(self.last_updated_at_ms),
            ttl_ms: self.ttl_ms,
            poll_interval_ms: Some(self.poll_interval_ms),
        }
    }

    /// Applies a state-machine event and stamps the update time.
    pub fn apply(&mut self, event: Event, now_ms: u64) -> Result<(), Illegal> {
        self.status = machine::apply(&self.status, event)?;
        self.last_updated_at_ms = now_ms.max(self.last_updated_at_ms);
        if self.status.is_terminal() {
            self.next_step_at_ms = None;
        }
        Ok(())
    }

    /// When the object's single alarm should next fire: the next step or the expiry,
    /// whichever is first.
    pub fn next_alarm_ms(&self) -> Option<u64> {
        let step = match self.status {
            TaskStatus::Working => self.next_step_at_ms,
            _ => None,
        };
        match (step, self.expires_at_ms()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities(self.capabilities.clone())
    }

    /// The input a step of this task sees.
    pub fn call<'a>(&'a self, capabilities: &'a ClientCapabilities, now_ms: u64) -> ToolCall<'a> {
        ToolCall {
            arguments: &self.arguments,
            answers: &self.answers,
            checkpoint: &self.checkpoint,
            capabilities,
            round: self.round,
            now_ms,
        }
    }
}

/// The task-unique wire key for a tool's input key in round `round`.
pub fn wire_key(tool_key: &str, round: u32) -> String {
    format!("{tool_key}#{round}")
}

/// The tool's key inside a wire key minted by [`wire_key`].
pub fn tool_key(wire_key: &str) -> &str {
    wire_key.rsplit_once('#').map_or(wire_key, |(k, _)| k)
}
