//! Executing a task's steps, as pure functions: the alarm decides whether a step runs (and
//! under which lease), the adapter runs it, and [`finish`] applies its outcome if the
//! lease still holds. The requests' side is [`super::object`].
//!
//! # Executing steps (docs/architecture.md, "Executing steps")
//!
//! ```text
//! alarm ─▶ alarm(): due step? ── store lease {attempt n, deadline} (n > 1: + alarm to check)
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
use super::object::Effects;
use super::record::{TaskRecord, check_result};
use super::task::TaskStatus;
use crate::host::Host;
use crate::jsonrpc::ErrorObject;
use crate::mcp::input;
use crate::tools::{Call, Registry, Step, internal_error};
use serde_json::{Map, Value};

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

/// What the alarm decided.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum AlarmPlan {
    /// Apply these effects; nothing to run.
    Done(Effects),
    /// Apply `lease` (stores the lease; a retried attempt also sets the alarm to check on
    /// it), then run the step as attempt `attempt` and hand its outcome to [`finish`].
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
        return Ok(AlarmPlan::Done(expire()));
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
        Some(lease) => {
            if matches!(record.status(), TaskStatus::InputRequired { .. }) {
                // Only a step asking mid-step holds a lease while input is required: its
                // questions were lost with it (`tasks::live`).
                record.withdraw_questions(now_ms)?;
            }
            lease.attempt + 1
        }
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
    let mut lease = Effects::store(record, Dirty::default(), now_ms);
    if attempt == 1 {
        // The alarm running this step stays armed until its handler returns: the platform
        // deletes a fired alarm only when the handler succeeds and fires it again after a
        // crash, an eviction or a deploy (alarms are at-least-once). So a first attempt
        // needs no alarm of its own: one row less per step. A retried attempt arms its own
        // check, so a step that keeps crashing never relies on the platform's retries
        // (six, with backoff) lasting until `max_attempts`.
        lease.alarm = None;
    }
    Ok(AlarmPlan::RunStep { lease, attempt })
}

/// How long a task of an upstream tool waits before it tries again while its upstream's
/// tools are not known.
pub const UPSTREAM_RETRY_MS: u64 = 15_000;

/// Runs one step of `record`'s tool as `call` (`record.call(..)`, with its sinks). The
/// last progress it reports becomes the task's status message when the step sets none.
pub async fn run_step(record: &TaskRecord, registry: &Registry, host: Host, call: Call) -> Step {
    let progress = call.progress.clone();
    match registry.get(record.tool()) {
        Some(tool) => tool.step(call, host).await.or_progress(&progress),
        // Its upstream could not be listed (down, or unreachable) since this instance
        // started: the task waits for it, up to its TTL, rather than fail for good.
        None => match registry.awaited(record.tool()) {
            Some(upstream) => Step::wait(std::time::Duration::from_millis(UPSTREAM_RETRY_MS))
                .message(format!(
                    "Waiting for the upstream server {upstream:?}: its tools could not be listed; trying again"
                )),
            None => Step::Fail(internal_error(format!(
                "The tool {:?} no longer exists on this server",
                record.tool()
            ))),
        },
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
    if record.is_expired(now_ms) {
        // It expired during the step: erase it now, as the alarm would have (a first
        // attempt set no alarm of its own to come back for it).
        return Ok(expire());
    }
    let current_attempt = record.lease().map(|l| l.attempt);
    if record.status().is_terminal() || current_attempt != Some(attempt) {
        // A cancel won (and set the expiry's alarm), or a newer attempt took over (and
        // set its own): drop the outcome.
        return Ok(Effects::default());
    }
    record.end_attempt();
    let dirty = advance(&mut record, step, now_ms, limits)?;
    Ok(Effects::store(record, dirty, now_ms))
}

/// An expired task: everything erased, no alarm left.
fn expire() -> Effects {
    Effects {
        delete_all: true,
        alarm: Some(None),
        ..Effects::default()
    }
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
            progress,
            resume_after_ms,
        } => {
            let next_step_at_ms = now_ms.saturating_add(resume_after_ms);
            let checkpoint = record.progress(
                checkpoint,
                status_message,
                progress,
                next_step_at_ms,
                now_ms,
            )?;
            Ok(Dirty {
                checkpoint,
                ..Dirty::default()
            })
        }
        Step::NeedInput(requests) => ask(record, requests, None, now_ms),
        Step::NeedInputAt {
            requests,
            checkpoint,
        } => ask(record, requests, Some(checkpoint), now_ms),
    }
}

/// A step's questions (checked: well-formed, and only for capabilities the client
/// declared), with the checkpoint the step re-runs with, if it set one.
fn ask(
    record: &mut TaskRecord,
    requests: Map<String, Value>,
    checkpoint: Option<Value>,
    now_ms: u64,
) -> Result<Dirty, Illegal> {
    if let Err(why) = input::check_requests(&requests) {
        return illegal_step(record, &format!("returned an illegal step: {why}"), now_ms);
    }
    if let Err(e) = input::check_capabilities(&requests, &record.capabilities()) {
        return fail(record, e.to_wire(), now_ms).map(|()| Dirty::default());
    }
    let changed = checkpoint.is_some();
    record.need_input(requests, checkpoint, now_ms)?;
    Ok(Dirty {
        checkpoint: changed,
        ..Dirty::default()
    })
}
