//! Structured logs: one JSON object per line, so Workers Logs (`[observability] enabled =
//! true`) indexes every field and `wrangler tail` shows them as they happen. This module
//! owns the vocabulary ([`event`]) and the format; the adapters only print what
//! [`Line::render`] returns.
//!
//! # Format
//!
//! ```text
//! {"event":"task.failed","level":"error","taskId":"3f0c…","tool":"http_job","attempt":2,"principal":"9a1b2c3d4e5f6071","error":"…","code":-32603}
//! ```
//!
//! `event` and `level` come first, then the common fields in this order when present:
//! `taskId`, `tool`, `attempt`, `durationMs`, `principal`, `requestId`, `error`; then the
//! event's own fields. `principal` is always a [`fingerprint`], never a token, a key or
//! the principal itself. Arguments, results, answers and input requests are never logged
//! unless `LOG_PAYLOADS=true` (a debugging setting: docs/operations.md).

use crate::error::McpError;
use crate::tasks::object::CANCELLED_BY_OPERATOR;
use crate::tasks::record::TaskRecord;
use crate::tasks::task::TaskStatus;
use crate::tasks::timeline::{self, Entry, Kind};
use crate::tools::Step;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

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
    /// Printed by the JS panic guard (`src/cloudflare/entry.mjs`), in this format.
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug,
    Info,
    Warn,
    Error,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

/// What is logged (`LOG_LEVEL`, `LOG_PAYLOADS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogSettings {
    /// Lines below this level are not printed.
    pub level: Level,
    /// Also log arguments, results, answers and input requests (debugging only: they
    /// are the callers' data).
    pub payloads: bool,
}

impl Default for LogSettings {
    fn default() -> Self {
        LogSettings {
            level: Level::Info,
            payloads: false,
        }
    }
}

impl LogSettings {
    /// These settings with `LOG_LEVEL` and `LOG_PAYLOADS` applied; a malformed value is
    /// an error naming the variable.
    pub fn with_vars(mut self, get: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        if let Some(v) = get("LOG_LEVEL") {
            self.level = match v.trim().to_ascii_lowercase().as_str() {
                "debug" => Level::Debug,
                "info" | "" => Level::Info,
                "warn" | "warning" => Level::Warn,
                "error" => Level::Error,
                other => {
                    return Err(format!(
                        "LOG_LEVEL must be debug, info, warn or error, got {other:?}"
                    ));
                }
            };
        }
        if let Some(v) = get("LOG_PAYLOADS") {
            self.payloads = match v.trim() {
                "true" | "1" => true,
                "false" | "0" | "" => false,
                other => return Err(format!("LOG_PAYLOADS must be true or false, got {other:?}")),
            };
        }
        Ok(self)
    }
}

/// A principal's (or a session's) fingerprint: the first 16 hex digits of the SHA-256 of
/// its name. Stable across deploys, so an operator finds a caller's lines with
/// `printf %s 'key:alice' | sha256sum | cut -c1-16`; it reveals nothing of a token or key.
pub fn fingerprint(name: &str) -> String {
    Sha256::digest(name.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One log line being built.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    event: &'static str,
    level: Level,
    task_id: Option<String>,
    tool: Option<String>,
    attempt: Option<u32>,
    duration_ms: Option<u64>,
    principal: Option<String>,
    request_id: Option<String>,
    error: Option<String>,
    fields: Map<String, Value>,
    payloads: Map<String, Value>,
}

impl Line {
    pub fn new(event: &'static str, level: Level) -> Line {
        Line {
            event,
            level,
            task_id: None,
            tool: None,
            attempt: None,
            duration_ms: None,
            principal: None,
            request_id: None,
            error: None,
            fields: Map::new(),
            payloads: Map::new(),
        }
    }

    pub fn event(&self) -> &'static str {
        self.event
    }

    pub fn level(&self) -> Level {
        self.level
    }

    pub fn task(mut self, task_id: &str, tool: &str) -> Line {
        self.task_id = Some(task_id.to_owned());
        self.tool = Some(tool.to_owned());
        self
    }

    pub fn attempt(mut self, attempt: Option<u32>) -> Line {
        self.attempt = attempt;
        self
    }

    pub fn duration_ms(mut self, ms: u64) -> Line {
        self.duration_ms = Some(ms);
        self
    }

    /// The principal, as its [`fingerprint`].
    pub fn principal(mut self, principal: &str) -> Line {
        self.principal = Some(fingerprint(principal));
        self
    }

    pub fn request_id(mut self, request_id: Option<&str>) -> Line {
        self.request_id = request_id.map(str::to_owned);
        self
    }

    /// Why it failed or was refused (cut to [`timeline::MAX_MESSAGE_CHARS`]).
    pub fn error(mut self, message: &str) -> Line {
        self.error = Some(timeline::clip(message));
        self
    }

    /// An event's own field (never a caller's data: see [`Line::payload`]).
    pub fn field(mut self, name: &str, value: impl Into<Value>) -> Line {
        self.fields.insert(name.to_owned(), value.into());
        self
    }

    /// A caller's data (arguments, a result, answers): printed only with `LOG_PAYLOADS`.
    pub fn payload(mut self, name: &str, value: Value) -> Line {
        self.payloads.insert(name.to_owned(), value);
        self
    }

    /// The line to print, or `None` below the configured level.
    pub fn render(&self, settings: &LogSettings) -> Option<String> {
        if self.level < settings.level {
            return None;
        }
        let mut out = String::with_capacity(160);
        out.push('{');
        push(&mut out, "event", &Value::from(self.event));
        push(&mut out, "level", &Value::from(self.level.name()));
        let common = [
            ("taskId", self.task_id.clone().map(Value::from)),
            ("tool", self.tool.clone().map(Value::from)),
            ("attempt", self.attempt.map(Value::from)),
            ("durationMs", self.duration_ms.map(Value::from)),
            ("principal", self.principal.clone().map(Value::from)),
            ("requestId", self.request_id.clone().map(Value::from)),
            ("error", self.error.clone().map(Value::from)),
        ];
        for (name, value) in common {
            if let Some(value) = value {
                push(&mut out, name, &value);
            }
        }
        for (name, value) in &self.fields {
            push(&mut out, name, value);
        }
        if settings.payloads {
            for (name, value) in &self.payloads {
                push(&mut out, name, value);
            }
        }
        out.push('}');
        Some(out)
    }
}

