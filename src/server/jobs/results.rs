//! The `CallToolResult`s a job's reader gets. A model reads them, so the text says what
//! happened and what to call next; `structuredContent` (and `_meta`, under
//! [`JOB_META`]) carry the same facts, a one-sentence `message` and the next calls with
//! their exact arguments, since some hosts show their model `structuredContent` alone
//! (Claude Code does).
//!
//! # Format
//!
//! ```text
//! {"content":[{"type":"text","text":"process_batch needs more time than … job_status …"}],
//!  "structuredContent":{"job":"3f0c…","status":"working","statusMessage":"Processed 4/90 items",
//!     "tool":"process_batch","message":"process_batch goes on as job 3f0c…; nothing is lost. …",
//!     "next":[{"tool":"job_status","arguments":{"job":"3f0c…","waitSeconds":30}},
//!             {"tool":"job_cancel","arguments":{"job":"3f0c…"}}]},
//!  "_meta":{"mcp-tasks-edge/job":{…the same…}},"isError":false,"resultType":"complete"}
//! ```
//!
//! A tool with an `outputSchema` is listed to clients that get jobs with that schema in
//! `_meta` instead (`jobs::listed_for_jobs`), so its running answer is no error either.

use super::{ANSWER_TOOL, CANCEL_TOOL, JobRun, Reader, STATUS_TOOL};
use crate::error::McpError;
use crate::jsonrpc::{self, Empty, ErrorObject, ErrorSummary, OneEntry};
use crate::mcp::TextContent;
use crate::tasks::task::RESULT_COMPLETE;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// This server's `_meta` key for the job facts of a result.
pub const JOB_META: &str = "mcp-tasks-edge/job";

/// A job's `CallToolResult`: its text, and its facts both as `structuredContent` and
/// under `_meta`'s [`JOB_META`].
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JobResult<'a> {
    content: [TextContent<'a>; 1],
    #[serde(rename = "_meta")]
    meta: OneEntry<'a, &'a Facts<'a>>,
    is_error: bool,
    result_type: &'static str,
    structured_content: &'a Facts<'a>,
}

/// What the result says of the job (the `# Format` above).
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct Facts<'a> {
    job: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status_message: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_requests: Option<&'a Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<JobError<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    next: Vec<Next<'a>>,
}

/// A failed job's error, or the rule a refused request broke.
#[derive(Serialize)]
#[serde(untagged)]
enum JobError<'a> {
    Failed(ErrorSummary<'a>),
    Rule(&'static str),
}

/// A call the model can make next, with its exact arguments.
#[derive(Serialize)]
struct Next<'a> {
    tool: &'static str,
    arguments: Arguments<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Arguments<'a> {
    job: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    wait_seconds: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    answers: Option<Template<'a>>,
}

/// `{"action": "accept", "content": {}}`: an answer for the model to fill in.
#[derive(Serialize)]
struct Accept {
    action: &'static str,
    content: Empty,
}

/// `job_answer`'s `answers` to fill in: an [`Accept`] under each question's key.
struct Template<'a>(&'a Map<String, Value>);

impl Serialize for Template<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let accept = Accept {
            action: "accept",
            content: Empty {},
        };
        serializer.collect_map(self.0.keys().map(|key| (key, &accept)))
    }
}

fn result(text: &str, facts: &Facts, is_error: bool) -> Value {
    jsonrpc::payload(&JobResult {
        content: [TextContent::new(text)],
        meta: OneEntry(JOB_META, facts),
        is_error,
        result_type: RESULT_COMPLETE,
        structured_content: facts,
    })
}

/// What a finished job's facts and texts call it.
fn subject(run: &JobRun) -> String {
    match &run.reader {
        Reader::Call { tool, .. } => format!("The job of {tool} ({})", run.job),
        Reader::Handle => format!("Job {}", run.job),
    }
}

/// The job's facts: handle, status, last message, the tool (when this reader knows it).
fn facts<'a>(run: &'a JobRun, task: &'a Value, status: &'static str) -> Facts<'a> {
    Facts {
        job: &run.job,
        status: Some(status),
        status_message: task.get("statusMessage").filter(|m| m.is_string()),
        tool: match &run.reader {
            Reader::Call { tool, .. } => Some(tool.as_str()),
            Reader::Handle => None,
        },
        ..Facts::default()
    }
}

