//! Running a call's steps in the Worker (after [`super::call`] checked it): until it
//! completes, needs input (MRTR, or a 2025-11-25 session's [`Asker`]), becomes a task, or
//! runs out of the inline budget. Waits between steps sleep on the host.

use super::call::{Asker, Becomes, InlineRun, Target};
use super::jobs::{self, JobRun};
use super::{Action, Context, Server, result_response};
use crate::error::McpError;
use crate::host::Host;
use crate::mcp::input;
use crate::mcp::meta::Capability;
use crate::mcp::request_state::{Binding, Carried};
use crate::ops::log::{self as logs, Level, Line};
use crate::tasks::record::{NewTask, TaskRecord, check_result};
use crate::tasks::task::{self, RESULT_COMPLETE};
use crate::tools::{Amount, Call, Progress, Step};
use serde_json::{Map, Value};

/// Steps run back to back (no wait between them) before the server gives up on a tool
/// that never finishes; protects the Worker from a looping step function.
const MAX_INLINE_STEPS: u32 = 1000;

async fn step(
    server: &Server,
    run: &InlineRun,
    now_ms: u64,
    host: &Host,
    progress: &Progress,
) -> Step {
    let call = Call {
        args: run.arguments.clone(),
        arguments: run.arguments.clone(),
        answers: run.carried.answers.clone(),
        checkpoint: run.carried.checkpoint.clone(),
        capabilities: run.capabilities.clone(),
        round: run.carried.rounds,
        now_ms,
        task_id: None,
        attempt: 1,
        principal: Some(run.principal.clone()),
        progress: progress.clone(),
    };
    let step = match &run.target {
        Target::Tool(name) => match server.registry.get(name) {
            Some(tool) => tool.step(call, host.clone()).await,
            None => Step::Fail(McpError::InvalidParams(format!("Unknown tool: {name}")).to_wire()),
        },
        Target::Prompt(name) => match server.catalog.prompt(name) {
            Some(prompt) => prompt.step(call, host.clone()).await,
            None => {
                Step::Fail(McpError::InvalidParams(format!("Unknown prompt: {name}")).to_wire())
            }
        },
    };
    step.or_progress(progress)
}

/// A tool step, with its `step.started` and `step.finished` lines (a prompt's steps are
/// not logged): the duration is read on the host's clock, the adapter's.
async fn logged_step(
    server: &Server,
    run: &InlineRun,
    ctx: &Context,
    host: &Host,
    progress: &Progress,
    log: &dyn Fn(Line),
) -> Step {
    let Target::Tool(tool) = &run.target else {
        return step(server, run, ctx.now_ms, host, progress).await;
    };
    // Lines below the level are not built: a fast synchronous call prints none at `info`,
    // and its principal's fingerprint is not computed either.
    let settings = &server.config.log;
    let started = host.now_ms();
    if settings.prints(Level::Debug) {
        log(logs::inline_step_started(tool, &ctx.principal));
    }
    let stepped = step(server, run, ctx.now_ms, host, progress).await;
    let duration_ms = host.now_ms().saturating_sub(started);
    let outcome = logs::step_outcome(&stepped);
    // A step of an upstream's tool is at least info: each upstream call is a line.
    let upstream = server.registry.get(tool).and_then(|t| t.upstream());
    let level = logs::inline_step_level(outcome, duration_ms);
    let level = upstream.map_or(level, |_| level.max(Level::Info));
    if settings.prints(level) {
        let line = logs::inline_step_finished(tool, &ctx.principal, outcome, duration_ms);
        log(logs::of_upstream(line, upstream));
    }
    stepped
}