fn push(out: &mut String, name: &str, value: &Value) {
    if out.len() > 1 {
        out.push(',');
    }
    out.push_str(&Value::from(name).to_string());
    out.push(':');
    out.push_str(&value.to_string());
}

/// The line for a recorded transition of `after` (see [`timeline::note`]); `None` for
/// what `step.finished` already says.
pub fn transition(entry: &Entry, after: &TaskRecord, request_id: Option<&str>) -> Option<Line> {
    let line = |event, level| {
        Line::new(event, level)
            .task(&after.task_id, &after.tool)
            .attempt(entry.attempt)
            .request_id(request_id)
    };
    Some(match entry.event {
        Kind::Progressed => return None,
        Kind::Created => line(event::TASK_CREATED, Level::Info)
            .principal(&after.owner)
            .payload("arguments", Value::Object(after.arguments.clone())),
        Kind::Retried => line(event::STEP_RETRIED, Level::Warn)
            .error(entry.message.as_deref().unwrap_or("an attempt was lost")),
        Kind::InputRequested => {
            let requests = match &after.status {
                TaskStatus::InputRequired { input_requests } => input_requests.clone(),
                _ => Map::new(),
            };
            line(event::INPUT_REQUESTED, Level::Info)
                .field("inputs", requests.len())
                .payload("inputRequests", Value::Object(requests))
        }
        Kind::InputAnswered => line(event::INPUT_ANSWERED, Level::Info)
            .principal(&after.owner)
            .field("status", after.status.name())
            .payload("answers", Value::Object(after.answers.clone())),
        Kind::Completed => {
            let result = match &after.status {
                TaskStatus::Completed { result } => result.clone(),
                _ => Value::Null,
            };
            let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
            line(event::TASK_COMPLETED, Level::Info)
                .field("isError", is_error)
                .payload("result", result)
        }
        Kind::Failed => {
            let (message, code) = entry
                .error
                .as_ref()
                .map_or(("", 0), |e| (e.message.as_str(), e.code.0));
            line(event::TASK_FAILED, Level::Error)
                .error(message)
                .field("code", code)
        }
        Kind::Cancelled => {
            let by = match after.status_message.as_deref() {
                Some(CANCELLED_BY_OPERATOR) => "operator",
                _ => "owner",
            };
            line(event::TASK_CANCELLED, Level::Info)
                .principal(&after.owner)
                .field("by", by)
        }
    })
}

/// `step.started` when the write `after` takes a lease for a step.
pub fn lease_taken(before: Option<&TaskRecord>, after: &TaskRecord) -> Option<Line> {
    let taken = after.lease?;
    if before.and_then(|b| b.lease) == Some(taken) {
        return None;
    }
    Some(
        Line::new(event::STEP_STARTED, Level::Debug)
            .task(&after.task_id, &after.tool)
            .attempt(Some(taken.attempt)),
    )
}

/// What a step returned, as `step.finished` names it.
pub fn step_outcome(step: &Step) -> &'static str {
    match step {
        Step::Complete(result) if result.get("isError") == Some(&Value::Bool(true)) => {
            "error_result"
        }
        Step::Complete(_) => "completed",
        Step::Continue { .. } => "continued",
        Step::NeedInput(_) => "input_required",
        Step::Fail(_) => "failed",
    }
}

/// `step.finished`: attempt `attempt` returned `outcome` ([`step_outcome`]) after
/// `duration_ms`; `applied` is false when a cancel or a newer attempt won over it (the
/// outcome is then `dropped`).
pub fn step_finished(
    record: &TaskRecord,
    attempt: u32,
    outcome: &'static str,
    duration_ms: u64,
    applied: bool,
) -> Line {
    let outcome = if applied { outcome } else { "dropped" };
    let level = match outcome {
        "failed" => Level::Warn,
        _ => Level::Info,
    };
    Line::new(event::STEP_FINISHED, level)
        .task(&record.task_id, &record.tool)
        .attempt(Some(attempt))
        .duration_ms(duration_ms)
        .field("outcome", outcome)
}

/// `task.expired`: the task reached its TTL and its storage is erased.
pub fn expired(record: &TaskRecord) -> Line {
    Line::new(event::TASK_EXPIRED, Level::Info)
        .task(&record.task_id, &record.tool)
        .principal(&record.owner)
        .field("status", record.status.name())
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
