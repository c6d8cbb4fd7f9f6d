//! The vocabulary: the events an operator filters on, and the lines the adapters print
//! for each (docs/operations.md has the table).

use super::{Level, Line, fingerprint};
use crate::error::McpError;
use crate::tasks::object::CANCELLED_BY_OPERATOR;
use crate::tasks::record::TaskRecord;
use crate::tasks::task::{StatusKind, TaskStatus};
use crate::tasks::timeline::{Entry, Kind};
use crate::tools::Step;
use serde_json::{Map, Value};

/// The event names: what an operator filters on.
pub mod event {
    pub const TASK_CREATED: &str = "task.created";
    pub const STEP_STARTED: &str = "step.started";
    pub const STEP_FINISHED: &str = "step.finished";
    /// An attempt was lost (crash, eviction, deploy, a step past its lease) and the step
    /// runs again.
    pub const STEP_RETRIED: &str = "step.retried";
    pub const INPUT_REQUESTED: &str = "task.input_requested";
    pub const INPUT_ANSWERED: &str = "task.input_answered";
    pub const TASK_COMPLETED: &str = "task.completed";
    pub const TASK_FAILED: &str = "task.failed";
    pub const TASK_CANCELLED: &str = "task.cancelled";
    pub const TASK_EXPIRED: &str = "task.expired";
    /// Printed by the JS panic guard (`src/cloudflare/guard.js`), in this format.
    pub const PANIC: &str = "panic";
    pub const AUTH_REFUSED: &str = "auth.refused";
    pub const QUOTA_REFUSED: &str = "quota.refused";
    pub const SESSION_OPENED: &str = "session.opened";
    pub const SESSION_ENDED: &str = "session.ended";
    /// Every request of an operator (`ops::admin`), allowed or not.
    pub const ADMIN: &str = "admin";
    /// Something went wrong that the request it happened in does not report (a best-effort
    /// release that failed, an index entry that could not be written).
    pub const WARNING: &str = "warning";
}

/// The line for a recorded transition of `after` (see [`crate::tasks::timeline::note`]); `None` for
/// what `step.finished` already says. Every line names the owner (its fingerprint); the
/// terminal ones (completed, failed, cancelled) carry the task's whole `durationMs`, from
/// its creation to the transition.
pub fn transition(entry: &Entry, after: &TaskRecord, request_id: Option<&str>) -> Option<Line> {
    let line = |event, level| {
        Line::new(event, level)
            .task(after.task_id(), after.tool())
            .attempt(entry.attempt)
            .principal(after.owner())
            .request_id(request_id)
    };
    let total = |line: Line| line.duration_ms(entry.at_ms.saturating_sub(after.created_at_ms()));
    Some(match entry.event {
        Kind::Progressed => return None,
        Kind::Created => {
            let created = line(event::TASK_CREATED, Level::Info);
            // A task created asking (`Tool::ask_in_task`) says so here: its first question
            // has no `task.input_requested` line of its own.
            let created = match after.status() {
                TaskStatus::InputRequired { input_requests } => created
                    .field("status", after.status().name())
                    .field("inputs", input_requests.len()),
                _ => created,
            };
            created.payload("arguments", Value::Object(after.arguments().clone()))
        }
        Kind::Retried => line(event::STEP_RETRIED, Level::Warn)
            .error(entry.message.as_deref().unwrap_or("an attempt was lost")),
        Kind::InputRequested => {
            let requests = match after.status() {
                TaskStatus::InputRequired { input_requests } => input_requests.clone(),
                _ => Map::new(),
            };
            line(event::INPUT_REQUESTED, Level::Info)
                .field("inputs", requests.len())
                .payload("inputRequests", Value::Object(requests))
        }
        Kind::InputAnswered => line(event::INPUT_ANSWERED, Level::Info)
            .field("status", after.status().name())
            .payload("answers", Value::Object(after.answers().clone())),
        Kind::Completed => {
            let result = match after.status() {
                TaskStatus::Completed { result } => result.clone(),
                _ => Value::Null,
            };
            let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
            total(line(event::TASK_COMPLETED, Level::Info))
                .field("isError", is_error)
                .payload("result", result)
        }
        Kind::Failed => {
            let (message, code) = entry
                .error
                .as_ref()
                .map_or(("", 0), |e| (e.message.as_str(), e.code.0));
            total(line(event::TASK_FAILED, Level::Error))
                .error(message)
                .field("code", code)
        }
        Kind::Cancelled => {
            let by = match after.status_message() {
                Some(CANCELLED_BY_OPERATOR) => "operator",
                _ => "owner",
            };
            total(line(event::TASK_CANCELLED, Level::Info)).field("by", by)
        }
    })
}

/// `step.started` when the write `after` takes a lease for a step.
pub fn lease_taken(before: Option<&TaskRecord>, after: &TaskRecord) -> Option<Line> {
    let taken = after.lease()?;
    if before.and_then(|b| b.lease()) == Some(taken) {
        return None;
    }
    Some(
        Line::new(event::STEP_STARTED, Level::Debug)
            .task(after.task_id(), after.tool())
            .attempt(Some(taken.attempt))
            .principal(after.owner()),
    )
}

/// `step.started` for a step the Worker runs itself: an inline run, or a task's first
/// steps, which run before the task exists (no `taskId` then: the line's `requestId` is
/// the one of the `task.created` line). `principal` is the caller.
pub fn inline_step_started(tool: &str, principal: &str) -> Line {
    Line::new(event::STEP_STARTED, Level::Debug)
        .tool(tool)
        .attempt(Some(1))
        .principal(principal)
        .field("inline", true)
}

