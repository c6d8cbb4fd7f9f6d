//! `http_job`: any external job API that follows the asynchronous request-reply pattern
//! becomes a durable task.
//!
//! # The pattern
//!
//! ```text
//! POST startUrl  {body}           → 202 Accepted, Location: /jobs/7, Retry-After: 2
//! GET  /jobs/7                    → {"status":"running","message":"step 1/3"}   (task: working)
//! GET  /jobs/7                    → {"status":"succeeded","result":{…}}         (task: completed)
//! DELETE /jobs/7                  ← sent when the task is cancelled
//! POST startUrl → 200 {"status":"succeeded",…}   completes inline, no task
//! ```

use super::support::{excerpt, retry_after};
use mcp_tasks_edge::prelude::*;

/// Consecutive unusable status answers (5xx, not JSON, unreachable) before giving up.
const MAX_FAILURES: u32 = 3;

/// Arguments of `http_job`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JobArgs {
    /// The URL to POST the job to; its host must be in FETCH_ALLOWED_HOSTS.
    pub start_url: String,
    /// The job's input, sent as the JSON body (default: {}).
    #[serde(default)]
    pub body: Option<Value>,
}

/// The checkpoint: where the job's status lives and how many polls in a row failed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Job {
    // The feature `changed-checkpoint` stands for a later deploy that renamed this field:
    // the redeploy test (tests/e2e/redeploy.test.mjs) builds with it.
    #[cfg_attr(feature = "changed-checkpoint", serde(rename = "pollUrl"))]
    status_url: String,
    failures: u32,
}

/// A status document.
#[derive(Debug, Deserialize)]
struct Status {
    status: String,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    result: Option<Value>,
}

pub fn tool() -> Tool {
    Tool::new(
        "http_job",
        "Starts a job on an external API that follows the asynchronous request-reply pattern (POST → 202 + Location, then GET the status URL until it reports succeeded, failed or cancelled) and follows it as a task. Cancelling the task sends DELETE to the status URL.",
    )
    .title("Follow an HTTP job")
    .task(TaskSupport::Optional)
    .annotations(Annotations::new().open_world(true))
    .run(http_job)
    .on_cancel(cancel_job)
}

pub async fn http_job(call: Call<JobArgs>, host: Host) -> Result<Step, ToolError> {
    // A checkpoint that no longer decodes (a deploy changed `Job`) fails the task: the
    // job was already POSTed, and starting over would POST it again.
    match call.checkpoint::<Job>()? {
        None => start(&call.args, &host).await,
        Some(job) => poll(job, &host).await,
    }
}

async fn start(args: &JobArgs, host: &Host) -> Result<Step, ToolError> {
    let body = args.body.clone().unwrap_or_else(|| json!({}));
    let answer = host
        .fetch(post(args.start_url.as_str()).json(&body))
        .await
        .map_err(|e| {
            ToolError::message(format!(
                "Could not start the job at {}: {e}",
                args.start_url
            ))
        })?;
    match answer.status {
        202 => follow(&answer, host, "Job accepted"),
        200..=299 => match answer.json::<Status>() {
            Ok(status) if is_final(&status.status) => Ok(Step::complete(outcome(status)?)),
            _ if answer.header("location").is_some() => follow(&answer, host, "Job started"),
            _ => Err(ToolError::message(format!(
                "The job API answered {} without a final status or a Location: {}",
                answer.status,
                excerpt(&answer.body)
            ))),
        },
        status => Err(ToolError::message(format!(
            "The job API refused the job (HTTP {status}): {}",
            excerpt(&answer.body)
        ))),
    }
}

/// Continues with the status URL the start answer named.
fn follow(answer: &Inbound, host: &Host, message: &str) -> Result<Step, ToolError> {
    let status_url = answer.location()?;
    // Refused now rather than at the first poll.
    host.check_url(&status_url)?;
    Ok(Step::wait(retry_after(answer))
        .checkpoint(Job {
            status_url,
            failures: 0,
        })
        .message(message))
}

async fn poll(job: Job, host: &Host) -> Result<Step, ToolError> {
    let answer = host.fetch(get(job.status_url.as_str())).await;
    let status = match &answer {
        Err(e) => Err(e.to_string()),
        Ok(a) if a.status >= 500 => Err(format!("HTTP {} {}", a.status, excerpt(&a.body))),
        Ok(a) if !a.is_success() => {
            return Err(ToolError::message(format!(
                "The job's status URL answered HTTP {}: {}",
                a.status,
                excerpt(&a.body)
            )));
        }
        Ok(a) => a.json::<Status>().map_err(|e| e.to_string()),
    };
    match status {
        Err(reason) if job.failures + 1 >= MAX_FAILURES => Err(ToolError::message(format!(
            "The job's status URL failed {MAX_FAILURES} times in a row; the last answer: {reason}"
        ))),
        Err(reason) => Ok(Step::wait(Duration::from_secs(1 << job.failures))
            .checkpoint(Job {
                failures: job.failures + 1,
                ..job
            })
            .message(format!("Status check failed ({reason}); retrying"))),
        Ok(status) if is_final(&status.status) => Ok(Step::complete(outcome(status)?)),
        Ok(status) if status.status == "running" => {
            let delay = answer
                .as_ref()
                .map(retry_after)
                .unwrap_or(Duration::from_secs(1));
            let message = status.message.unwrap_or_else(|| "Running".into());
            Ok(Step::wait(delay)
                .checkpoint(Job { failures: 0, ..job })
                .message(message))
        }
        Ok(status) => Err(ToolError::message(format!(
            "The job reported an unknown status {:?}",
            status.status
        ))),
    }
}

fn is_final(status: &str) -> bool {
    matches!(status, "succeeded" | "failed" | "cancelled")
}

/// The tool result for a final status.
fn outcome(status: Status) -> Result<Value, ToolError> {
    if status.status != "succeeded" {
        let message = status.message.unwrap_or_else(|| "no reason given".into());
        return Err(ToolError::message(format!(
            "The job {}: {message}",
            status.status
        )));
    }
    let (text_block, structured) = match status.result {
        Some(Value::String(s)) => (s.clone(), json!({ "result": s })),
        Some(Value::Object(o)) => (Value::Object(o.clone()).to_string(), Value::Object(o)),
        Some(other) => (other.to_string(), json!({ "result": other })),
        None => (
            status
                .message
                .unwrap_or_else(|| "The job succeeded.".into()),
            json!({}),
        ),
    };
    Ok(json!({ "content": [text(text_block)], "structuredContent": structured, "isError": false }))
}

/// `tasks/cancel`: tell the job API to stop (best effort; the task is cancelled anyway).
async fn cancel_job(call: Call, host: Host) {
    let Ok(Some(job)) = call.checkpoint::<Job>() else {
        return;
    };
    let delete = Outbound::new("DELETE", job.status_url).timeout(Duration::from_secs(5));
    // Best effort by design: the task ends cancelled whatever the job API answers (the
    // outbound policy refuses a host it does not allow, as for every request).
    let _ = host.fetch(delete).await;
}
