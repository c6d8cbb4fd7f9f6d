//! What a step reports while it runs, as pure decisions (the runner's side is
//! `objects::live`): progress written to the task as it comes, questions asked mid-step
//! (`Call::ask_now`) stored as the task's input requests, and whether a request that
//! changed the task answered them or ended the attempt.
//!
//! Each applies only while attempt `attempt` still holds the lease of a task that has not
//! ended: otherwise a cancel won (or a newer attempt took over) and the step is dropped.
//! None of these writes moves the alarm: the one armed for the step stays as it is.

use super::layout::Dirty;
use super::machine::Illegal;
use super::object::Effects;
use super::record::TaskRecord;
use super::task::TaskStatus;
use crate::mcp::input;
use crate::tools::{Amount, Report, ToolError, internal_error};
use serde_json::{Map, Value};

/// What a question asked mid-step became.
#[derive(Debug, PartialEq)]
pub enum Asked {
    /// Stored as the task's input requests: write these effects, then wait for `keys`.
    Stored {
        effects: Box<Effects>,
        keys: Vec<String>,
    },
    /// Not askable (malformed, a capability the client did not declare, another question
    /// pending): the step gets this error and goes on.
    Refused(ToolError),
    /// The attempt no longer holds the task: the step is dropped.
    Gone,
}

/// Whether the questions asked mid-step are answered.
#[derive(Debug, PartialEq)]
pub enum Answered {
    /// All of them: the answers, keyed as asked.
    Yes(Map<String, Value>),
    Waiting,
    /// The attempt no longer holds the task (a cancel, say): the step is dropped.
    Gone,
}

/// The record, if attempt `attempt` still holds it and it has not ended.
fn held(current: Option<TaskRecord>, attempt: u32) -> Option<TaskRecord> {
    current.filter(|r| !r.status().is_terminal() && r.lease().map(|l| l.attempt) == Some(attempt))
}

/// Whether attempt `attempt` no longer holds `current` (the step is to be dropped).
pub fn gone(current: Option<&TaskRecord>, attempt: u32) -> bool {
    held(current.cloned(), attempt).is_none()
}

fn unchanged_alarm(record: TaskRecord, now_ms: u64) -> Effects {
    Effects {
        alarm: None,
        ..Effects::store(record, Dirty::default(), now_ms)
    }
}

/// Progress reported mid-step: the task's status message (the report's summary) and
/// numbers, while it is working (a pending question's message stays).
pub fn reported(
    current: Option<TaskRecord>,
    attempt: u32,
    report: &Report,
    now_ms: u64,
) -> Result<Effects, Illegal> {
    let Some(mut record) = held(current, attempt) else {
        return Ok(Effects::default());
    };
    if *record.status() != TaskStatus::Working {
        return Ok(Effects::default());
    }
    let amount = Amount {
        progress: report.progress,
        total: report.total,
    };
    record.report(report.summary(), amount, now_ms)?;
    Ok(unchanged_alarm(record, now_ms))
}

/// Questions asked mid-step, checked as a step's `NeedInput` is (well-formed, and only
/// for capabilities the client declared).
pub fn asked(
    current: Option<TaskRecord>,
    attempt: u32,
    requests: Map<String, Value>,
    now_ms: u64,
) -> Result<Asked, Illegal> {
    let Some(mut record) = held(current, attempt) else {
        return Ok(Asked::Gone);
    };
    if *record.status() != TaskStatus::Working {
        return Ok(Asked::Refused(ToolError::Rpc(internal_error(
            "a step asked while its earlier question was still unanswered",
        ))));
    }
    if let Err(why) = input::check_requests(&requests) {
        return Ok(Asked::Refused(ToolError::Rpc(internal_error(format!(
            "The tool {:?} asked an illegal question: {why}",
            record.tool()
        )))));
    }
    if let Err(e) = input::check_capabilities(&requests, &record.capabilities()) {
        return Ok(Asked::Refused(ToolError::Rpc(e.to_wire())));
    }
    let keys = requests.keys().cloned().collect();
    record.need_input(requests, None, now_ms)?;
    Ok(Asked::Stored {
        effects: Box::new(unchanged_alarm(record, now_ms)),
        keys,
    })
}

/// After a request changed the task: whether the questions `keys` are answered (the task
/// is working again and holds an answer for each).
pub fn answered(current: Option<&TaskRecord>, attempt: u32, keys: &[String]) -> Answered {
    let Some(record) = current.filter(|r| !gone(Some(r), attempt)) else {
        return Answered::Gone;
    };
    if *record.status() != TaskStatus::Working {
        return Answered::Waiting;
    }
    let mut answers = Map::new();
    for key in keys {
        match record.answers().get(key) {
            Some(answer) => {
                answers.insert(key.clone(), answer.clone());
            }
            None => return Answered::Waiting,
        }
    }
    Answered::Yes(answers)
}