/// An inline run's last step that took at least this long is logged at info: the slow
/// calls are the ones an operator asks about.
pub const SLOW_INLINE_STEP_MS: u64 = 1_000;

/// How loud `step.finished` is for a step the Worker ran itself. A synchronous call is
/// already in Workers' own invocation log (its URL, status, wall and CPU time), so a line
/// of ours is worth its cost (a billed event on Cloudflare; under `wrangler dev` a third of
/// a fast call's throughput, docs/benchmarks.md) only when it says more: a failed step is
/// warn, a tool's `isError` result and a slow step ([`SLOW_INLINE_STEP_MS`]) info; a fast
/// step that completed or asked, and one the run goes on after (`continued`: another
/// inline step, or the task it becomes, whose `task.created` follows), debug.
pub fn inline_step_level(outcome: &str, duration_ms: u64) -> Level {
    match outcome {
        "failed" => Level::Warn,
        "error_result" => Level::Info,
        "continued" => Level::Debug,
        _ if duration_ms >= SLOW_INLINE_STEP_MS => Level::Info,
        _ => Level::Debug,
    }
}

/// `step.finished` for a step the Worker ran itself ([`inline_step_started`]): it
/// returned `outcome` ([`step_outcome`]) after `duration_ms`, at [`inline_step_level`].
pub fn inline_step_finished(
    tool: &str,
    principal: &str,
    outcome: &'static str,
    duration_ms: u64,
) -> Line {
    Line::new(
        event::STEP_FINISHED,
        inline_step_level(outcome, duration_ms),
    )
    .tool(tool)
    .attempt(Some(1))
    .duration_ms(duration_ms)
    .principal(principal)
    .field("outcome", outcome)
    .field("inline", true)
}

/// A `step.finished` of an upstream's tool (`crate::gateway`) names the upstream and is
/// printed at info at least: each upstream call is a line an operator reads (which
/// upstream, which tool, how long, what came of it).
pub fn of_upstream(line: Line, upstream: Option<&str>) -> Line {
    match upstream {
        Some(name) => line.at_least(Level::Info).field("upstream", name),
        None => line,
    }
}

/// What a step returned, as `step.finished` names it.
pub fn step_outcome(step: &Step) -> &'static str {
    match step {
        Step::Complete(result) if result.get("isError") == Some(&Value::Bool(true)) => {
            "error_result"
        }
        Step::Complete(_) => "completed",
        Step::Continue { .. } => "continued",
        Step::NeedInput(_) | Step::NeedInputAt { .. } => "input_required",
        Step::Fail(_) => StatusKind::Failed.name(),
    }
}

/// `step.finished`: attempt `attempt` returned `outcome` ([`step_outcome`]) after
/// `duration_ms`; `applied` is false when a cancel or a newer attempt won over it (the
/// outcome is then `dropped`). Debug: what a task's step changed has its own line (the
/// transition's: `task.completed`, `task.failed`, `task.input_requested`, or the
/// `task.cancelled` that won), and a step that continues changes nothing an operator
/// queries. With Workers Logs every line is a billed event (docs/operations.md).
pub fn step_finished(
    record: &TaskRecord,
    attempt: u32,
    outcome: &'static str,
    duration_ms: u64,
    applied: bool,
) -> Line {
    let outcome = if applied { outcome } else { "dropped" };
    Line::new(event::STEP_FINISHED, Level::Debug)
        .task(record.task_id(), record.tool())
        .attempt(Some(attempt))
        .duration_ms(duration_ms)
        .principal(record.owner())
        .field("outcome", outcome)
}

/// `task.expired`: the task reached its TTL and its storage is erased.
pub fn expired(record: &TaskRecord) -> Line {
    Line::new(event::TASK_EXPIRED, Level::Info)
        .task(record.task_id(), record.tool())
        .principal(record.owner())
        .field("status", record.status().name())
}

/// `auth.refused` or `quota.refused` for a refusal the Worker answers; `None` for any
/// other error. `principal` is the caller, when known.
pub fn refused(
    error: &McpError,
    principal: Option<&str>,
    request_id: Option<&str>,
) -> Option<Line> {
    let line = match error {
        McpError::Unauthorized { error: kind, .. } => {
            let reason = match kind {
                None => "no_credentials",
                Some(kind) => *kind,
            };
            Line::new(event::AUTH_REFUSED, Level::Warn)
                .field("reason", reason)
                .field("status", 401)
        }
        McpError::InsufficientScope { .. } => Line::new(event::AUTH_REFUSED, Level::Warn)
            .field("reason", "insufficient_scope")
            .field("status", 403),
        McpError::TooManyRequests { limit, max, .. } => {
            Line::new(event::QUOTA_REFUSED, Level::Warn)
                .field("limit", *limit)
                .field("max", *max)
        }
        _ => return None,
    };
    let line = line.request_id(request_id).error(&error.to_wire().message);
    Some(match principal {
        Some(principal) => line.principal(principal),
        None => line,
    })
}

/// `session.opened` / `session.ended` (`reason`: `deleted` by the client, `idle`).
pub fn session(
    event: &'static str,
    session_id: &str,
    principal: &str,
    reason: Option<&str>,
) -> Line {
    let line = Line::new(event, Level::Info)
        .principal(principal)
        .field("session", fingerprint(session_id));
    match reason {
        Some(reason) => line.field("reason", reason),
        None => line,
    }
}

/// A `warning`: what failed, besides the request it happened in.
pub fn warning(message: &str) -> Line {
    Line::new(event::WARNING, Level::Warn).error(message)
}