/// Runs steps until the call completes, needs input, becomes a task, or runs out of
/// the inline budget. Waits between steps sleep on the host; progress reports go to
/// `progress`, and each tool step's `step.started` and `step.finished` lines to `log`
/// (the adapter prints them).
pub async fn drive(
    server: &Server,
    mut run: InlineRun,
    ctx: &Context,
    host: &Host,
    progress: &Progress,
    asker: Option<&dyn Asker>,
    log: &dyn Fn(Line),
) -> Action {
    let request_id = run.request_id.clone();
    let envelope = run.envelope.clone();
    let mut ctx = ctx.clone();
    for _ in 0..MAX_INLINE_STEPS {
        let stepped = match logged_step(server, &run, &ctx, host, progress, log).await {
            // Its checkpoint goes with the call (sealed in the round's `requestState`, or
            // into the task it becomes); then it asks as any step does.
            Step::NeedInputAt {
                requests,
                checkpoint,
            } => {
                run.carried.checkpoint = checkpoint;
                Step::NeedInput(requests)
            }
            other => other,
        };
        let outcome = match stepped {
            Step::Complete(mut result) => match check_result(&result, run.target.is_tool(), None) {
                Err(why) => Err(McpError::Internal(format!("{} {why}", run.target.name()))),
                Ok(()) => {
                    result["resultType"] = RESULT_COMPLETE.into();
                    return Action::Respond(result_response(&request_id, &result, &envelope));
                }
            },
            Step::Fail(error) => Err(McpError::Wire(error)),
            // A question this client cannot be asked: as a job, the handle tools answer it.
            Step::NeedInput(requests)
                if run.becomes == Becomes::Job
                    && input::check_requests(&requests).is_ok()
                    && input::check_capabilities(&requests, &run.capabilities).is_err() =>
            {
                return detach(server, run, Continued::default(), &ctx);
            }
            Step::NeedInput(requests) | Step::NeedInputAt { requests, .. } => {
                match check_step_requests(&run, &requests)
                    .and_then(|()| take_offered(&mut run, &requests))
                {
                    Err(e) => Err(e),
                    Ok(true) => {
                        run.carried.rounds += 1;
                        continue;
                    }
                    // A tool that asks in its task (`Tool::ask_in_task`), for a client with
                    // the Tasks extension: the question makes the call a task that asks it
                    // (SEP-2663: the server decides what becomes a task), from any step, the
                    // first included; the step is not run again to ask.
                    Ok(false) if run.becomes == Becomes::Task && asks_in_task(server, &run) => {
                        let next = Continued {
                            asking: Some(requests),
                            ..Continued::default()
                        };
                        return create_task(server, run, next, &ctx);
                    }
                    Ok(false) => match asker {
                        None => input_required(server, run, requests, &ctx),
                        Some(asker) => match ask(asker, requests).await {
                            Ok(answers) => {
                                run.carried.answers.extend(answers);
                                run.carried.rounds += 1;
                                ctx.now_ms = host.now_ms();
                                continue;
                            }
                            Err(e) => Err(e),
                        },
                    },
                }
            }
            Step::Continue {
                checkpoint,
                status_message,
                progress,
                resume_after_ms,
            } => {
                if let Some(checkpoint) = checkpoint {
                    run.carried.checkpoint = checkpoint;
                }
                match run.becomes {
                    Becomes::Task => {
                        let next = Continued {
                            status_message,
                            amount: progress,
                            resume_after_ms,
                            asking: None,
                        };
                        return create_task(server, run, next, &ctx);
                    }
                    // A step that goes on at once runs here like the first (a tool that
                    // asks from its second step keeps asking by MRTR); one that waits, or
                    // runs out of the budget, becomes a job.
                    Becomes::Job
                        if resume_after_ms > 0
                            || ctx.now_ms.saturating_sub(run.started_at_ms)
                                >= server.config.inline_budget_ms =>
                    {
                        let next = Continued {
                            status_message,
                            amount: progress,
                            resume_after_ms,
                            asking: None,
                        };
                        return detach(server, run, next, &ctx);
                    }
                    Becomes::Job | Becomes::Inline => {}
                }
                let used = ctx.now_ms.saturating_sub(run.started_at_ms);
                if used.saturating_add(resume_after_ms) > server.config.inline_budget_ms {
                    Err(Capability::TasksExtension.missing(&format!(
                        "{} needs more time than this server runs a call inline ({} ms); declare the extension to run it as a task",
                        run.target.name(),
                        server.config.inline_budget_ms
                    )))
                } else {
                    if resume_after_ms > 0 {
                        host.sleep(resume_after_ms).await;
                    }
                    ctx.now_ms = host.now_ms();
                    continue;
                }
            }
        };
        return outcome.unwrap_or_else(|e| {
            Action::Respond(super::error_response(Some(&request_id), &e, &envelope))
        });
    }
    let e = McpError::Internal(format!(
        "{} did not finish within {MAX_INLINE_STEPS} steps",
        run.target.name()
    ));
    Action::Respond(super::error_response(Some(&request_id), &e, &envelope))
}

fn asks_in_task(server: &Server, run: &InlineRun) -> bool {
    match &run.target {
        Target::Tool(name) => server.registry.get(name).is_some_and(|t| t.asks_in_task()),
        Target::Prompt(_) => false,
    }
}

/// A step's input requests, checked before they are sent: well-formed (else the tool has
/// a bug, named) and only for capabilities the client declared.
fn check_step_requests(run: &InlineRun, requests: &Map<String, Value>) -> Result<(), McpError> {
    input::check_requests(requests).map_err(|why| {
        McpError::Internal(format!(
            "{} returned an illegal step: {why}",
            run.target.name()
        ))
    })?;
    input::check_capabilities(requests, &run.capabilities)
}

/// Answers already offered for keys the step now asks (see [`InlineRun::offered`]),
/// each checked against its request and moved to the answers. `Ok(true)` if any was, so
/// the step runs again without a round trip.
fn take_offered(run: &mut InlineRun, requests: &Map<String, Value>) -> Result<bool, McpError> {
    let mut took = false;
    for (key, request) in requests {
        if let Some(answer) = run.offered.remove(key) {
            input::check_answer(key, request, &answer)?;
            run.carried.answers.insert(key.clone(), answer);
            took = true;
        }
    }
    Ok(took)
}

