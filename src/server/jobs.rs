//! Durable jobs for clients that did not declare the Tasks extension (docs/hosts.md).
//!
//! Most hosts declare no Tasks capability, and SEP-2663 forbids sending them a
//! `CreateTaskResult`. Yet a tool that needs more than one step still runs in its own
//! task object (same leases, checkpoints, TTL, quotas and owner as any task): the Worker
//! creates it at once and *waits* on it for at most `INLINE_BUDGET_MS`, forwarding its
//! status messages as `notifications/progress`. Finished in time, the client gets the
//! ordinary result. Otherwise an ordinary `CallToolResult` says that the job goes on and
//! gives its handle (the task id), which the handle tools below read, answer and cancel.
//!
//! ```text
//! tools/call slow_tool (no extension) ─▶ first step inline ─▶ Continue ─▶ Action::Detach
//!   adapter: create the task, then follow it (jobs::Follow) until
//!     completed / failed            ─▶ the ordinary result or error
//!     input_required, client asks   ─▶ MRTR input_required (2026-07-28) / elicitation/create
//!                                      (2025-11-25); the answers go to the task as tasks/update
//!     the wait is over              ─▶ "still running, handle 3f0c…, call job_status"
//! tools/call job_status|job_answer|job_cancel ─▶ Action::Job (the same follower)
//! ```
//!
//! The handle is the task id, so every ownership rule of tasks applies unchanged: another
//! principal's handle is "unknown job", exactly like one that never existed.

mod follow;
mod results;

pub use follow::{Follow, Next};

use super::{Action, Config, Context, Envelope, Server, result_response};
use crate::error::McpError;
use crate::jsonrpc::{Request, RequestId};
use crate::mcp::meta::{Capability, ClientCapabilities, RequestMeta};
use crate::mcp::params;
use crate::mcp::request_state::{Binding, Carried};
use crate::mcp::schema::Schema;
use crate::tasks::id;
use crate::tasks::protocol::ObjectRequest;
use crate::tasks::task;
use crate::tools::{Registry, TaskSupport, Tool};
use serde_json::{Map, Value};

/// Reads a job: its status, its question, or its result once it has ended.
pub const STATUS_TOOL: &str = "job_status";
/// Answers a job's question.
pub const ANSWER_TOOL: &str = "job_answer";
/// Cancels a job.
pub const CANCEL_TOOL: &str = "job_cancel";
/// The handle tools' names, reserved: an author's tool may not take one.
pub const RESERVED: [&str; 3] = [STATUS_TOOL, ANSWER_TOOL, CANCEL_TOOL];

/// Who reads the job's outcome.
#[derive(Debug, Clone, PartialEq)]
pub enum Reader {
    /// The `tools/call` that started it: a finished job answers as the call would have
    /// inline.
    Call { tool: String },
    /// A handle tool (`job_status`, `job_answer`, `job_cancel`).
    Handle,
}

/// A job to follow: what to send it first, how long to wait for its end, and how the
/// answer reads. The adapter performs it with [`Follow`].
#[derive(Debug, Clone, PartialEq)]
pub struct JobRun {
    pub request_id: RequestId,
    pub envelope: Envelope,
    /// The task id; empty in an [`Action::Detach`] until the adapter has created the task.
    pub job: String,
    /// Sent to the task before following it: answers (`Update`) or `Cancel`.
    pub first: Option<ObjectRequest>,
    /// How long to wait for the job to end (0: read it once).
    pub wait_ms: u64,
    pub reader: Reader,
    /// `_meta.progressToken`: the job's progress (its numbers, else its status messages)
    /// becomes `notifications/progress`.
    pub progress_token: Option<Value>,
    /// The progress this request already reported: the steps that ran before the job
    /// existed streamed theirs. The follower's notifications go on above it (a progress
    /// value MUST increase with each notification, basic/patterns/progress).
    pub reported: f64,
    /// What the client declared: a question is asked through the client only for the
    /// capabilities it has.
    pub capabilities: ClientCapabilities,
    /// What an MRTR `requestState` is bound to (the request and its arguments).
    pub request_key: String,
    pub arguments: Map<String, Value>,
    /// The longest wait a handle tool's `waitSeconds` may ask for, in seconds.
    pub max_wait_s: u64,
}

