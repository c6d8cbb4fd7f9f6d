//! What a step reports while it runs, as pure decisions ([`plan`]; the runner's side is
//! `objects::task::live`): progress written to the task as it comes, questions asked mid-step
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

/// What reached the runner while the step runs (the step's reports, or a request's write).
#[derive(Debug)]
pub enum Event<'a> {
    /// Progress reported (the latest; earlier ones were coalesced).
    Report(&'a Report),
    /// Questions asked mid-step (`Call::ask_now`).
    Ask(Map<String, Value>),
    /// A request wrote the task: answers arrived, or it ended.
    Changed,
}

/// What the step is told.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// Nothing: it goes on (or goes on waiting).
    Nothing,
    /// Its questions are the task's now: it waits for answers to `keys`.
    Asked(Vec<String>),
    /// Its question is not askable (malformed, a capability the client did not declare,
    /// another question pending): it gets this error and goes on.
    Refused(ToolError),
    /// Its questions are answered: the answers, keyed as asked.
    Answered(Map<String, Value>),
    /// The attempt no longer holds the task (a cancel won): the step is dropped.
    Gone,
}

/// One event while attempt `attempt` runs, over the task as it is now (`waiting`: the
/// keys of the questions the step waits on, if any): what to write, and what the step is
/// told. Nothing is written for a task the attempt no longer holds.
pub fn plan(
    current: Option<TaskRecord>,
    attempt: u32,
    event: Event<'_>,
    waiting: Option<&[String]>,
    now_ms: u64,
) -> Result<(Option<Effects>, Outcome), Illegal> {
    let Some(mut record) = held(current, attempt) else {
        return Ok((None, Outcome::Gone));
    };
    let working = *record.status() == TaskStatus::Working;
    match event {
        Event::Report(report) if working => {
            let amount = Amount {
                progress: report.progress,
                total: report.total,
            };
            record.report(report.summary(), amount, now_ms)?;
            Ok((Some(unchanged_alarm(record, now_ms)), Outcome::Nothing))
        }
        // A pending question's message stays.
        Event::Report(_) => Ok((None, Outcome::Nothing)),
        Event::Ask(requests) => {
            if !working {
                let error = "a step asked while its earlier question was still unanswered";
                return Ok((None, refused(error.into())));
            }
            if let Err(why) = input::check_requests(&requests) {
                let error = format!(
                    "The tool {:?} asked an illegal question: {why}",
                    record.tool()
                );
                return Ok((None, refused(error)));
            }
            if let Err(e) = input::check_capabilities(&requests, &record.capabilities()) {
                return Ok((None, Outcome::Refused(ToolError::Rpc(e.to_wire()))));
            }
            let keys = requests.keys().cloned().collect();
            record.need_input(requests, None, now_ms)?;
            Ok((Some(unchanged_alarm(record, now_ms)), Outcome::Asked(keys)))
        }
        Event::Changed => Ok((None, answered(&record, waiting))),
    }
}

fn refused(message: String) -> Outcome {
    Outcome::Refused(ToolError::Rpc(internal_error(message)))
}

/// Whether the questions `waiting` asks are answered: the task is working again and holds
/// an answer for each.
fn answered(record: &TaskRecord, waiting: Option<&[String]>) -> Outcome {
    let Some(keys) = waiting.filter(|_| *record.status() == TaskStatus::Working) else {
        return Outcome::Nothing;
    };
    let mut answers = Map::new();
    for key in keys {
        match record.answers().get(key) {
            Some(answer) => {
                answers.insert(key.clone(), answer.clone());
            }
            None => return Outcome::Nothing,
        }
    }
    Outcome::Answered(answers)
}

/// The record, if attempt `attempt` still holds it and it has not ended.
fn held(current: Option<TaskRecord>, attempt: u32) -> Option<TaskRecord> {
    current.filter(|r| !r.status().is_terminal() && r.lease().map(|l| l.attempt) == Some(attempt))
}

fn unchanged_alarm(record: TaskRecord, now_ms: u64) -> Effects {
    Effects {
        alarm: None,
        ..Effects::store(record, Dirty::default(), now_ms)
    }
}
