//! The step of an upstream tool (docs/gateway.md "What is durable"): where the call is
//! made, what the task stores before it, and what an interrupted call becomes.
//!
//! ```text
//! checkpoint   where        what the step does
//! (none)       Worker       upstream with tasks: calls (at 2025-11-25 asking for a task);
//!                           repeatable tool: calls, within UPSTREAM_INLINE_MS, or (too slow)
//!                             cancels that call upstream → Start;
//!                           otherwise → Calling (the task object makes the call)
//! Start        task object  opens a session → Calling (stored before anything is sent)
//! Calling      task object  attempt 1: calls and holds the call; a later attempt (the call
//!                           was interrupted): a repeatable tool → Calling again on a new
//!                           session; any other tool fails, saying why
//! Asking       either       the upstream asked (2026-07-28 InputRequiredResult): its
//!                           questions become the task's (or the MRTR round's); once
//!                           answered, the call again with inputResponses and requestState
//! Following    task object  the upstream's task by id: tasks/get; working → again after its
//!                           poll interval; input_required → its questions, the answers sent
//!                           with tasks/update; ended → its result
//! ```
//!
//! A call's answer: a result (checked against the declared `outputSchema`), an error as it
//! came, a task (→ Following) or questions (→ Asking).
//!
//! "Repeatable" is `idempotentHint: true` or `readOnlyHint: true` in the upstream's own
//! annotations: calling such a tool again changes nothing that the first call did not.

use super::Upstream;
use super::client::params::CallParams;
use super::client::{Bounds, Session, Sessions, UpstreamError};
use crate::host::{Host, HostError};
use crate::jsonrpc::{self, Empty, ErrorCode, ErrorObject, OneEntry};
use crate::mcp::headers::{self, ParamHeader};
use crate::mcp::schema::Schema;
use crate::tools::{Call, Step, ToolError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::rc::Rc;
use std::time::Duration;

mod cancel;
mod follow;
mod outcome;
mod relay;

use cancel::cancel_call;
pub use cancel::cancelled;
use follow::follow;
use outcome::answer;
use relay::Relay;

/// What a step knows of the upstream tool it calls.
#[derive(Debug)]
pub struct UpstreamTool {
    pub upstream: Rc<Upstream>,
    /// The tool's name upstream (unprefixed).
    pub name: String,
    /// The protocol revision the upstream speaks ([`super::client::MODERN`] or a 2025 one).
    pub version: String,
    /// Calling it again changes nothing (its `idempotentHint` or `readOnlyHint`).
    pub repeatable: bool,
    /// The upstream runs its calls as tasks.
    pub tasks: bool,
    /// Clients without the Tasks extension get jobs (`DETACH_JOBS`), so the upstream may
    /// be asked for a task for them too.
    pub jobs: bool,
    /// Its compiled `outputSchema`, which a result's `structuredContent` must match.
    pub output: Option<Schema>,
    /// Its `x-mcp-header` arguments (2026-07-28 `Mcp-Param-*` headers).
    pub param_headers: Vec<ParamHeader>,
    /// The bounds of one held call (`UPSTREAM_CALL_TIMEOUT_MS`, `UPSTREAM_MAX_BYTES`).
    pub call: Bounds,
    /// How long the Worker waits on a repeatable call (`UPSTREAM_INLINE_MS`).
    pub inline_ms: u64,
    /// The isolate's kept sessions, for those calls.
    pub sessions: Rc<Sessions>,
}

/// What the task stores between steps (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "phase",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Checkpoint {
    Start,
    Calling {
        session: Option<String>,
        version: String,
        request: u64,
    },
    Asking {
        version: String,
        requests: Map<String, Value>,
        #[serde(default)]
        state: Option<String>,
        /// The call's input round when asked: answers of a later round answer these.
        round: u32,
    },
    Following {
        session: Option<String>,
        version: String,
        task: String,
        interval_ms: u64,
        #[serde(default)]
        failures: u32,
        /// The keys of the answers already sent upstream (`tasks/update`).
        #[serde(default)]
        sent: Vec<String>,
    },
}

impl UpstreamTool {
    fn fail(&self, why: &UpstreamError) -> ToolError {
        ToolError::Rpc(why.to_wire(&self.upstream.name))
    }

    fn error(&self, message: String) -> ToolError {
        ToolError::Rpc(ErrorObject {
            code: ErrorCode::INTERNAL_ERROR,
            message,
            data: None,
        })
    }

    /// The short bounds of the requests around a call (initialize, tasks/get, cancel).
    fn quick(&self) -> Bounds {
        Bounds {
            timeout_ms: self.call.timeout_ms.min(30_000),
            ..self.call
        }
    }

