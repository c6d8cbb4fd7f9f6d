//! Following a job (pure): the adapter feeds each state the task object pushes (or a read
//! returns), and the follower says what to do: report progress, ask, answer, or wait.
//! The loop around it is `server::wait`'s, for every platform (and a session object's
//! `tasks/result` for 2025-11-25 clients).

use super::results;
use super::{JobRun, Reader};
use crate::error::McpError;
use crate::http::HttpResponse;
use crate::jsonrpc::ErrorObject;
use crate::mcp::input;
use crate::server::{error_response, result_response};
use crate::tasks::record::task_facts;
use crate::tasks::task::{RESULT_COMPLETE, TaskStatus};
use crate::tools::Report;
use serde_json::{Map, Value};

/// What the adapter does after a state.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Nothing new: wait for the next state (or the end of the wait).
    Wait,
    /// Send `notifications/progress` with this report, then wait.
    Progress(Report),
    /// Ask the client these questions (when it can be asked: MRTR, or a 2025-11-25
    /// session's stream), then send the answers to the job as `tasks/update` would.
    Ask(Map<String, Value>),
    /// Answer the request with this response; the follow is over.
    Answer(HttpResponse),
}

/// The follower of one job for one request.
#[derive(Debug)]
pub struct Follow<'a> {
    run: &'a JobRun,
    /// Whether a question can reach the client during this request (the adapter knows:
    /// MRTR needs a signing key, a session a response stream); the client must also
    /// have declared what the question needs.
    asks: bool,
    /// The `progress` of the last notification sent (or of the steps' own reports before
    /// the job existed): the next goes above it.
    reported: f64,
    last_message: Option<String>,
    /// The newest state seen, for the answer when the wait is over.
    last: Option<Value>,
}

impl<'a> Follow<'a> {
    /// `asks`: the adapter can put a question to the client during this request (MRTR
    /// with a signing key; a session on its response stream).
    pub fn new(run: &'a JobRun, asks: bool) -> Follow<'a> {
        Follow {
            run,
            asks,
            reported: run.reported,
            last_message: None,
            last: None,
        }
    }

    /// What to do after the task's state `task` (a `DetailedTask`, as `tasks/get` or a
    /// push carries it). A state that does not decode answers an internal error naming
    /// why (invariant 5).
    pub fn state(&mut self, task: Value) -> Vec<Next> {
        let status = match TaskStatus::of_task(&task) {
            Ok(status) => status,
            Err(e) => return vec![Next::Answer(self.error(&e))],
        };
        let message = task
            .get("statusMessage")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut next = Vec::new();
        if self.run.progress_token.is_some()
            && !status.is_terminal()
            && let Some(report) = self.report(&task, &message)
        {
            self.reported = report.progress;
            next.push(Next::Progress(report));
        }
        self.last_message = message;
        next.push(match status {
            TaskStatus::Working => Next::Wait,
            TaskStatus::InputRequired { input_requests }
                if self.asks
                    && input::check_capabilities(&input_requests, &self.run.capabilities)
                        .is_ok() =>
            {
                Next::Ask(input_requests)
            }
            // Nobody to ask here: the handle tools are the way (the answer says how).
            TaskStatus::InputRequired { .. } => {
                Next::Answer(self.ok(results::pending(self.run, &task)))
            }
            TaskStatus::Completed { result } => Next::Answer(self.completed(result, &task)),
            TaskStatus::Failed { error } => Next::Answer(self.failed(error, &task)),
            TaskStatus::Cancelled => Next::Answer(self.ok(results::cancelled(self.run, &task))),
        });
        self.last = Some(task);
        next
    }

    /// The notification a state makes, if any: the task's own numbers when its steps
    /// report them (`_meta["mcp-tasks-edge/task"]`) and they went up; else, for a new
    /// status message, the next whole number with the message as its text.
    fn report(&self, task: &Value, message: &Option<String>) -> Option<Report> {
        let facts = task_facts(task);
        let number = |name: &str| facts.and_then(|f| f.get(name)).and_then(Value::as_f64);
        match number("progress") {
            Some(progress) => (progress > self.reported).then(|| Report {
                progress,
                total: number("total"),
                message: message.clone(),
            }),
            None => (message.is_some() && *message != self.last_message).then(|| Report {
                progress: self.reported.floor() + 1.0,
                total: None,
                message: message.clone(),
            }),
        }
    }

    /// The wait is over and the job still runs: the answer that says so (with its last
    /// state, if any was seen).
    pub fn waited(&self) -> HttpResponse {
        let task = self.last.clone().unwrap_or(Value::Null);
        self.ok(results::pending(self.run, &task))
    }

    /// The task object refused a request about the job (`first`, a read or a watch): an
    /// unknown, foreign or expired job, or answers that do not fit its questions, as a
    /// tool error naming the rule.
    pub fn refused(&self, error: &ErrorObject) -> HttpResponse {
        self.ok(results::refused(self.run, error))
    }

    /// The task object could not be reached at all: an internal error naming why.
    pub fn unreachable(&self, why: &str) -> HttpResponse {
        self.error(&McpError::Internal(format!(
            "job storage unavailable: {why}"
        )))
    }

    fn completed(&self, result: Value, task: &Value) -> HttpResponse {
        match self.run.reader {
            // The ordinary result, as if the call had run inline.
            Reader::Call { .. } => {
                let mut result = result;
                if let Some(object) = result.as_object_mut() {
                    object.insert("resultType".into(), RESULT_COMPLETE.into());
                }
                result_response(&self.run.request_id, &result, &self.run.envelope)
            }
            Reader::Handle => self.ok(results::finished(self.run, result, task)),
        }
    }

    fn failed(&self, error: ErrorObject, task: &Value) -> HttpResponse {
        match self.run.reader {
            // The call's own error, as inline.
            Reader::Call { .. } => self.error(&McpError::Wire(error)),
            Reader::Handle => self.ok(results::failed(self.run, &error, task)),
        }
    }

    fn ok(&self, result: Value) -> HttpResponse {
        result_response(&self.run.request_id, &result, &self.run.envelope)
    }

    fn error(&self, error: &McpError) -> HttpResponse {
        error_response(Some(&self.run.request_id), error, &self.run.envelope)
    }
}
