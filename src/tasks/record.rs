//! What a TaskObject keeps: the task plus everything needed to resume its tool on any
//! instance (invariant 4: storage is the source of truth). How it is laid out in
//! storage is [`super::layout`]'s business.

use super::machine::{self, Event, Illegal};
use super::task::{RESULT_COMPLETE, Task, TaskStatus};
use crate::mcp::meta::ClientCapabilities;
use crate::time::iso8601;
use crate::tools::{Amount, Call, Progress};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod transitions;
mod wire;

/// A step in flight: stored before the step starts (docs/architecture.md, "Executing steps").
/// Its outcome is applied only if the lease is still the current one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lease {
    /// 1 for the first attempt at the current step.
    pub attempt: u32,
    /// After this, an attempt that has not reported is presumed lost.
    pub deadline_ms: u64,
}

/// Written by serde's derive (the status flattened in); read by `wire`, which takes a
/// member's absence as its default (`checkpoint`, `answers`, `round`, `version`, ...).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    task_id: String,
    /// The principal that created the task; every other principal gets "not found".
    owner: String,
    tool: String,
    /// The tool's title when the task was created, shown to the owner beside its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    arguments: Map<String, Value>,
    /// The creating request's client capabilities: later input requests are gated on them.
    capabilities: Map<String, Value>,
    /// Changed only by [`TaskRecord::apply`] (the state machine); read with
    /// [`TaskRecord::status`].
    #[serde(flatten)]
    status: TaskStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    status_message: Option<String>,
    /// The last progress in numbers a step reported ([`Amount`]): its `progress`, and its
    /// `total` when it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    progress: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<f64>,
    created_at_ms: u64,
    last_updated_at_ms: u64,
    /// `None` is unlimited.
    ttl_ms: Option<u64>,
    poll_interval_ms: u64,
    /// The tool's last checkpoint (`Null` before the first `Continue`).
    checkpoint: Value,
    /// Answers so far, keyed by the tool's own keys (MRTR answers carried in, plus task rounds).
    answers: Map<String, Value>,
    /// Input rounds so far; task input keys are `{toolKey}#{round}`, unique for the task's life.
    round: u32,
    /// When the next step is due (only while `working`).
    #[serde(skip_serializing_if = "Option::is_none")]
    next_step_at_ms: Option<u64>,
    /// The step in flight, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    lease: Option<Lease>,
    /// Counts the writes of this record (1 for the first; 0 before it is stored). Pushed
    /// notifications carry it so a watcher never takes an older state for a newer one
    /// (see [`super::watch`]). Records written before it existed read as 0.
    version: u64,
}

/// What a new task starts from (see [`TaskRecord::new`]).
#[derive(Debug, Clone, PartialEq)]
pub struct NewTask {
    pub tool: String,
    /// The tool's title, if it has one.
    pub title: Option<String>,
    /// The creating principal (the adapter may give an anonymous caller's task its own).
    pub owner: String,
    pub arguments: Map<String, Value>,
    /// The creating request's client capabilities.
    pub capabilities: Map<String, Value>,
    /// Where the first step in the task object resumes (`Null`: from the start).
    pub checkpoint: Value,
    /// Answers carried in from MRTR rounds before the task existed.
    pub answers: Map<String, Value>,
    pub status_message: Option<String>,
    /// Progress in numbers the steps before the task reported.
    pub amount: Option<Amount>,
    pub now_ms: u64,
    /// `None` is unlimited.
    pub ttl_ms: Option<u64>,
    pub poll_interval_ms: u64,
    /// When the first step in the object is due.
    pub next_step_at_ms: u64,
}

/// The `_meta` key of what this server says of a task beyond the spec's fields
/// ([`TaskRecord::to_task`]).
pub const TASK_FACTS_KEY: &str = "mcp-tasks-edge/task";

/// This server's facts in a task as the wire carries it (`_meta[TASK_FACTS_KEY]`), if any:
/// what its readers (my tasks' filter, a job's follower) look up.
pub fn task_facts(task: &Value) -> Option<&Value> {
    task.get("_meta")?.get(TASK_FACTS_KEY)
}

/// While a step runs, the alarm fires this often to check on it: a crashed attempt is
/// noticed within this time (the lease deadline bounds a step that merely hangs).
pub const LEASE_CHECK_MS: u64 = 5_000;

/// How long a non-terminal task with nothing else scheduled waits before its alarm
/// checks on it again (so every non-terminal task always has an alarm).
pub const IDLE_ALARM_MS: u64 = 24 * 3_600_000;

