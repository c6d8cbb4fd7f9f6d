//! The TaskObject's behaviour, as pure functions: given what storage holds, a request (or
//! an alarm) and the time, decide the reply and the storage effects. The Durable Object
//! adapter only loads, calls these, runs steps, and applies the [`Effects`] (invariants
//! 3 and 4).
//!
//! Executing steps (the alarm, a step's outcome) is [`super::execution`]'s part.

use super::layout::Dirty;
use super::machine::Illegal;
use super::protocol::{ObjectReply, ObjectRequest};
use super::record::{TaskRecord, tool_key};
use super::task::{RESULT_COMPLETE, RESULT_TASK, TaskStatus};
use crate::auth::anonymous;
use crate::error::McpError;
use crate::jsonrpc::OneEntry;
use crate::mcp::input;
use serde_json::{Map, Value};

/// What the adapter must do to storage, in one transaction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Effects {
    /// Write this record (its hot part, plus the large parts named in `dirty`).
    pub store: Option<TaskRecord>,
    pub dirty: Dirty,
    /// Erase everything (the task expired).
    pub delete_all: bool,
    /// Set the alarm to this absolute time, or clear it (`Some(None)`); `None`: leave it.
    pub alarm: Option<Option<u64>>,
    /// The task was just cancelled: run the tool's cancel hook (best effort).
    pub cancel_hook: bool,
}

impl Effects {
    /// The task these effects end, if any: `(owner, task_id)` when the task becomes
    /// terminal now (it was not before) or is erased. The TaskObject then tells the
    /// owner's quota ledger (`crate::quota`), which forgets the task idempotently.
    pub fn ended<'a>(&'a self, before: Option<&'a TaskRecord>) -> Option<(&'a str, &'a str)> {
        if self.delete_all {
            return before.map(|r| (r.owner(), r.task_id()));
        }
        let after = self.store.as_ref()?;
        let was_terminal = before.is_some_and(|r| r.status().is_terminal());
        (after.status().is_terminal() && !was_terminal).then_some((after.owner(), after.task_id()))
    }

    pub(super) fn store(record: TaskRecord, dirty: Dirty, now_ms: u64) -> Self {
        Effects {
            alarm: Some(record.next_alarm_ms(now_ms)),
            store: Some(record),
            dirty,
            ..Effects::default()
        }
    }

    pub(super) fn alarm_at(at: Option<u64>) -> Self {
        Effects {
            alarm: Some(at),
            ..Effects::default()
        }
    }
}

/// The status message of a task its owner cancelled.
pub const CANCELLED_BY_CLIENT: &str = "Cancelled by the client";
/// The status message of a task an operator cancelled (`ops::admin`).
pub const CANCELLED_BY_OPERATOR: &str = "Cancelled by an operator";

fn empty_ack() -> ObjectReply {
    ObjectReply::Result(crate::jsonrpc::payload(&OneEntry(
        "resultType",
        RESULT_COMPLETE,
    )))
}

fn error(e: McpError) -> ObjectReply {
    ObjectReply::Error(e.to_wire())
}

fn refused(illegal: Illegal) -> ObjectReply {
    error(McpError::Internal(format!(
        "task state machine refused: {illegal:?}"
    )))
}

/// The record `principal` may see, or "not found" (unknown, expired, or someone else's:
/// one answer for all three so ids leak nothing; ext-tasks "Security Considerations").
/// Someone else's is any other owner's, but for an anonymous session's task reached as
/// [`anonymous::ANY_SESSION`].
pub fn visible_record<'a>(
    stored: Option<&'a TaskRecord>,
    task_id: &str,
    principal: &str,
    now_ms: u64,
) -> Option<&'a TaskRecord> {
    stored.filter(|r| {
        r.task_id() == task_id && anonymous::reaches(principal, r.owner()) && !r.is_expired(now_ms)
    })
}