/// A job that has not ended: working, or waiting for answers nobody could give during
/// this request. Never an error: the job goes on, and the answer says how to reach it.
pub fn pending(run: &JobRun, task: &Value) -> Value {
    let job = &run.job;
    let wait = run.max_wait_s;
    let status_call =
        format!("call {STATUS_TOOL} with {{\"job\": \"{job}\", \"waitSeconds\": {wait}}}");
    let cancel_call = format!("call {CANCEL_TOOL} with {{\"job\": \"{job}\"}}");
    let call = |tool, wait_seconds, answers| Next {
        tool,
        arguments: Arguments {
            job,
            wait_seconds,
            answers,
        },
    };
    let questions = task
        .get("inputRequests")
        .and_then(Value::as_object)
        .filter(|q| !q.is_empty());
    let mut facts = facts(
        run,
        task,
        if questions.is_some() {
            "input_required"
        } else {
            "working"
        },
    );
    let (opening, name) = match &run.reader {
        Reader::Call { tool, .. } => (
            format!(
                "{tool} needs more time than one call waits: it goes on as a job on the server, nothing is lost. Its handle is {job}."
            ),
            tool.clone(),
        ),
        Reader::Handle => (
            format!("Job {job} has not finished yet."),
            format!("Job {job}"),
        ),
    };
    let (text, message) = match questions {
        None => {
            let status = match task.get("statusMessage").and_then(Value::as_str) {
                Some(message) => format!(" Its latest status: {message}."),
                None => String::new(),
            };
            (
                format!(
                    "{opening}{status} For its result, {status_call} (again while it runs). To stop it, {cancel_call}."
                ),
                format!(
                    "{name} goes on as job {job}; nothing is lost. For its result make the first call of next (again while it runs); the second stops it."
                ),
            )
        }
        Some(questions) => {
            facts.input_requests = Some(questions);
            facts
                .next
                .push(call(ANSWER_TOOL, None, Some(Template(questions))));
            let asked: Vec<String> = questions.iter().map(|(k, q)| question(k, q)).collect();
            let key = questions.keys().next().cloned().unwrap_or_default();
            (
                format!(
                    "{opening} It waits for an answer.\n{}\nAnswer with {ANSWER_TOOL}: {{\"job\": \"{job}\", \"answers\": {{\"{key}\": {{\"action\": \"accept\", \"content\": {{…the fields asked…}}}}}}}} (or {{\"action\": \"decline\"}}). Ask the user rather than guessing. To stop the job, {cancel_call}.",
                    asked.join("\n")
                ),
                format!(
                    "{name} (job {job}) waits for an answer to inputRequests: ask the user, then make the first call of next with the fields asked in each content (or \"action\": \"decline\"); nothing is lost meanwhile."
                ),
            )
        }
    };
    facts.next.push(call(STATUS_TOOL, Some(wait), None));
    facts.next.push(call(CANCEL_TOOL, None, None));
    facts.message = Some(message.as_str());
    result(&text, &facts, false)
}

/// One question as a line a model can act on.
fn question(key: &str, request: &Value) -> String {
    let params = &request["params"];
    match request["method"].as_str() {
        Some("elicitation/create") if params["mode"] == "url" => format!(
            "- \"{key}\": {} Open {} (the user must do this), then answer {{\"action\": \"accept\"}}.",
            params["message"].as_str().unwrap_or_default(),
            params["url"].as_str().unwrap_or_default()
        ),
        Some("elicitation/create") => format!(
            "- \"{key}\": {} Fields (JSON Schema): {}",
            params["message"].as_str().unwrap_or_default(),
            params["requestedSchema"]
        ),
        Some(method) => format!("- \"{key}\": a {method} request: {params}"),
        None => format!("- \"{key}\": {request}"),
    }
}

/// A job read by a handle tool after it completed: its own result, first saying so.
pub fn finished(run: &JobRun, mut job_result: Value, task: &Value) -> Value {
    let facts = jsonrpc::payload(&facts(run, task, "completed"));
    if let Some(object) = job_result.as_object_mut() {
        let said = format!("{} has completed:", subject(run));
        if let Some(Value::Array(content)) = object.get_mut("content") {
            content.insert(0, jsonrpc::payload(&TextContent::new(&said)));
        }
        let meta = object
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(JOB_META.into(), facts);
        }
        object.insert("resultType".into(), RESULT_COMPLETE.into());
    }
    job_result
}

/// A job read by a handle tool after it failed with a JSON-RPC error.
pub fn failed(run: &JobRun, error: &ErrorObject, task: &Value) -> Value {
    let facts = Facts {
        error: Some(JobError::Failed(error.summary())),
        ..facts(run, task, "failed")
    };
    let text = format!("{} failed: {}", subject(run), error.message);
    result(&text, &facts, true)
}

/// A cancelled job: for the call that started it, an error result (it has no result);
/// for a handle tool, the fact.
pub fn cancelled(run: &JobRun, task: &Value) -> Value {
    let facts = facts(run, task, "cancelled");
    let text = format!("{} was cancelled; it has no result.", subject(run));
    result(&text, &facts, matches!(run.reader, Reader::Call { .. }))
}

/// The task object refused a request about the job: unknown (never existed, expired, or
/// another caller's: the same answer, on purpose), or answers that do not fit.
pub fn refused(run: &JobRun, error: &ErrorObject) -> Value {
    let job = &run.job;
    let unknown = McpError::TaskNotFound.to_wire();
    let (rule, text) = if error.code == unknown.code && error.message == unknown.message {
        (
            "unknown_job",
            format!(
                "Unknown job {job}: no job with this handle exists for you (it may have expired, or the handle is mistyped)"
            ),
        )
    } else {
        (
            "refused",
            format!("Job {job} refused the request: {}", error.message),
        )
    };
    let facts = Facts {
        job,
        error: Some(JobError::Rule(rule)),
        message: Some(error.message.as_str()),
        ..Facts::default()
    };
    result(&text, &facts, true)
}

/// A handle that is not one this server could have made.
pub fn malformed(handle: &str) -> Value {
    let text = format!(
        "Malformed job handle {handle:?}: a handle is 32 lower-case hexadecimal characters."
    );
    let facts = Facts {
        job: handle,
        error: Some(JobError::Rule("malformed_handle")),
        ..Facts::default()
    };
    result(&text, &facts, true)
}
