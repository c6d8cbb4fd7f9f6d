//! The TaskObject's behaviour, as pure functions: given what storage holds, a request (or
//! an alarm) and the time, decide the reply and the storage effects. The Durable Object
//! adapter only loads, calls these, and applies the [`Effects`] (invariants 3 and 4).

use super::machine::Event;
use super::protocol::{ObjectReply, ObjectRequest};
use super::record::{TaskRecord, tool_key, wire_key};
use super::task::{RESULT_COMPLETE, RESULT_TASK, TaskStatus};
use crate::error::McpError;
use crate::mcp::input;
use crate::tools::{Registry, Step, internal_error};
use serde_json::{Map, Value, json};

/// What the adapter must do to storage, in this order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Effects {
    /// Write this record (the whole task; one key).
    pub store: Option<TaskRecord>,
    /// Erase everything (the task expired).
    pub delete_all: bool,
    /// Set the alarm to this absolute time, or clear it (`Some(None)`); `None`: leave it.
    pub alarm: Option<Option<u64>>,
}

impl Effects {
    fn store(record: TaskRecord) -> Self {
        Effects {
            alarm: Some(record.next_alarm_ms()),
            store: Some(record),
            delete_all: false,
        }
    }
}

fn empty_ack() -> ObjectReply {
    ObjectReply::Result(json!({ "resultType": RESULT_COMPLETE }))
}

fn error(e: McpError) -> ObjectReply {
    ObjectReply::Error(e.to_wire())
}

/// The record `principal` may see, or "not found" (unknown, expired, or someone else's:
/// one answer for all three so ids leak nothing; ext-tasks "Security Considerations").
fn visible<'a>(
    stored: Option<&'a TaskRecord>,
    task_id: &str,
    principal: &str,
    now_ms: u64,
) -> Option<&'a TaskRecord> {
    stored.filter(|r| r.task_id == task_id && r.owner == principal && !r.is_expired(now_ms))
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
        return (reply, Effects::store(*record));
    }
    // A "step running" mark seen by any later event means the step crashed the instance
    // (events never interleave with a running step: storage waits close the input gate).
    let (stored, recovered) = match stored {
        Some(record) if record.step_running => {
            let record = crashed(record, now_ms);
            (Some(record.clone()), Some(Effects::store(record)))
        }
        other => (other, None),
    };
    let (reply, effects) = handle_visible(stored.as_ref(), request, principal, now_ms);
    match (effects.store.is_some() || effects.delete_all, recovered) {
        (false, Some(recovered)) => (reply, recovered),
        _ => (reply, effects),
    }
}

fn handle_visible(
    stored: Option<&TaskRecord>,
    request: ObjectRequest,
    principal: &str,
    now_ms: u64,
) -> (ObjectReply, Effects) {
    let task_id = request.task_id().to_owned();
    let Some(record) = visible(stored, &task_id, principal, now_ms) else {
        return (error(McpError::TaskNotFound), Effects::default());
    };
    match request {
        ObjectRequest::Create { .. } => unreachable!("handled above"),
        ObjectRequest::Get { .. } => (
            ObjectReply::Result(record.to_task().to_result(RESULT_COMPLETE)),
            Effects::default(),
        ),
        ObjectRequest::Cancel { .. } => {
            let mut record = record.clone();
            // Cancelling a terminal task is the same empty ack (ext-tasks "Task Cancellation").
            match record.apply(Event::Cancelled, now_ms) {
                Ok(()) => {
                    record.status_message = Some("Cancelled by the client".into());
                    (empty_ack(), Effects::store(record))
                }
                Err(_) => (empty_ack(), Effects::default()),
            }
        }
        ObjectRequest::Update {
            input_responses, ..
        } => update(record.clone(), input_responses, now_ms),
    }
}

/// `tasks/update`: answers for outstanding keys are taken; anything else is ignored
/// (ext-tasks "Task Update Requests": unknown, answered or superseded keys).
fn update(
    mut record: TaskRecord,
    responses: Map<String, Value>,
    now_ms: u64,
) -> (ObjectReply, Effects) {
    let TaskStatus::InputRequired { input_requests } = &record.status else {
        return (empty_ack(), Effects::default());
    };
    let mut remaining = input_requests.clone();
    let mut taken = 0;
    for (key, response) in responses {
        if remaining.remove(&key).is_some() {
            record.answers.insert(tool_key(&key).to_owned(), response);
            taken += 1;
        }
    }
    if taken == 0 {
        return (empty_ack(), Effects::default());
    }
    record
        .apply(Event::InputAnswered { remaining }, now_ms)
        .expect("input_required accepts answers");
    if record.status == TaskStatus::Working {
        record.status_message = Some("Input received; resuming".into());
        record.next_step_at_ms = Some(now_ms);
    }
    (empty_ack(), Effects::store(record))
}

