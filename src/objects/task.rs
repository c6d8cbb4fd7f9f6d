//! The task object's runner: one object per task, named by the task id.
//!
//! Per request: load the hot record (and the parts the request needs), decide
//! (`tasks::object::handle`), then [`apply`]: the transition into the timeline, the write
//! numbered for watchers, **the write**, and only then the log lines and the push. A
//! reply leaves after its write (on Cloudflare the output gate holds it until the write
//! is durable), which is what makes creation strongly consistent; a watcher is never told
//! of a state that storage could still lose. Per alarm: expiry, a lost attempt, or the
//! due step under a lease that is durable before the step runs (`tasks::execution`).

use crate::error::McpError;
use crate::host::Host;
use crate::ops::admin;
use crate::ops::log::{self as logs, Line};
use crate::pairs::Pairs;
use crate::tasks::execution::{self, AlarmPlan, Limits};
use crate::tasks::layout::{self, Need, Stored};
use crate::tasks::machine::Illegal;
use crate::tasks::object::{self, Effects};
use crate::tasks::protocol::{ObjectReply, ObjectRequest};
use crate::tasks::timeline;
use crate::tasks::watch::{self, WatchMessage};
use crate::tools::Registry;
use std::fmt;

pub mod live;

pub use super::Write;

/// Why a runner could not finish: the platform failed, or the state machine refused
/// what it was asked (a bug to surface, never to hide).
#[derive(Debug, Clone, PartialEq)]
pub enum RunError {
    Storage(String),
    Refused(Illegal),
    /// The stored record does not decode.
    Corrupt(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Storage(why) => write!(f, "task storage failed: {why}"),
            RunError::Refused(illegal) => write!(f, "task state machine refused: {illegal:?}"),
            RunError::Corrupt(why) => write!(f, "task record does not decode: {why}"),
        }
    }
}

/// What a task object needs of its platform: rows, an alarm, a clock, and where effects
/// go. No decisions: the runner makes them all.
// Futures here are never sent between threads (wasm and the tests' executor are single
// threaded), so the `Send` bound `async fn` in a public trait cannot state is not needed.
#[allow(async_fn_in_trait)]
pub trait TaskPlatform {
    /// The hot record's row (`layout::HOT_KEY`), if the task exists.
    async fn hot(&mut self) -> Result<Option<String>, String>;
    /// The rows of `keys` that exist.
    async fn rows(&mut self, keys: Vec<String>) -> Result<Pairs<String, String>, String>;
    /// Issues `write` as one transaction.
    async fn write(&mut self, write: Write) -> Result<(), String>;
    /// Sends `message` to every watcher's socket.
    fn push(&mut self, message: &WatchMessage);
    /// How many watchers' sockets the object holds.
    fn watchers(&self) -> usize;
    /// Prints `lines` (the platform's settings decide which).
    fn print(&mut self, lines: Vec<Line>);
    /// Tells the owner's quota ledger that the task ended (after its write).
    async fn task_ended(&mut self, owner: &str, task_id: &str);
    /// Unix milliseconds.
    fn now_ms(&self) -> u64;
    /// The host steps and cancel hooks run on.
    fn host(&self) -> Host;
    /// The attempt this instance is running: memory, not storage, so an instance that
    /// restarted has none, which is how a lost attempt is recognised.
    fn running(&self) -> Option<u32>;
    fn set_running(&mut self, attempt: Option<u32>);
    /// Where this instance's running step hears that a request wrote the task (memory:
    /// set while a step runs here, [`live`]).
    fn live(&self) -> Option<live::Sender>;
    fn set_live(&mut self, live: Option<live::Sender>);
}

/// What the runner takes from the server's definition and configuration.
#[derive(Clone, Copy)]
pub struct Runtime<'a> {
    pub registry: &'a Registry,
    pub limits: Limits,
    /// Whether the owner's quota ledger counts live tasks (`LIVE_TASKS_MAX`).
    pub counts_live_tasks: bool,
}

impl<'a> Runtime<'a> {
    pub fn of(server: &'a crate::server::Server) -> Self {
        Runtime {
            registry: &server.registry,
            limits: server.limits(),
            counts_live_tasks: server.config.quotas.live_tasks.is_some(),
        }
    }
}

/// What a request needs loaded.
fn need_of(request: &ObjectRequest) -> Need {
    match request {
        ObjectRequest::Get { .. } => Need::Result,
        // The cancel hook sees the arguments and the last checkpoint.
        ObjectRequest::Cancel { .. }
        | ObjectRequest::OperatorCancel { .. }
        | ObjectRequest::LegacyCancel { .. } => Need::Step,
        ObjectRequest::Create { .. } | ObjectRequest::Update { .. } => Need::Hot,
        ObjectRequest::Timeline { .. } | ObjectRequest::Inspect { .. } => Need::Timeline,
    }
}