impl TaskRecord {
    /// A new `working` task (its id is drawn by the adapter).
    pub fn new(new: NewTask) -> TaskRecord {
        TaskRecord {
            task_id: String::new(),
            owner: new.owner,
            tool: new.tool,
            title: new.title,
            arguments: new.arguments,
            capabilities: new.capabilities,
            status: TaskStatus::Working,
            status_message: new.status_message,
            progress: new.amount.map(|a| a.progress),
            total: new.amount.and_then(|a| a.total),
            created_at_ms: new.now_ms,
            last_updated_at_ms: new.now_ms,
            ttl_ms: new.ttl_ms,
            poll_interval_ms: new.poll_interval_ms,
            checkpoint: new.checkpoint,
            answers: new.answers,
            round: 0,
            next_step_at_ms: Some(new.next_step_at_ms),
            lease: None,
            version: 0,
        }
    }

    /// This new task, asking `requests` before its first step runs again (the step that
    /// made the call asked them): `input_required` from its creation.
    pub fn asking(mut self, requests: Map<String, Value>, now_ms: u64) -> Result<Self, Illegal> {
        self.need_input(requests, None, now_ms)?;
        Ok(self)
    }

    /// The task's status (and its payload).
    pub fn status(&self) -> &TaskStatus {
        &self.status
    }

    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// The principal that created the task.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The tool (or prompt) the task runs.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    pub fn arguments(&self) -> &Map<String, Value> {
        &self.arguments
    }

    pub fn status_message(&self) -> Option<&str> {
        self.status_message.as_deref()
    }

    pub fn created_at_ms(&self) -> u64 {
        self.created_at_ms
    }

    pub fn last_updated_at_ms(&self) -> u64 {
        self.last_updated_at_ms
    }

    /// `None` is unlimited.
    pub fn ttl_ms(&self) -> Option<u64> {
        self.ttl_ms
    }

    pub fn poll_interval_ms(&self) -> u64 {
        self.poll_interval_ms
    }

    /// The tool's last checkpoint (`Null` before the first `Continue`).
    pub fn checkpoint(&self) -> &Value {
        &self.checkpoint
    }

    /// Answers so far, keyed by the tool's own keys.
    pub fn answers(&self) -> &Map<String, Value> {
        &self.answers
    }

    /// Input rounds so far.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// When the next step is due (only while `working`).
    pub fn next_step_at_ms(&self) -> Option<u64> {
        self.next_step_at_ms
    }

    /// The step in flight, if any.
    pub fn lease(&self) -> Option<Lease> {
        self.lease
    }

    /// The number of this record's write (0 before it is stored).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Gives a new task its id, drawn by the adapter before the task is stored.
    pub fn assign_id(&mut self, task_id: String) {
        self.task_id = task_id;
    }

    /// Gives a new task its owner, before it is stored (the adapter may give an anonymous
    /// caller's task a principal of its own).
    pub fn assign_owner(&mut self, owner: String) {
        self.owner = owner;
    }

    /// When the task may be discarded, if ever.
    pub fn expires_at_ms(&self) -> Option<u64> {
        self.ttl_ms
            .map(|ttl| self.created_at_ms.saturating_add(ttl))
    }

    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms().is_some_and(|at| now_ms >= at)
    }

    /// The wire view (`DetailedTask`) as 2026-07-28 readers get it (`tasks/get`,
    /// `notifications/tasks`): a completed task's `CallToolResult` carries
    /// `resultType: "complete"`, which every 2026-07-28 `Result` must (schema `Result`),
    /// and which the official Tasks client validates.
    ///
    /// Stored results carry no `resultType` (storage is era-neutral, and records written
    /// before this rule read the same); it is added here, on a result the read has
    /// already parsed, so serving costs one map insert. 2025-11-25 readers never see it
    /// (`legacy::task_result`, `legacy::legacy_task`).
    pub fn to_task(&self) -> Task {
        let mut status = self.status.clone();
        if let TaskStatus::Completed {
            result: Value::Object(result),
        } = &mut status
        {
            result.insert("resultType".into(), RESULT_COMPLETE.into());
        }
        Task {
            task_id: self.task_id.clone(),
            status,
            status_message: self.status_message.clone(),
            created_at: iso8601(self.created_at_ms),
            last_updated_at: iso8601(self.last_updated_at_ms),
            ttl_ms: self.ttl_ms,
            poll_interval_ms: Some(self.poll_interval_ms),
            meta: Some(self.facts()),
        }
    }

    /// What this server says of the task beyond the spec's fields, for its owner: the
    /// tool that made it (`Task` has no such field) and the progress in numbers, under
    /// this server's own key, `_meta["mcp-tasks-edge/task"]`:
    /// `{"tool":"process_batch","title":"Process a batch","progress":4,"total":15}`.
    fn facts(&self) -> Map<String, Value> {
        let mut facts = Map::new();
        facts.insert("tool".into(), self.tool.clone().into());
        if let Some(title) = &self.title {
            facts.insert("title".into(), title.clone().into());
        }
        if let Some(progress) = self.progress {
            facts.insert("progress".into(), progress.into());
        }
        if let Some(total) = self.total {
            facts.insert("total".into(), total.into());
        }
        let mut meta = Map::new();
        meta.insert(TASK_FACTS_KEY.into(), Value::Object(facts));
        meta
    }

    /// Applies a state-machine event and stamps the update time. Every change of status
    /// goes through here, by the named transitions below.
    fn apply(&mut self, event: Event, now_ms: u64) -> Result<(), Illegal> {
        self.status = machine::apply(&self.status, event)?;
        self.last_updated_at_ms = now_ms.max(self.last_updated_at_ms);
        if self.status.is_terminal() {
            self.next_step_at_ms = None;
            self.lease = None;
        }
        Ok(())
    }

    /// When the object's single alarm should next fire. A terminal task: its expiry, if
    /// any. A non-terminal one always has an alarm: the lease deadline while a step is in
    /// flight, else the next step, else a periodic check; never later than the expiry.
    pub fn next_alarm_ms(&self, now_ms: u64) -> Option<u64> {
        if self.status.is_terminal() {
            return self.expires_at_ms();
        }
        let due = match (&self.status, self.lease) {
            (_, Some(lease)) => lease.deadline_ms.min(now_ms.saturating_add(LEASE_CHECK_MS)),
            (TaskStatus::Working, None) => self.next_step_at_ms.unwrap_or(now_ms),
            _ => now_ms.saturating_add(IDLE_ALARM_MS),
        };
        Some(match self.expires_at_ms() {
            Some(expiry) => due.min(expiry),
            None => due,
        })
    }

    pub fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities(self.capabilities.clone())
    }

    /// The input a step of this task sees.
    pub fn call(&self, now_ms: u64, attempt: u32) -> Call {
        Call {
            args: self.arguments.clone(),
            arguments: self.arguments.clone(),
            answers: self.answers.clone(),
            checkpoint: self.checkpoint.clone(),
            capabilities: self.capabilities(),
            round: self.round,
            now_ms,
            task_id: Some(self.task_id.clone()),
            attempt,
            principal: Some(self.owner.clone()),
            progress: Progress::default(),
        }
    }
}

