//! The TaskObject's behaviour, as pure functions: given what storage holds, a request (or
//! an alarm) and the time, decide the reply and the storage effects. The Durable Object
//! adapter only loads, calls these, runs steps, and applies the [`Effects`] (invariants
//! 3 and 4).
//!
//! # Executing steps (docs/architecture.md, "Executing steps")
//!
//! ```text
//! alarm ─▶ alarm(): due step? ── store lease {attempt n, deadline} + alarm at deadline
//!                                  └─▶ adapter runs the step (requests interleave)
//!                                        └─▶ finish(): lease still n and not terminal?
//!                                              yes: apply the outcome, clear the lease
//!                                              no:  drop it (a cancel won, or a newer attempt)
//! alarm while a lease is stored and its attempt is not running here = the attempt was
//! lost (crash, eviction, deploy): re-run from the last checkpoint, up to max_attempts,
//! then `failed` naming the tool and the attempts.
//! ```

use super::layout::Dirty;
use super::machine::Illegal;
use super::protocol::{ObjectReply, ObjectRequest};
use super::record::{TaskRecord, check_result, tool_key};
use super::task::{RESULT_COMPLETE, RESULT_TASK, TaskStatus};
use crate::error::McpError;
use crate::host::Host;
use crate::jsonrpc::ErrorObject;
use crate::mcp::input;
use crate::tools::{Registry, Step, internal_error};
use serde_json::{Map, Value, json};

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

    fn store(record: TaskRecord, dirty: Dirty, now_ms: u64) -> Self {
        Effects {
            alarm: Some(record.next_alarm_ms(now_ms)),
            store: Some(record),
            dirty,
            ..Effects::default()
        }
    }

    fn alarm_at(at: Option<u64>) -> Self {
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

/// Limits on step execution (from the server's configuration).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Attempts at one step before the task fails.
    pub max_attempts: u32,
    /// How long an attempt may run before it is presumed lost.
    pub lease_ms: u64,
    /// The largest result (serialized) a task keeps.
    pub max_result_bytes: usize,
}