/// Reads the task: the hot record, then the parts `need` names that it does not hold
/// (one more read, none for a small task).
pub async fn load<P: TaskPlatform>(p: &mut P, need: Need) -> Result<Option<Stored>, RunError> {
    let Some(hot) = p.hot().await.map_err(RunError::Storage)? else {
        return Ok(None);
    };
    let mut stored = layout::decode_hot(&hot).map_err(|e| RunError::Corrupt(e.to_string()))?;
    let keys = layout::keys_for(&stored, need);
    let values = if keys.is_empty() {
        Pairs::new()
    } else {
        p.rows(keys).await.map_err(RunError::Storage)?
    };
    // Always: what the hot record holds inline (timeline entries) is filled in too.
    layout::fill(&mut stored, need, &values).map_err(|e| RunError::Corrupt(e.to_string()))?;
    Ok(Some(stored))
}

/// The rows and alarm `effects` write over `before`.
fn write_of(before: Option<&Stored>, effects: &Effects) -> Write {
    if effects.delete_all {
        return Write::erase();
    }
    let (put, delete) = match &effects.store {
        Some(record) => {
            let (parts, dirty) = effects.dirty.clone().over(before, record);
            let (writes, _) = layout::encode(record, &parts, &dirty);
            (writes.put, writes.delete)
        }
        None => (Vec::new(), Vec::new()),
    };
    Write {
        erase: false,
        put,
        delete,
        alarm: effects.alarm,
    }
}

/// Applies `effects`: the transition they make goes into the task's timeline
/// ([`timeline::note`]) and the write is numbered for watchers ([`watch::stamp`]); then
/// the write, one transaction; then, once it is written, the log lines (`request_id`: the
/// Worker's request that caused it, if one did), the push to watchers, and the quota
/// ledger if the task ended.
pub async fn apply<P: TaskPlatform>(
    p: &mut P,
    rt: Runtime<'_>,
    before: Option<&Stored>,
    mut effects: Effects,
    request_id: Option<&str>,
) -> Result<(), RunError> {
    let before_record = before.map(|s| &s.record);
    timeline::note(&mut effects, before_record);
    watch::stamp(&mut effects, before);
    let pushed = watch::after_write(&effects);
    let mut lines = Vec::new();
    if let Some(after) = &effects.store {
        lines.extend(logs::lease_taken(before_record, after));
        if let Some(entry) = &effects.dirty.timeline {
            lines.extend(logs::transition(entry, after, request_id));
        }
    }
    if let (true, Some(record)) = (effects.delete_all, before_record) {
        lines.push(logs::expired(record));
    }
    let ended = effects
        .ended(before_record)
        .filter(|_| rt.counts_live_tasks)
        .map(|(owner, id)| (owner.to_owned(), id.to_owned()));
    let write = write_of(before, &effects);
    if write != Write::default() {
        p.write(write).await.map_err(RunError::Storage)?;
    }
    p.print(lines);
    if let Some(message) = pushed {
        p.push(&message);
    }
    if let Some((owner, task_id)) = ended {
        p.task_ended(&owner, &task_id).await;
    }
    Ok(())
}

/// A request from the Worker as it arrived (its body, or why it could not be read): its
/// [`request`]'s reply, or the refusal of a body that does not decode (the Worker's bug,
/// answered in the object protocol, nothing loaded).
pub async fn serve<P: TaskPlatform>(
    p: &mut P,
    rt: Runtime<'_>,
    body: Result<Vec<u8>, String>,
    principal: &str,
    request_id: Option<&str>,
) -> Result<ObjectReply, RunError> {
    let decoded = body.and_then(|body| crate::jsonrpc::read(&body).map_err(|e| e.to_string()));
    match decoded {
        Ok(request) => self::request(p, rt, request, principal, request_id).await,
        Err(e) => {
            let refused = McpError::InvalidRequest(format!("bad object request: {e}"));
            Ok(ObjectReply::Error(refused.to_wire()))
        }
    }
}