/// Asks the client directly (legacy sessions); the answers as `input::answered` takes them.
async fn ask(
    asker: &dyn Asker,
    requests: Map<String, Value>,
) -> Result<Map<String, Value>, McpError> {
    let answers = asker.ask(requests.clone()).await?;
    input::answered(&requests, answers)
}

/// An MRTR `InputRequiredResult` (mrtr "Server Requirements"): only for capabilities the
/// client declared, with the answers so far and the checkpoint sealed in `requestState`.
fn input_required(
    server: &Server,
    run: InlineRun,
    requests: Map<String, Value>,
    ctx: &Context,
) -> Result<Action, McpError> {
    let carried = Carried {
        rounds: run.carried.rounds + 1,
        ..run.carried
    };
    let request_key = run.target.request_key();
    let binding = Binding {
        principal: &ctx.principal,
        request: &request_key,
        arguments: &run.arguments,
    };
    let state = server.seal_round(&requests, carried, binding, ctx.now_ms)?;
    let result = task::input_required(&requests, &state);
    Ok(Action::Respond(result_response(
        &run.request_id,
        &result,
        &run.envelope,
    )))
}

/// What the step a call goes on after leaves for the task it becomes: its status message,
/// its progress in numbers, and when the next step runs; or the questions it asks.
#[derive(Debug, Default)]
struct Continued {
    status_message: Option<String>,
    amount: Option<Amount>,
    resume_after_ms: u64,
    asking: Option<Map<String, Value>>,
}

/// The task a call continues in: its first step's checkpoint, answers and status, and
/// the questions it asks, if it does.
fn record(
    server: &Server,
    run: &mut InlineRun,
    next: Continued,
    ctx: &Context,
) -> Result<TaskRecord, McpError> {
    let Target::Tool(tool) = &run.target else {
        unreachable!("only tools become tasks or jobs: prompts always run inline")
    };
    let registered = server.registry.get(tool);
    let ttl = server.config.task_ttl(registered.and_then(|t| t.ttl_ms()));
    let record = TaskRecord::new(NewTask {
        tool: tool.clone(),
        title: registered.and_then(|t| t.given_title()).map(str::to_owned),
        owner: ctx.principal.clone(),
        arguments: run.arguments.clone(),
        capabilities: run.capabilities.0.clone(),
        checkpoint: std::mem::take(&mut run.carried.checkpoint),
        answers: std::mem::take(&mut run.carried.answers),
        status_message: next.status_message,
        amount: next.amount,
        now_ms: ctx.now_ms,
        ttl_ms: ttl,
        poll_interval_ms: server.config.poll_interval_ms,
        next_step_at_ms: ctx.now_ms.saturating_add(next.resume_after_ms),
    });
    match next.asking {
        None => Ok(record),
        Some(requests) => record
            .asking(requests, ctx.now_ms)
            .map_err(|refused| McpError::Internal(format!("a new task cannot ask: {refused:?}"))),
    }
}

fn create_task(server: &Server, mut run: InlineRun, next: Continued, ctx: &Context) -> Action {
    match record(server, &mut run, next, ctx) {
        Ok(record) => Action::CreateTask {
            request_id: run.request_id,
            record: Box::new(record),
            envelope: run.envelope,
        },
        Err(e) => Action::Respond(super::error_response(
            Some(&run.request_id),
            &e,
            &run.envelope,
        )),
    }
}

/// A job (`jobs`): the same task as [`create_task`]'s, which the adapter then follows
/// for the call within the inline budget.
fn detach(server: &Server, mut run: InlineRun, next: Continued, ctx: &Context) -> Action {
    // Its questions may need what the handle tools answer for any client (`jobs`); the
    // client is asked only what it declared.
    let client = run.capabilities.clone();
    run.capabilities.0 = client.answerable_by_job();
    let reported = next.amount.map_or(0.0, |a| a.progress);
    let record = match record(server, &mut run, next, ctx) {
        Ok(record) => record,
        Err(e) => {
            return Action::Respond(super::error_response(
                Some(&run.request_id),
                &e,
                &run.envelope,
            ));
        }
    };
    let name = run.target.name();
    let reader = jobs::reader(name);
    let job = JobRun {
        request_id: run.request_id,
        envelope: run.envelope,
        job: String::new(),
        first: None,
        wait_ms: jobs::wait_ms(server, &reader, &run.arguments),
        reader,
        progress_token: run.progress_token,
        reported,
        capabilities: client,
        request_key: run.target.request_key(),
        arguments: run.arguments,
        max_wait_s: jobs::max_wait_s(&server.config),
    };
    Action::Detach {
        record: Box::new(record),
        run: Box::new(job),
    }
}
