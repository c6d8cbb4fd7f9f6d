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

mod events;

pub use events::*;

use crate::tasks::timeline;
use crate::vars::{ConfigError, flag};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

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
    /// Whether a line at `level` is printed: a caller can skip building one that is not.
    pub fn prints(&self, level: Level) -> bool {
        level >= self.level
    }

    /// These settings with `LOG_LEVEL` and `LOG_PAYLOADS` applied; a malformed value is
    /// an error naming the variable.
    pub fn with_vars(mut self, get: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        if let Some(v) = get("LOG_LEVEL") {
            self.level = match v.trim().to_ascii_lowercase().as_str() {
                "debug" => Level::Debug,
                "info" | "" => Level::Info,
                "warn" | "warning" => Level::Warn,
                "error" => Level::Error,
                other => {
                    return Err(ConfigError::new(
                        "LOG_LEVEL",
                        format!("LOG_LEVEL must be debug, info, warn or error, got {other:?}"),
                    ));
                }
            };
        }
        if let Some(v) = get("LOG_PAYLOADS") {
            self.payloads = flag("LOG_PAYLOADS", &v)?;
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

    /// The same line, at `level` if it was quieter.
    pub fn at_least(mut self, level: Level) -> Line {
        self.level = self.level.max(level);
        self
    }

    pub fn task(mut self, task_id: &str, tool: &str) -> Line {
        self.task_id = Some(task_id.to_owned());
        self.tool = Some(tool.to_owned());
        self
    }

    /// The tool, for a line without a task (a step the Worker runs inline).
    pub fn tool(mut self, tool: &str) -> Line {
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
