//! The task state machine: the only place a task's status changes (invariant 3).
//!
//! ext-tasks "Task Status State Diagram":
//!
//! ```text
//!   [*] → working ⇄ input_required
//!         working → terminal,  input_required → terminal,  terminal → nothing
//!   terminal = completed | failed | cancelled
//! ```

use super::task::TaskStatus;
use crate::jsonrpc::ErrorObject;
use serde_json::{Map, Value};

/// Something that happened to a task.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A step finished and more work remains (working → working).
    Progressed,
    /// The tool needs input; the keys are already task-unique.
    InputNeeded(Map<String, Value>),
    /// Answers arrived; `remaining` are the requests still outstanding. The task stays
    /// `input_required` until none remain (ext-tasks "Task Update Requests").
    InputAnswered { remaining: Map<String, Value> },
    /// The tool produced its result (including `isError: true` results).
    Completed(Value),
    /// The request ended with a JSON-RPC error, or the server gave up on it (TTL, crash).
    Failed(ErrorObject),
    /// `tasks/cancel` took effect.
    Cancelled,
}

impl Event {
    pub fn name(&self) -> &'static str {
        match self {
            Event::Progressed => "progressed",
            Event::InputNeeded(_) => "input_needed",
            Event::InputAnswered { .. } => "input_answered",
            Event::Completed(_) => "completed",
            Event::Failed(_) => "failed",
            Event::Cancelled => "cancelled",
        }
    }
}

/// Why an event cannot apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Illegal {
    /// The task already ended; nothing changes a terminal task.
    Terminal { status: &'static str },
    /// The event makes no sense in this status (e.g. answers while working).
    Unexpected {
        status: &'static str,
        event: &'static str,
    },
}

/// Applies `event` to `status`. Pure: the caller stamps times and persists.
pub fn apply(status: &TaskStatus, event: Event) -> Result<TaskStatus, Illegal> {
    use TaskStatus::*;
    if status.is_terminal() {
        return Err(Illegal::Terminal {
            status: status.name(),
        });
    }
    let next = match (status, event) {
        (Working, Event::Progressed) => Working,
        (Working, Event::InputNeeded(input_requests)) if !input_requests.is_empty() => {
            InputRequired { input_requests }
        }
        (InputRequired { .. }, Event::InputAnswered { remaining }) => {
            if remaining.is_empty() {
                Working
            } else {
                InputRequired {
                    input_requests: remaining,
                }
            }
        }
        (Working, Event::Completed(result)) => Completed { result },
        (Working | InputRequired { .. }, Event::Failed(error)) => Failed { error },
        (Working | InputRequired { .. }, Event::Cancelled) => Cancelled,
        (status, event) => {
            return Err(Illegal::Unexpected {
                status: status.name(),
                event: event.name(),
            });
        }
    };
    Ok(next)
}