    /// A session in the upstream's era, declaring (at 2026-07-28) what `call`'s client
    /// can be asked, and the Tasks extension where the upstream offers it.
    async fn session(&self, call: &Call, host: &Host) -> Result<Session, ToolError> {
        let declared = self.declared(call);
        Session::start(host, &self.upstream, &self.version, self.quick(), declared)
            .await
            .map_err(|e| self.fail(&e))
    }

    fn resumed(
        &self,
        call: &Call,
        host: &Host,
        id: Option<String>,
        version: &str,
    ) -> Result<Session, ToolError> {
        let mut session =
            Session::resume(host, &self.upstream, id, version).map_err(|e| self.fail(&e))?;
        session.declared = self.declared(call);
        Ok(session)
    }

    fn declared(&self, call: &Call) -> Value {
        let mut declared = Map::new();
        // A 2025-11-25 upstream asks mid-call, so in a task object: a caller that gets a
        // job can be asked there what a job's question can be (`job_answer`), already in
        // the job's record in the task object, not yet in its first step in the Worker.
        let askable = match self.jobs
            && self.version != super::client::MODERN
            && !call
                .capabilities
                .has(crate::mcp::meta::Capability::TasksExtension)
        {
            true => Cow::Owned(call.capabilities.answerable_by_job()),
            false => Cow::Borrowed(&call.capabilities.0),
        };
        for key in ["elicitation", "sampling", "roots"] {
            if let Some(value) = askable.get(key) {
                declared.insert(key.into(), value.clone());
            }
        }
        if self.upstream_task(call) {
            declared.insert(
                "extensions".into(),
                jsonrpc::payload(&OneEntry("io.modelcontextprotocol/tasks", Empty {})),
            );
        }
        Value::Object(declared)
    }

    /// Whether this call asks the upstream for a task: it offers them, and the caller can
    /// be served one (it declared the Tasks extension, or gets a job). Otherwise the
    /// upstream decides as for any client without tasks (a tool it runs only as a task
    /// answers -32021, passed on as it came).
    fn upstream_task(&self, call: &Call) -> bool {
        self.tasks
            && (self.jobs
                || call
                    .capabilities
                    .has(crate::mcp::meta::Capability::TasksExtension))
    }

    fn interrupted(&self) -> ToolError {
        self.error(format!(
            "The call of {:?} on the upstream server {:?} was interrupted (the gateway restarted while it ran) and was not made again: the tool is not marked idempotentHint or readOnlyHint, so calling it twice could repeat its effects. Whether the first call took effect is unknown.",
            self.name, self.upstream.name
        ))
    }
}

/// One step of an upstream tool (see the module docs).
pub async fn run(tool: Rc<UpstreamTool>, call: Call, host: Host) -> Result<Step, ToolError> {
    match call.checkpoint::<Checkpoint>()? {
        None if call.task_id.is_none() => first(&tool, &call, &host).await,
        None | Some(Checkpoint::Start) => {
            let session = tool.session(&call, &host).await?;
            begin(&tool, &call, session).await
        }
        Some(Checkpoint::Calling {
            session,
            version,
            request,
        }) => {
            if call.attempt > 1 {
                if !tool.repeatable {
                    return Err(tool.interrupted());
                }
                // Again on a session of its own, stored first: the interrupted call's id
                // may still be in use upstream, and a cancel must reach this one.
                let session = tool.session(&call, &host).await?;
                return begin(&tool, &call, session).await;
            }
            let mut session = tool.resumed(&call, &host, session, &version)?;
            session.skip_to(request);
            let outcome = match call_tool(&tool, &call, &mut session, tool.call, None).await {
                // The session ended before the call reached it: nothing ran; a new one.
                Err(UpstreamError::SessionGone) => {
                    session = tool.session(&call, &host).await?;
                    call_tool(&tool, &call, &mut session, tool.call, None).await
                }
                other => other,
            };
            session.close(tool.quick()).await;
            answer(&tool, &call, &session, outcome)
        }
        Some(Checkpoint::Asking {
            version,
            requests,
            state,
            round,
        }) => {
            if !requests.is_empty() && call.round <= round {
                return Ok(Step::NeedInput(requests));
            }
            if call.attempt > 1 && !tool.repeatable {
                return Err(tool.interrupted());
            }
            let mut responses = Map::new();
            for key in requests.keys() {
                if let Some(answer) = call.answers.get(key) {
                    responses.insert(key.clone(), answer.clone());
                }
            }
            let mut session = tool.resumed(&call, &host, None, &version)?;
            let retry = Some((responses, state));
            let outcome = call_tool(&tool, &call, &mut session, tool.call, retry).await;
            answer(&tool, &call, &session, outcome)
        }
        Some(Checkpoint::Following {
            session,
            version,
            task,
            interval_ms,
            failures,
            sent,
        }) => {
            let session = tool.resumed(&call, &host, session, &version)?;
            let following = follow::Following {
                task,
                interval_ms,
                failures,
                sent,
            };
            follow(&tool, &call, session, following, &host).await
        }
    }
}