/// Handles one Worker request.
pub fn handle(
    stored: Option<TaskRecord>,
    request: ObjectRequest,
    principal: &str,
    now_ms: u64,
) -> (ObjectReply, Effects) {
    if let ObjectRequest::Create { record } = request {
        if stored.is_some() {
            // 128 random bits make this unreachable in practice; never overwrite a task.
            return (
                error(McpError::Internal("task id collision".into())),
                Effects::default(),
            );
        }
        let reply = ObjectReply::Result(record.to_task().to_result(RESULT_TASK));
        let dirty = Dirty::all(&record);
        return (reply, Effects::store(*record, dirty, now_ms));
    }
    let task_id = request.task_id().to_owned();
    let visible = match request {
        // An operator reaches any owner's task (the Worker checked the operator).
        ObjectRequest::OperatorCancel { .. } => stored
            .as_ref()
            .filter(|r| r.task_id() == task_id && !r.is_expired(now_ms)),
        _ => visible_record(stored.as_ref(), &task_id, principal, now_ms),
    };
    let Some(record) = visible else {
        return (error(McpError::TaskNotFound), Effects::default());
    };
    match request {
        ObjectRequest::Create { .. } => unreachable!("handled above"),
        ObjectRequest::Get { .. } => (
            ObjectReply::Result(record.to_task().to_result(RESULT_COMPLETE)),
            Effects::default(),
        ),
        // They read the timeline, which `record` does not hold: the adapter loads it and
        // answers with `timeline::owner_view` / `ops::admin::inspect` instead.
        ObjectRequest::Timeline { .. } | ObjectRequest::Inspect { .. } => (
            error(McpError::Internal(
                "timeline reads are answered from the stored timeline".into(),
            )),
            Effects::default(),
        ),
        ObjectRequest::Cancel { .. }
        | ObjectRequest::OperatorCancel { .. }
        | ObjectRequest::LegacyCancel { .. } => {
            let by = match request {
                ObjectRequest::OperatorCancel { .. } => CANCELLED_BY_OPERATOR,
                _ => CANCELLED_BY_CLIENT,
            };
            let legacy = matches!(request, ObjectRequest::LegacyCancel { .. });
            let mut record = record.clone();
            match record.cancel(by, now_ms) {
                Ok(()) => {
                    let reply = match legacy {
                        true => ObjectReply::Result(record.to_task().to_result(RESULT_COMPLETE)),
                        false => empty_ack(),
                    };
                    let mut effects = Effects::store(record, Dirty::default(), now_ms);
                    effects.cancel_hook = true;
                    (reply, effects)
                }
                // Terminal tasks cannot be cancelled (legacy tasks "Cancelling Tasks").
                Err(Illegal::Terminal { .. }) if legacy => (
                    error(McpError::InvalidParams(format!(
                        "Cannot cancel task {task_id}: it already ended ({})",
                        record.status().name()
                    ))),
                    Effects::default(),
                ),
                // Cancelling a terminal task is the same empty ack (ext-tasks "Task Cancellation").
                Err(Illegal::Terminal { .. }) => (empty_ack(), Effects::default()),
                Err(illegal) => (refused(illegal), Effects::default()),
            }
        }
        ObjectRequest::Update {
            input_responses, ..
        } => update(record.clone(), input_responses, now_ms),
    }
}

/// `tasks/update`: answers for outstanding keys are validated and taken; anything else
/// is ignored (ext-tasks "Task Update Requests": unknown, answered or superseded keys).
/// A malformed answer is -32602 and the task is untouched.
fn update(
    mut record: TaskRecord,
    responses: Map<String, Value>,
    now_ms: u64,
) -> (ObjectReply, Effects) {
    let TaskStatus::InputRequired { input_requests } = record.status() else {
        return (empty_ack(), Effects::default());
    };
    let mut remaining = input_requests.clone();
    let mut taken = Vec::new();
    for (key, response) in responses {
        if let Some(request) = remaining.remove(&key) {
            if let Err(e) = input::check_answer(&key, &request, &response) {
                return (error(e), Effects::default());
            }
            taken.push((tool_key(&key).to_owned(), response));
        }
    }
    if taken.is_empty() {
        return (empty_ack(), Effects::default());
    }
    let dirty = match record.take_answers(taken, remaining, now_ms) {
        Ok(answers) => Dirty {
            answers,
            ..Dirty::default()
        },
        Err(illegal) => return (refused(illegal), Effects::default()),
    };
    (empty_ack(), Effects::store(record, dirty, now_ms))
}