/// Whether this server offers jobs at all: on (`DETACH_JOBS`), and some tool can detach.
pub fn offered(config: &Config, registry: &Registry) -> bool {
    config.detach_jobs && registry.tools().iter().any(detachable)
}

/// Whether `tool` may run as a job: it may run as a task, and its author did not keep it
/// attached ([`Tool::never_detached`]).
fn detachable(tool: &Tool) -> bool {
    tool.task_support() != TaskSupport::Forbidden && tool.detaches()
}

/// Whether a call of `tool` with `meta` runs as a job if it needs more than one step: the
/// client did not declare the Tasks extension and the server offers jobs. (A 2025-11-25
/// client's `tasks` capability is about requests it receives; whether it makes a task is
/// its call's `params.task`, and a call without one is served as a job.)
pub fn detaches(server: &Server, tool: &Tool, meta: &RequestMeta) -> bool {
    !declares_tasks(&meta.capabilities) && server.config.detach_jobs && detachable(tool)
}

/// Whether the client declared the Tasks extension (then it uses `tasks/*`, not jobs).
pub fn declares_tasks(capabilities: &ClientCapabilities) -> bool {
    capabilities.has(Capability::TasksExtension)
}

/// The handle tools for `tools/list` (the longest wait is the inline budget).
pub fn definitions(config: &Config) -> Vec<Value> {
    handle_tools(max_wait_s(config))
}

pub fn max_wait_s(config: &Config) -> u64 {
    (config.inline_budget_ms / 1000).max(1)
}

/// The handle tools' definitions: JSON text (`jobs/handle_tools.json`) with the longest
/// wait filled in, rather than code that builds the same values.
fn handle_tools(max_wait_s: u64) -> Vec<Value> {
    let text =
        include_str!("jobs/handle_tools.json").replace("MAX_WAIT_S", &max_wait_s.to_string());
    crate::jsonrpc::read(text.as_bytes()).expect("jobs/handle_tools.json is a JSON array")
}

/// A `tools/call` of a handle tool, if `name` is one and this client is offered them:
/// the arguments checked against its schema (-32602), the handle's form (a tool error
/// naming the rule), then [`Action::Job`].
pub fn handle_call(
    server: &Server,
    rpc: &Request,
    meta: &RequestMeta,
    envelope: &Envelope,
) -> Option<Result<Action, McpError>> {
    let name = rpc.params.get("name").and_then(Value::as_str)?;
    if !RESERVED.contains(&name)
        || declares_tasks(&meta.capabilities)
        || !offered(&server.config, &server.registry)
    {
        return None;
    }
    Some(handle(server, rpc, meta, envelope, name))
}

fn handle(
    server: &Server,
    rpc: &Request,
    meta: &RequestMeta,
    envelope: &Envelope,
    name: &str,
) -> Result<Action, McpError> {
    let max_wait_s = max_wait_s(&server.config);
    let tools = handle_tools(max_wait_s);
    let tool = tools
        .iter()
        .find(|t| t["name"] == name)
        .expect("a reserved name");
    check_arguments(name, &tool["inputSchema"], rpc.params.get("arguments"))?;
    let arguments = match rpc.params.get("arguments") {
        Some(Value::Object(a)) => a.clone(),
        _ => Map::new(),
    };
    let job = arguments["job"].as_str().unwrap_or_default().to_owned();
    if !id::is_valid(&job) {
        let result = results::malformed(&job);
        return Ok(Action::Respond(result_response(&rpc.id, &result, envelope)));
    }
    let first = match name {
        ANSWER_TOOL => Some(ObjectRequest::Update {
            task_id: job.clone(),
            input_responses: arguments["answers"]
                .as_object()
                .cloned()
                .unwrap_or_default(),
        }),
        CANCEL_TOOL => Some(ObjectRequest::Cancel {
            task_id: job.clone(),
        }),
        _ => None,
    };
    Ok(Action::Job(Box::new(JobRun {
        request_id: rpc.id.clone(),
        envelope: envelope.clone(),
        job,
        first,
        wait_ms: wait_ms(server, &Reader::Handle, &arguments),
        reader: Reader::Handle,
        progress_token: params::progress_token(&rpc.params)?,
        reported: 0.0,
        capabilities: meta.capabilities.clone(),
        request_key: format!("tools/call {name}"),
        arguments,
        max_wait_s,
    })))
}