/// The first step, in the Worker: a repeatable tool's call on a kept session
/// (`client::Sessions`; one that ended upstream is replaced, the call made again).
async fn first(tool: &UpstreamTool, call: &Call, host: &Host) -> Result<Step, ToolError> {
    if !tool.repeatable || tool.inline_ms == 0 {
        return begin(tool, call, tool.session(call, host).await?).await;
    }
    let inline = Bounds {
        timeout_ms: tool.inline_ms,
        ..tool.call
    };
    // Anonymous callers are strangers to each other: none gets a kept session.
    let by = call
        .principal
        .as_deref()
        .filter(|p| *p != crate::auth::ANONYMOUS);
    let kept = |host| {
        tool.sessions.start(
            host,
            &tool.upstream,
            by,
            &tool.version,
            tool.quick(),
            tool.declared(call),
        )
    };
    let mut session = kept(host).await.map_err(|e| tool.fail(&e))?;
    let mut request = session.peek_id();
    let mut outcome = call_tool(tool, call, &mut session, inline, None).await;
    if let Err(UpstreamError::SessionGone) = outcome {
        tool.sessions.forget(&session);
        session = kept(host).await.map_err(|e| tool.fail(&e))?;
        request = session.peek_id();
        outcome = call_tool(tool, call, &mut session, inline, None).await;
    }
    match outcome {
        Err(UpstreamError::Host(HostError::Timeout { .. }) | UpstreamError::Handover) => {
            // Too slow for the Worker, or it asked a question the Worker cannot relay:
            // the task object calls again (the tool is repeatable); this call is
            // cancelled upstream so its work stops (the session stays, for others).
            cancel_call(tool, &session, request, false).await;
            tool.sessions.keep(session, by, tool.quick()).await;
            Ok(Step::wait(Duration::from_millis(1)).checkpoint(Checkpoint::Start))
        }
        outcome => {
            let answered = answer(tool, call, &session, outcome);
            tool.sessions.keep(session, by, tool.quick()).await;
            answered
        }
    }
}

/// What follows an open session: the call at once where the upstream has tasks (its
/// answer comes at once: a task, a result or questions), else "Calling" stored before
/// the call is made.
async fn begin(tool: &UpstreamTool, call: &Call, mut session: Session) -> Result<Step, ToolError> {
    if tool.upstream_task(call) {
        let outcome = call_tool(tool, call, &mut session, tool.quick(), None).await;
        return answer(tool, call, &session, outcome);
    }
    let checkpoint = Checkpoint::Calling {
        session: session.id.clone(),
        version: session.version.clone(),
        request: session.peek_id(),
    };
    // 1 ms, not 0: a job's first step must leave the Worker (`server::drive`).
    Ok(Step::wait(Duration::from_millis(1)).checkpoint(checkpoint))
}

/// `tools/call` on `session` (a retry with `inputResponses` and `requestState` when
/// `retry` has them); progress the upstream reports goes to the call's progress.
async fn call_tool(
    tool: &UpstreamTool,
    call: &Call,
    session: &mut Session,
    bounds: Bounds,
    retry: Option<(Map<String, Value>, Option<String>)>,
) -> Result<Value, UpstreamError> {
    let token = call.task_id.clone().unwrap_or_else(|| "gateway".into());
    let (input_responses, request_state) = match retry {
        Some((responses, state)) => (Some(responses), state),
        None => (None, None),
    };
    let params = jsonrpc::payload(&CallParams {
        name: &tool.name,
        arguments: &call.arguments,
        meta: OneEntry("progressToken", &token),
        task: (tool.upstream_task(call) && !session.is_modern()).then_some(Empty {}),
        input_responses,
        request_state,
    });
    let mut extra = Vec::new();
    if session.is_modern() {
        for header in &tool.param_headers {
            if let Some(text) = header
                .value_in(&call.arguments)
                .and_then(headers::header_text)
            {
                extra.push((
                    format!("mcp-param-{}", header.name),
                    headers::encode_value(&text),
                ));
            }
        }
    }
    session.call(params, bounds, extra, &Relay(call)).await
}