fn empty_ack() -> ObjectReply {
    ObjectReply::Result(json!({ "resultType": RESULT_COMPLETE }))
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
pub fn visible_record<'a>(
    stored: Option<&'a TaskRecord>,
    task_id: &str,
    principal: &str,
    now_ms: u64,
) -> Option<&'a TaskRecord> {
    stored.filter(|r| r.task_id() == task_id && r.owner() == principal && !r.is_expired(now_ms))
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
        ObjectRequest::Cancel { .. } | ObjectRequest::OperatorCancel { .. } => {
            let by = match request {
                ObjectRequest::OperatorCancel { .. } => CANCELLED_BY_OPERATOR,
                _ => CANCELLED_BY_CLIENT,
            };
            let mut record = record.clone();
            match record.cancel(by, now_ms) {
                Ok(()) => {
                    let mut effects = Effects::store(record, Dirty::default(), now_ms);
                    effects.cancel_hook = true;
                    (empty_ack(), effects)
                }
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

/// What the alarm decided.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum AlarmPlan {
    /// Apply these effects; nothing to run.
    Done(Effects),
    /// Apply `lease` (stores the lease and sets the alarm to its deadline), then run the
    /// step as attempt `attempt` and hand its outcome to [`finish`].
    RunStep { lease: Effects, attempt: u32 },
}

/// The alarm: expire, notice a lost attempt, or start the due step. `running_here` is
/// the attempt this instance is running right now, if any (memory, not storage: a new
/// instance has none, which is how a lost attempt is recognised).
pub fn alarm(
    stored: Option<TaskRecord>,
    now_ms: u64,
    running_here: Option<u32>,
    limits: Limits,
) -> Result<AlarmPlan, Illegal> {
    let Some(mut record) = stored else {
        return Ok(AlarmPlan::Done(Effects::alarm_at(None)));
    };
    if record.is_expired(now_ms) {
        return Ok(AlarmPlan::Done(Effects {
            delete_all: true,
            alarm: Some(None),
            ..Effects::default()
        }));
    }
    if record.status().is_terminal() {
        return Ok(AlarmPlan::Done(Effects::alarm_at(
            record.next_alarm_ms(now_ms),
        )));
    }
    let attempt = match record.lease() {
        Some(lease) if running_here == Some(lease.attempt) && now_ms < lease.deadline_ms => {
            // Still running in this instance: check on it again later.
            return Ok(AlarmPlan::Done(Effects::alarm_at(
                record.next_alarm_ms(now_ms),
            )));
        }
        Some(lease) if lease.attempt >= limits.max_attempts => {
            let error = internal_error(format!(
                "The tool {:?} did not finish a step in {} attempts: each was interrupted (a crash, an eviction, a deploy or a step longer than {} ms)",
                record.tool(),
                lease.attempt,
                limits.lease_ms
            ));
            fail(&mut record, error, now_ms)?;
            return Ok(AlarmPlan::Done(Effects::store(
                record,
                Dirty::default(),
                now_ms,
            )));
        }
        Some(lease) => lease.attempt + 1,
        None => {
            let due = *record.status() == TaskStatus::Working
                && record.next_step_at_ms().is_none_or(|at| at <= now_ms);
            if !due {
                return Ok(AlarmPlan::Done(Effects::alarm_at(
                    record.next_alarm_ms(now_ms),
                )));
            }
            1
        }
    };
    record.start_attempt(attempt, now_ms.saturating_add(limits.lease_ms));
    Ok(AlarmPlan::RunStep {
        lease: Effects::store(record, Dirty::default(), now_ms),
        attempt,
    })
}

/// Runs one step of `record`'s tool as attempt `attempt`. Progress the step reports
/// becomes the task's status message when the step does not set one.
pub async fn run_step(
    record: &TaskRecord,
    registry: &Registry,
    host: Host,
    now_ms: u64,
    attempt: u32,
) -> Step {
    let call = record.call(now_ms, attempt);
    let progress = call.progress.clone();
    match registry.get(record.tool()) {
        Some(tool) => tool.step(call, host).await.or_progress(&progress),
        None => Step::Fail(internal_error(format!(
            "The tool {:?} no longer exists on this server",
            record.tool()
        ))),
    }
}

/// Applies the outcome of attempt `attempt` to the record as it is now (re-read after
/// the step): only if that attempt still holds the lease and the task is not terminal.
pub fn finish(
    current: Option<TaskRecord>,
    attempt: u32,
    step: Step,
    now_ms: u64,
    limits: Limits,
) -> Result<Effects, Illegal> {
    let Some(mut record) = current else {
        return Ok(Effects::default());
    };
    let current_attempt = record.lease().map(|l| l.attempt);
    if record.status().is_terminal()
        || record.is_expired(now_ms)
        || current_attempt != Some(attempt)
    {
        // A cancel won, the task expired, or a newer attempt took over: drop the outcome.
        return Ok(Effects::default());
    }
    record.end_attempt();
    let dirty = advance(&mut record, step, now_ms, limits)?;
    Ok(Effects::store(record, dirty, now_ms))
}

fn fail(record: &mut TaskRecord, error: ErrorObject, now_ms: u64) -> Result<(), Illegal> {
    record.fail(error, now_ms)
}

/// The tool's bug, as the task's error.
fn illegal_step(record: &mut TaskRecord, why: &str, now_ms: u64) -> Result<Dirty, Illegal> {
    let error = internal_error(format!("The tool {:?} {why}", record.tool()));
    fail(record, error, now_ms).map(|()| Dirty::default())
}

/// Applies one step's outcome to a working task; returns which large parts changed.
pub fn advance(
    record: &mut TaskRecord,
    step: Step,
    now_ms: u64,
    limits: Limits,
) -> Result<Dirty, Illegal> {
    match step {
        Step::Complete(mut result) => {
            if let Err(why) = check_result(&result, true, Some(limits.max_result_bytes)) {
                return illegal_step(record, &why, now_ms);
            }
            // Stored without `resultType`: storage is era-neutral; `TaskRecord::to_task` adds
            // it for 2026-07-28 readers, 2025-11-25 readers never see it.
            if let Some(object) = result.as_object_mut() {
                object.remove("resultType");
            }
            record.complete(result, now_ms)?;
            Ok(Dirty {
                result: true,
                ..Dirty::default()
            })
        }
        Step::Fail(error) => fail(record, error, now_ms).map(|()| Dirty::default()),
        Step::Continue {
            checkpoint,
            status_message,
            resume_after_ms,
        } => {
            let next_step_at_ms = now_ms.saturating_add(resume_after_ms);
            let checkpoint =
                record.progress(checkpoint, status_message, next_step_at_ms, now_ms)?;
            Ok(Dirty {
                checkpoint,
                ..Dirty::default()
            })
        }
        Step::NeedInput(requests) => {
            if let Err(why) = input::check_requests(&requests) {
                return illegal_step(record, &format!("returned an illegal step: {why}"), now_ms);
            }
            if let Err(e) = input::check_capabilities(&requests, &record.capabilities()) {
                return fail(record, e.to_wire(), now_ms).map(|()| Dirty::default());
            }
            record.need_input(requests, now_ms)?;
            Ok(Dirty::default())
        }
    }
}
