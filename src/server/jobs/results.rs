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
use crate::jsonrpc::ErrorObject;
use crate::tasks::task::RESULT_COMPLETE;
use serde_json::{Map, Value, json};

/// This server's `_meta` key for the job facts of a result.
pub const JOB_META: &str = "mcp-tasks-edge/job";

fn result(text: String, facts: Value, is_error: bool, structured: bool) -> Value {
    let mut result = json!({
        "content": [{ "type": "text", "text": text }],
        "_meta": { JOB_META: facts.clone() },
        "isError": is_error,
        "resultType": RESULT_COMPLETE,
    });
    if structured {
        result["structuredContent"] = facts;
    }
    result
}

/// What a finished job's facts and texts call it.
fn subject(run: &JobRun) -> String {
    match &run.reader {
        Reader::Call { tool, .. } => format!("The job of {tool} ({})", run.job),
        Reader::Handle => format!("Job {}", run.job),
    }
}

/// The job's facts: handle, status, last message, the tool (when this reader knows it).
fn facts(run: &JobRun, task: &Value, status: &str) -> Map<String, Value> {
    let mut facts = Map::new();
    facts.insert("job".into(), run.job.clone().into());
    facts.insert("status".into(), status.into());
    if let Some(message) = task.get("statusMessage").filter(|m| m.is_string()) {
        facts.insert("statusMessage".into(), message.clone());
    }
    if let Reader::Call { tool, .. } = &run.reader {
        facts.insert("tool".into(), tool.clone().into());
    }
    facts
}

/// A job that has not ended: working, or waiting for answers nobody could give during
/// this request. Never an error: the job goes on, and the answer says how to reach it.
pub fn pending(run: &JobRun, task: &Value) -> Value {
    let job = &run.job;
    let wait = run.max_wait_s;
    let status_call =
        format!("call {STATUS_TOOL} with {{\"job\": \"{job}\", \"waitSeconds\": {wait}}}");
    let cancel_call = format!("call {CANCEL_TOOL} with {{\"job\": \"{job}\"}}");
    let status_next =
        json!({ "tool": STATUS_TOOL, "arguments": { "job": job, "waitSeconds": wait } });
    let cancel_next = json!({ "tool": CANCEL_TOOL, "arguments": { "job": job } });
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
            facts.insert("next".into(), json!([status_next, cancel_next]));
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
            facts.insert("inputRequests".into(), Value::Object(questions.clone()));
            let template: Map<String, Value> = questions
                .keys()
                .map(|key| (key.clone(), json!({ "action": "accept", "content": {} })))
                .collect();
            let answer_next =
                json!({ "tool": ANSWER_TOOL, "arguments": { "job": job, "answers": template } });
            facts.insert(
                "next".into(),
                json!([answer_next, status_next, cancel_next]),
            );
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
    facts.insert("message".into(), message.into());
    result(text, Value::Object(facts), false, true)
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
    let facts = Value::Object(facts(run, task, "completed"));
    if let Some(object) = job_result.as_object_mut() {
        let said = json!({ "type": "text", "text": format!("{} has completed:", subject(run)) });
        if let Some(Value::Array(content)) = object.get_mut("content") {
            content.insert(0, said);
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
    let mut facts = facts(run, task, "failed");
    facts.insert(
        "error".into(),
        json!({ "code": error.code, "message": error.message }),
    );
    let text = format!("{} failed: {}", subject(run), error.message);
    result(text, Value::Object(facts), true, true)
}

/// A cancelled job: for the call that started it, an error result (it has no result);
/// for a handle tool, the fact.
pub fn cancelled(run: &JobRun, task: &Value) -> Value {
    let facts = Value::Object(facts(run, task, "cancelled"));
    let text = format!("{} was cancelled; it has no result.", subject(run));
    match &run.reader {
        Reader::Call { .. } => result(text, facts, true, true),
        Reader::Handle => result(text, facts, false, true),
    }
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
    let facts = json!({ "job": job, "error": rule, "message": error.message });
    result(text, facts, true, true)
}

/// A handle that is not one this server could have made.
pub fn malformed(handle: &str) -> Value {
    let text = format!(
        "Malformed job handle {handle:?}: a handle is 32 lower-case hexadecimal characters."
    );
    let facts = json!({ "job": handle, "error": "malformed_handle" });
    result(text, facts, true, true)
}
