//! `tools/call` and `prompts/get`: run the first step(s) in the Worker and decide how the
//! call continues (docs/architecture.md, "Tools: one step function"):
//!
//! ```text
//! Complete          → the result, inline
//! Fail              → the JSON-RPC error
//! NeedInput         → InputRequiredResult (MRTR) with a signed requestState
//! Continue + tasks  → create a task (CreateTaskResult once the object has stored it)
//! Continue, no tasks→ a job (`jobs`): the task object runs it, the Worker waits on it
//!                     within a time budget; a tool that never detaches runs on inline
//!                     within the budget (required ones: -32021 before the first step)
//! ```
//!
//! Dispatch does every check that needs no step ([`tools_call`], [`prompts_get`]) and
//! hands the adapter an [`Action::Run`]; the adapter then awaits `Server::run` (the steps,
//! `server::drive`) with its `Host`, because steps are async and may use the platform.

use super::{Action, Context, Envelope, Server, jobs};
use crate::error::McpError;
use crate::host::BoxFuture;
use crate::http::Headers;
use crate::jsonrpc::{Request, RequestId};
use crate::mcp::headers;
use crate::mcp::input;
use crate::mcp::meta::{Capability, ClientCapabilities, RequestMeta};
use crate::mcp::params;
use crate::mcp::request_state::{self, Binding, Carried};
use crate::tools::{Report, TaskSupport, Tool};
use serde::Serialize;
use serde_json::{Map, Value};

/// What is being called: a tool, or the fixture prompt (prompts use the same steps).
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Tool(String),
    Prompt(String),
}

impl Target {
    pub fn is_tool(&self) -> bool {
        matches!(self, Target::Tool(_))
    }

    pub(super) fn name(&self) -> &str {
        match self {
            Target::Tool(n) | Target::Prompt(n) => n,
        }
    }

    /// What a `requestState` is bound to: the method and the name (mrtr "Server
    /// Requirements" 5: an identifier for the originating request).
    pub(super) fn request_key(&self) -> String {
        match self {
            Target::Tool(n) => format!("tools/call {n}"),
            Target::Prompt(n) => format!("prompts/get {n}"),
        }
    }
}

/// A call in progress in the Worker; survives a sleep between inline steps.
#[derive(Debug, Clone, PartialEq)]
pub struct InlineRun {
    pub request_id: RequestId,
    pub envelope: Envelope,
    pub target: Target,
    pub arguments: Map<String, Value>,
    pub capabilities: ClientCapabilities,
    pub carried: Carried,
    /// Answers the client sent to requests the last round did not ask (no
    /// `requestState`, or other keys). One moves to the answers, checked against the
    /// request, only when a step asks for its key; the rest are ignored (mrtr "Error
    /// Handling": unexpected information is ignored).
    pub offered: Map<String, Value>,
    /// What a `Continue` makes of the call.
    pub becomes: Becomes,
    pub started_at_ms: u64,
    /// `_meta.progressToken`: the adapter streams `notifications/progress` (SSE) while
    /// the steps run, then the response.
    pub progress_token: Option<Value>,
    /// The caller ([`crate::tools::Call::principal`]).
    pub principal: String,
}

/// What a call becomes when its step needs more time (`Step::Continue`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Becomes {
    /// A task: the client declared the Tasks extension (`CreateTaskResult`).
    Task,
    /// A job: a task the Worker waits on for the client (`jobs`), once a step waits
    /// (steps that go on at once run inline, as the first did).
    Job,
    /// Nothing: the steps run on inline within `INLINE_BUDGET_MS`.
    Inline,
}

/// How a step's input requests reach the client when MRTR is not available: a
/// 2025-11-25 session sends them as server→client requests on the response stream and
/// awaits the client's answers (keyed as asked).
pub trait Asker {
    fn ask(
        &self,
        requests: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Map<String, Value>, McpError>>;
}

/// `notifications/progress`'s params.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProgressParams<'a> {
    progress_token: &'a Value,
    progress: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

/// The `notifications/progress` message for `report` (basic/patterns/progress).
pub fn progress_notification(token: &Value, report: &Report) -> Value {
    let params = ProgressParams {
        progress_token: token,
        progress: report.progress,
        total: report.total,
        message: report.message.as_deref(),
    };
    crate::jsonrpc::notification("notifications/progress", crate::jsonrpc::payload(&params))
}

fn arguments(params: &Map<String, Value>) -> Result<Map<String, Value>, McpError> {
    match params.get("arguments") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(a)) => Ok(a.clone()),
        Some(_) => Err(McpError::InvalidParams(
            "params.arguments must be an object".into(),
        )),
    }
}

/// Opens the `requestState` (if any) and takes this round's answers. An answer to a
/// request the last round asked (sealed in the state) is checked against it at once
/// (-32602 naming the problem); any other answer is only offered (the second value) to a
/// step that asks for its key, and checked then (see [`InlineRun::offered`]). So no
/// answer reaches a step unchecked, and a signed answer is never replaced.
fn carried(
    server: &Server,
    params: &Map<String, Value>,
    binding: Binding,
    now_ms: u64,
) -> Result<(Carried, Map<String, Value>), McpError> {
    let responses = input::parse_input_responses(params)?;
    let mut carried = match params.get("requestState") {
        None | Some(Value::Null) => Carried {
            rounds: 0,
            answers: Map::new(),
            checkpoint: Value::Null,
            pending: Map::new(),
            job: None,
        },
        Some(Value::String(state)) => {
            request_state::open(server.request_state_secret()?, binding, state, now_ms)?
        }
        Some(_) => {
            return Err(McpError::InvalidParams(
                "params.requestState must be a string".into(),
            ));
        }
    };
    let pending = std::mem::take(&mut carried.pending);
    let mut offered = Map::new();
    for (key, answer) in responses {
        match pending.get(&key) {
            Some(request) => {
                input::check_answer(&key, request, &answer)?;
                carried.answers.insert(key, answer);
            }
            None => {
                offered.insert(key, answer);
            }
        }
    }
    Ok((carried, offered))
}