/// Whether a step's result is legal: an object with a `content` array (a tool's
/// `CallToolResult`) or a `messages` array (a prompt's `GetPromptResult`), no larger
/// than `max_bytes` serialized. `Err` says what is wrong.
pub fn check_result(result: &Value, is_tool: bool, max_bytes: Option<usize>) -> Result<(), String> {
    let Some(object) = result.as_object() else {
        return Err("returned an illegal step: a result that is not a JSON object".into());
    };
    if is_tool && !object.get("content").is_some_and(Value::is_array) {
        return Err("returned an illegal step: a result without a \"content\" array".into());
    }
    if !is_tool && !object.get("messages").is_some_and(Value::is_array) {
        return Err(
            "returned an illegal step: a prompt result without a \"messages\" array".into(),
        );
    }
    if let Some(max) = max_bytes {
        let size = serialized_len(result);
        if size > max {
            return Err(format!(
                "returned a result of {size} bytes, more than this server keeps (MAX_RESULT_BYTES = {max})"
            ));
        }
    }
    Ok(())
}

/// The length of `value` serialized as JSON, without keeping the bytes.
pub fn serialized_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to an infallible writer cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The task-unique wire key for a tool's input key in round `round`.
pub fn wire_key(tool_key: &str, round: u32) -> String {
    format!("{tool_key}#{round}")
}

/// The tool's key inside a wire key minted by [`wire_key`].
pub fn tool_key(wire_key: &str) -> &str {
    wire_key.rsplit_once('#').map_or(wire_key, |(k, _)| k)
}