/// A request from the Worker (`tasks::protocol`): its reply, sent after its write.
pub async fn request<P: TaskPlatform>(
    p: &mut P,
    rt: Runtime<'_>,
    request: ObjectRequest,
    principal: &str,
    request_id: Option<&str>,
) -> Result<ObjectReply, RunError> {
    let stored = load(p, need_of(&request)).await?;
    let now = p.now_ms();
    // Reads of the timeline, answered from it (nothing is written).
    match &request {
        ObjectRequest::Timeline { task_id } => {
            return Ok(timeline::owner_view(
                stored.as_ref(),
                task_id,
                principal,
                now,
            ));
        }
        ObjectRequest::Inspect { task_id } => {
            return Ok(admin::inspect(stored.as_ref(), task_id, now));
        }
        _ => {}
    }
    let (reply, effects) = object::handle(
        stored.as_ref().map(|s| s.record.clone()),
        request,
        principal,
        now,
    );
    let cancelled = effects.store.clone().filter(|_| effects.cancel_hook);
    let wrote = effects.store.is_some() || effects.delete_all;
    apply(p, rt, stored.as_ref(), effects, request_id).await?;
    if let (true, Some(live)) = (wrote, p.live()) {
        // A step running here may wait for these answers, or hold what a cancel ends.
        live.send(live::Event::Changed);
    }
    if let Some(record) = cancelled
        && let Some(tool) = rt.registry.get(record.tool())
    {
        // Best effort: the task is already cancelled whatever the hook does.
        tool.cancelled(record.call(p.now_ms(), 0), p.host()).await;
    }
    Ok(reply)
}

/// A watch request (`tasks::watch`): the socket's first message, or the reply that
/// refuses it.
pub async fn watch<P: TaskPlatform>(
    p: &mut P,
    task_id: &str,
    principal: &str,
) -> Result<Result<WatchMessage, ObjectReply>, RunError> {
    let stored = load(p, Need::Result).await?;
    let now = p.now_ms();
    Ok(watch::open(
        stored.as_ref().map(|s| &s.record),
        task_id,
        principal,
        now,
        p.watchers(),
    ))
}

/// The alarm: expiry, a lost attempt, or the due step (see `tasks::execution`).
pub async fn alarm<P: TaskPlatform>(p: &mut P, rt: Runtime<'_>) -> Result<(), RunError> {
    if let Some(attempt) = alarm_plan(p, rt).await? {
        alarm_step(p, rt, attempt).await?;
    }
    Ok(())
}

/// The alarm's first half: what it plans. For a step, the lease is written (durable
/// before the step runs: if the instance dies inside the step, the next alarm finds the
/// lease and runs it again) and the attempt returned.
pub async fn alarm_plan<P: TaskPlatform>(
    p: &mut P,
    rt: Runtime<'_>,
) -> Result<Option<u32>, RunError> {
    let stored = load(p, Need::Hot).await?;
    let plan = execution::alarm(
        stored.as_ref().map(|s| s.record.clone()),
        p.now_ms(),
        p.running(),
        rt.limits,
    )
    .map_err(RunError::Refused)?;
    match plan {
        AlarmPlan::Done(effects) => {
            apply(p, rt, stored.as_ref(), effects, None).await?;
            Ok(None)
        }
        AlarmPlan::RunStep { lease, attempt } => {
            apply(p, rt, stored.as_ref(), lease, None).await?;
            // From here this instance runs the attempt: an alarm that fires meanwhile
            // finds it running, not lost.
            p.set_running(Some(attempt));
            Ok(Some(attempt))
        }
    }
}

/// The alarm's second half: runs attempt `attempt` of the step and applies its outcome
/// to whatever the record is by then (requests may have changed it meanwhile: a cancel
/// wins, and the outcome is dropped).
pub async fn alarm_step<P: TaskPlatform>(
    p: &mut P,
    rt: Runtime<'_>,
    attempt: u32,
) -> Result<(), RunError> {
    let Some(full) = load(p, Need::Step).await? else {
        p.set_running(None);
        return Ok(());
    };
    let host = p.host();
    let started = host.now_ms();
    let events = live::Sender::default();
    let mut call = full.record.call(p.now_ms(), attempt);
    call.progress = events.sinks();
    p.set_live(Some(events.clone()));
    let run = execution::run_step(&full.record, rt.registry, host.clone(), call);
    let step = live::drive(p, rt, attempt, run, &events).await;
    p.set_live(None);
    let step = match step {
        Ok(Some(step)) => step,
        // The attempt stopped holding the task (a cancel won): the step was dropped.
        Ok(None) => {
            p.set_running(None);
            return Ok(());
        }
        Err(e) => {
            p.set_running(None);
            return Err(e);
        }
    };
    let duration_ms = host.now_ms().saturating_sub(started);
    p.set_running(None);
    let current = load(p, Need::Hot).await?;
    let outcome = logs::step_outcome(&step);
    let effects = execution::finish(
        current.as_ref().map(|s| s.record.clone()),
        attempt,
        step,
        p.now_ms(),
        rt.limits,
    )
    .map_err(RunError::Refused)?;
    let applied = effects.store.is_some();
    let line = logs::step_finished(&full.record, attempt, outcome, duration_ms, applied);
    let upstream = rt
        .registry
        .get(full.record.tool())
        .and_then(|t| t.upstream());
    p.print(vec![logs::of_upstream(line, upstream)]);
    apply(p, rt, current.as_ref(), effects, None).await
}