/// The tool a `tools/call` names and its arguments, checked as both eras check them: the
/// tool exists (-32602), `arguments` is an object, the `Mcp-Param-*` headers match them
/// (2026-07-28 only: `http_headers`, -32020), and they validate against the tool's input
/// schema (-32602 naming the violation).
pub fn checked_call<'a>(
    server: &'a Server,
    params: &Map<String, Value>,
    http_headers: Option<&Headers>,
) -> Result<(&'a Tool, Map<String, Value>), McpError> {
    let name = params::string(params, "name")?;
    let tool = server.registry.lookup(name)?;
    let arguments = arguments(params)?;
    if let Some(http_headers) = http_headers {
        headers::check_params(
            http_headers,
            &headers::param_headers(tool.input_schema()),
            &arguments,
        )?;
    }
    tool.check_arguments(params.get("arguments"))?;
    Ok((tool, arguments))
}

pub fn tools_call(
    server: &Server,
    rpc: &Request,
    http_headers: Option<&Headers>,
    meta: &RequestMeta,
    ctx: &Context,
    envelope: &Envelope,
) -> Result<Action, McpError> {
    if let Some(handle) = jobs::handle_call(server, rpc, meta, envelope) {
        return handle;
    }
    let (spec, arguments) = checked_call(server, &rpc.params, http_headers)?;
    let name = spec.name();
    let tasks_declared = meta.capabilities.has(Capability::TasksExtension);
    let detaches = jobs::detaches(server, spec, meta);
    if spec.task_support() == TaskSupport::Required && !tasks_declared && !detaches {
        return Err(
            Capability::TasksExtension.missing(&format!("the tool {name} only runs as a task"))
        );
    }
    if tasks_declared {
        askable(spec, &meta.capabilities)?;
    }
    // The legacy `task` param (2025-11-25) is ignored: the server alone decides (SEP-2663).
    let becomes = match spec.task_support() {
        TaskSupport::Forbidden => Becomes::Inline,
        _ if tasks_declared => Becomes::Task,
        _ if detaches => Becomes::Job,
        _ => Becomes::Inline,
    };
    let target = Target::Tool(name.to_owned());
    start(server, rpc, meta, ctx, envelope, target, arguments, becomes)
}

/// A call that becomes a task of a client that cannot be asked must not start a tool that
/// may ask ([`Tool::may_ask`]): -32021 naming elicitation, before any step runs, rather
/// than a task that fails at its question with its work thrown away.
pub fn askable(tool: &Tool, capabilities: &ClientCapabilities) -> Result<(), McpError> {
    if tool.may_ask() && !capabilities.has(Capability::ElicitationForm) {
        return Err(Capability::ElicitationForm.missing(&format!(
            "the tool {} asks the user while it runs; declare elicitation to call it as a task",
            tool.name()
        )));
    }
    Ok(())
}

pub fn prompts_get(
    server: &Server,
    rpc: &Request,
    meta: &RequestMeta,
    ctx: &Context,
    envelope: &Envelope,
) -> Result<Action, McpError> {
    let params::PromptGetParams { name, arguments } = params::parse(&rpc.params)?;
    let prompt = server
        .catalog
        .prompt(&name)
        .ok_or_else(|| McpError::InvalidParams(format!("Unknown prompt: {name}")))?;
    let arguments = arguments.unwrap_or_default();
    prompt.check_arguments(&arguments)?;
    let target = Target::Prompt(name);
    start(
        server,
        rpc,
        meta,
        ctx,
        envelope,
        target,
        arguments,
        Becomes::Inline,
    )
}

/// Opens the request's `requestState`; the adapter then runs the first step(s) with
/// [`drive`].
#[allow(clippy::too_many_arguments)]
fn start(
    server: &Server,
    rpc: &Request,
    meta: &RequestMeta,
    ctx: &Context,
    envelope: &Envelope,
    target: Target,
    arguments: Map<String, Value>,
    becomes: Becomes,
) -> Result<Action, McpError> {
    let request_key = target.request_key();
    let binding = Binding {
        principal: &ctx.principal,
        request: &request_key,
        arguments: &arguments,
    };
    let (mut carried, offered) = carried(server, &rpc.params, binding, ctx.now_ms)?;
    let progress_token = params::progress_token(&rpc.params)?;
    if let Some(job) = carried.job.take() {
        // The retry of a call whose job asked by MRTR: the answers go to the job.
        let run = jobs::JobRun {
            request_id: rpc.id.clone(),
            envelope: envelope.clone(),
            job,
            first: None,
            wait_ms: 0,
            reader: jobs::reader(target.name()),
            progress_token,
            reported: 0.0,
            capabilities: meta.capabilities.clone(),
            request_key,
            arguments,
            max_wait_s: jobs::max_wait_s(&server.config),
        };
        return Ok(jobs::resumed(server, run, carried.answers));
    }
    Ok(Action::Run(Box::new(InlineRun {
        request_id: rpc.id.clone(),
        envelope: envelope.clone(),
        target,
        arguments,
        capabilities: meta.capabilities.clone(),
        carried,
        offered,
        becomes,
        started_at_ms: ctx.now_ms,
        progress_token,
        principal: ctx.principal.clone(),
    })))
}