/// A handle tool's arguments against its input schema, as every tool's are checked
/// (`Tool::check_arguments`): -32602 naming the first violation.
fn check_arguments(name: &str, schema: &Value, arguments: Option<&Value>) -> Result<(), McpError> {
    let schema = Schema::compile(schema).map_err(McpError::Internal)?;
    let empty = Value::Object(Map::new());
    schema
        .validate(arguments.filter(|a| !a.is_null()).unwrap_or(&empty))
        .map_err(|why| McpError::InvalidParams(format!("Invalid arguments for tool {name}: {why}")))
}

/// The retry of a call whose job asked a question by MRTR: the answers (already checked
/// against the questions sealed in `requestState`) go to the job, which is then followed
/// again for a new wait.
pub fn resumed(server: &Server, run: JobRun, answers: Map<String, Value>) -> Action {
    let first = ObjectRequest::Update {
        task_id: run.job.clone(),
        input_responses: answers,
    };
    Action::Job(Box::new(JobRun {
        first: Some(first),
        wait_ms: wait_ms(server, &run.reader, &run.arguments),
        ..run
    }))
}

/// How a job reads for the call named `name` (a `tools/call`'s tool, or a handle tool).
pub fn reader(name: &str) -> Reader {
    if RESERVED.contains(&name) {
        return Reader::Handle;
    }
    Reader::Call {
        tool: name.to_owned(),
    }
}

/// This server's `_meta` key for the `outputSchema` of a tool listed to a client that gets
/// jobs ([`listed_for_jobs`]).
pub const OUTPUT_SCHEMA_META: &str = "mcp-tasks-edge/outputSchema";

/// `tool`'s definition as a client that gets jobs lists it: a tool that may become a job
/// carries its `outputSchema` in `_meta` ([`OUTPUT_SCHEMA_META`]) instead, since its answer
/// while it runs is the job's handle (`structuredContent` a host shows its model, e.g.
/// Claude Code), which that schema would refuse; its final result still has the
/// `structuredContent` the schema describes.
pub fn listed_for_jobs(tool: &Tool) -> Value {
    let mut definition = tool.definition();
    if detachable(tool)
        && let Some(Value::Object(object)) = Some(&mut definition)
        && let Some(schema) = object.remove("outputSchema")
    {
        let meta = object
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(OUTPUT_SCHEMA_META.into(), schema);
        }
    }
    definition
}

/// How long a call waits for its job: the inline budget for the call that started it,
/// what `waitSeconds` asks (at most the budget) for a handle tool.
pub fn wait_ms(server: &Server, reader: &Reader, arguments: &Map<String, Value>) -> u64 {
    match reader {
        Reader::Call { .. } => server.config.inline_budget_ms,
        Reader::Handle => {
            let asked = arguments.get("waitSeconds").and_then(Value::as_u64);
            asked.unwrap_or(0).min(max_wait_s(&server.config)) * 1000
        }
    }
}

/// What a job whose caller left before its handle was answered comes to: cancelled, as
/// nobody else holds it (the cancellation of that request, basic/patterns/cancellation).
pub fn abandoned(job: &str) -> ObjectRequest {
    ObjectRequest::Cancel {
        task_id: job.to_owned(),
    }
}

/// The answer to a call whose caller left before its job's handle: for a client still
/// reading (a 2025-11-25 stream after `notifications/cancelled`), never a handle.
pub fn left_error(job: &str) -> McpError {
    McpError::Wire(crate::jsonrpc::ErrorObject {
        code: crate::jsonrpc::ErrorCode::REQUEST_CANCELLED,
        message: format!("Request cancelled by the client; its job {job} was cancelled"),
        data: None,
    })
}

/// An MRTR `InputRequiredResult` carrying the job's questions (mrtr "Server
/// Requirements"): its `requestState` names the job and the questions, so the retry's
/// answers are checked and go to the job (see [`resumed`]).
pub fn input_required(
    server: &Server,
    run: &JobRun,
    requests: &Map<String, Value>,
    ctx: &Context,
) -> Result<Value, McpError> {
    let carried = Carried {
        rounds: 1,
        answers: Map::new(),
        checkpoint: Value::Null,
        pending: Map::new(),
        job: Some(run.job.clone()),
    };
    let binding = Binding {
        principal: &ctx.principal,
        request: &run.request_key,
        arguments: &run.arguments,
    };
    let state = server.seal_round(requests, carried, binding, ctx.now_ms)?;
    Ok(task::input_required(requests, &state))
}