/// What the alarm decided. One value per alarm, moved once: its size does not matter.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum AlarmPlan {
    /// Apply these effects; nothing to run.
    Done(Effects),
    /// Apply `mark` (stores the record marked `step_running`, with a watchdog alarm) first,
    /// then call [`run_step`] with `running`. If the step crashes the instance, the retried
    /// alarm, the watchdog, or the next request finds the mark and fails the task.
    RunStep { mark: Effects, running: TaskRecord },
}

/// How long after a step starts the watchdog alarm fires if the step never finished.
pub const STEP_WATCHDOG_MS: u64 = 10_000;

/// The record of a task whose step crashed: `failed` with -32603.
fn crashed(mut record: TaskRecord, now_ms: u64) -> TaskRecord {
    record.step_running = false;
    let error = internal_error(format!(
        "The tool {:?} crashed while running a step",
        record.tool
    ));
    fail(&mut record, error, now_ms);
    record
}

/// The alarm: expire, recover from a crashed step, or prepare the next step.
pub fn alarm(stored: Option<TaskRecord>, now_ms: u64) -> AlarmPlan {
    let Some(mut record) = stored else {
        return AlarmPlan::Done(Effects::default());
    };
    if record.is_expired(now_ms) {
        return AlarmPlan::Done(Effects {
            store: None,
            delete_all: true,
            alarm: Some(None),
        });
    }
    if record.step_running {
        // The previous alarm died inside the step (a panic aborts the wasm instance).
        return AlarmPlan::Done(Effects::store(crashed(record, now_ms)));
    }
    let due = record.status == TaskStatus::Working
        && record.next_step_at_ms.is_some_and(|at| at <= now_ms);
    if !due {
        return AlarmPlan::Done(Effects {
            alarm: Some(record.next_alarm_ms()),
            ..Effects::default()
        });
    }
    record.step_running = true;
    let mark = Effects {
        store: Some(record.clone()),
        delete_all: false,
        alarm: Some(Some(now_ms.saturating_add(STEP_WATCHDOG_MS))),
    };
    AlarmPlan::RunStep {
        mark,
        running: record,
    }
}

/// Runs the due step of a record returned by [`AlarmPlan::RunStep`].
pub fn run_step(mut record: TaskRecord, registry: &Registry, now_ms: u64) -> Effects {
    record.step_running = false;
    let step = match registry.get(&record.tool) {
        Some(spec) => {
            let capabilities = record.capabilities();
            (spec.step)(&record.call(&capabilities, now_ms))
        }
        None => Step::Fail(internal_error(format!(
            "The tool {:?} no longer exists on this server",
            record.tool
        ))),
    };
    advance(&mut record, step, now_ms);
    Effects::store(record)
}

fn fail(record: &mut TaskRecord, error: crate::jsonrpc::ErrorObject, now_ms: u64) {
    record.status_message = Some(format!("Failed: {}", error.message));
    // Only non-terminal tasks reach here (alarms do not run steps of ended tasks).
    let _ = record.apply(Event::Failed(error), now_ms);
}

/// Applies one step's outcome to a working task.
pub fn advance(record: &mut TaskRecord, step: Step, now_ms: u64) {
    match step {
        Step::Complete(result) => {
            let result = ensure_result_shape(result);
            record.status_message = None;
            let _ = record.apply(Event::Completed(result), now_ms);
        }
        Step::Fail(error) => fail(record, error, now_ms),
        Step::Continue {
            checkpoint,
            status_message,
            resume_after_ms,
        } => {
            record.checkpoint = checkpoint;
            if status_message.is_some() {
                record.status_message = status_message;
            }
            record.next_step_at_ms = Some(now_ms.saturating_add(resume_after_ms));
            let _ = record.apply(Event::Progressed, now_ms);
        }
        Step::NeedInput(requests) => {
            let capabilities = record.capabilities();
            if let Err(e) = input::check_capabilities(&requests, &capabilities) {
                return fail(record, e.to_wire(), now_ms);
            }
            record.round += 1;
            let round = record.round;
            let keyed: Map<String, Value> = requests
                .into_iter()
                .map(|(k, v)| (wire_key(&k, round), v))
                .collect();
            record.next_step_at_ms = None;
            record.status_message = Some("Waiting for input".into());
            let _ = record.apply(Event::InputNeeded(keyed), now_ms);
        }
    }
}

/// A tool result stored in a task never carries `resultType` (it is inlined in the task).
fn ensure_result_shape(mut result: Value) -> Value {
    if let Some(object) = result.as_object_mut() {
        object.remove("resultType");
    }
    result
}
