//! An in-memory TaskObject: a key-value map laid out by `tasks::layout` and one alarm,
//! driven by the pure functions exactly as the Cloudflare adapter drives them.

use mcp_tasks_edge::host::{Host, block_on, fake::FakeHost};
use mcp_tasks_edge::ops::admin;
use mcp_tasks_edge::ops::log::{self, Line};
use mcp_tasks_edge::pairs::Pairs;
use mcp_tasks_edge::tasks::execution::{self, AlarmPlan, Limits};
use mcp_tasks_edge::tasks::layout::{self, Need, Stored};
use mcp_tasks_edge::tasks::object::{self, Effects};
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::record::TaskRecord;
use mcp_tasks_edge::tasks::timeline;
use mcp_tasks_edge::tasks::watch::{self, WatchMessage};
use mcp_tasks_edge::tools::Registry;
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub const ID: &str = "0123456789abcdef0123456789abcdef";
/// The request id the Worker would pass with every request (`ops::log`).
pub const TRACE: &str = "req-1";

pub struct Object {
    pub storage: BTreeMap<String, String>,
    pub alarm: Option<u64>,
    pub registry: Registry,
    pub limits: Limits,
    pub host: FakeHost,
    /// The attempt "this instance" is running (memory: cleared by `restart`).
    pub running: Option<u32>,
    /// While an alarm handler runs: whether anything set the alarm since it fired. As on
    /// the platform, the fired alarm stays armed until its handler returns, and is then
    /// deleted unless it was set meanwhile; after a crash (`restart`) it fires again.
    handler: Option<bool>,
    /// What the object pushed to its watchers, in order.
    pub pushed: Vec<WatchMessage>,
    /// The log lines the adapter would print, in order (`ops::log`).
    pub logged: Vec<Line>,
    /// The Worker's request id while a request is handled (alarms have none).
    trace: Option<&'static str>,
}

impl Object {
    pub fn new(registry: Registry, limits: Limits) -> Self {
        Object {
            storage: BTreeMap::new(),
            alarm: None,
            registry,
            limits,
            host: FakeHost::new(),
            running: None,
            handler: None,
            pushed: Vec::new(),
            logged: Vec::new(),
            trace: None,
        }
    }

    pub fn load(&self, need: Need) -> Option<Stored> {
        let hot = self.storage.get(layout::HOT_KEY)?;
        let mut stored = layout::decode_hot(hot).expect("hot record decodes");
        let values: Pairs<String, String> = layout::keys_for(&stored, need)
            .into_iter()
            .filter_map(|k| self.storage.get(&k).map(|v| (k, v.clone())))
            .collect();
        layout::fill(&mut stored, need, &values).expect("parts decode");
        Some(stored)
    }

    /// The record with every part.
    pub fn record(&self) -> Option<TaskRecord> {
        Some(self.load(Need::All)?.record)
    }

    /// Writes `effects` with the transition they make in the timeline, then records what
    /// watchers are sent and what is logged (as the adapter does).
    pub fn apply(&mut self, before: Option<&Stored>, mut effects: Effects) {
        let before_record = before.map(|s| &s.record);
        timeline::note(&mut effects, before_record);
        watch::stamp(&mut effects, before);
        self.pushed.extend(watch::after_write(&effects));
        if let Some(after) = &effects.store {
            self.logged.extend(log::lease_taken(before_record, after));
            if let Some(entry) = &effects.dirty.timeline {
                self.logged
                    .extend(log::transition(entry, after, self.trace));
            }
        }
        if let (true, Some(record)) = (effects.delete_all, before_record) {
            self.logged.push(log::expired(record));
        }
        self.write(before, effects);
    }

    fn write(&mut self, before: Option<&Stored>, effects: Effects) {
        if effects.delete_all {
            self.storage.clear();
            self.alarm = None;
            return;
        }
        if let Some(record) = &effects.store {
            let (parts, dirty) = effects.dirty.clone().over(before, record);
            let (writes, _) = layout::encode(record, &parts, &dirty);
            for (k, v) in writes.put {
                self.storage.insert(k, v);
            }
            for k in writes.delete {
                self.storage.remove(&k);
            }
        }
        if let Some(alarm) = effects.alarm {
            self.alarm = alarm;
            if self.handler.is_some() {
                self.handler = Some(true);
            }
        }
    }

    /// The alarm handler returned: the fired alarm is deleted unless it was set meanwhile.
    fn handler_returned(&mut self) {
        if self.handler.take() == Some(false) {
            self.alarm = None;
        }
    }

    pub fn request(&mut self, request: ObjectRequest, principal: &str, now: u64) -> ObjectReply {
        let need = match request {
            ObjectRequest::Get { .. } => Need::Result,
            ObjectRequest::Cancel { .. }
            | ObjectRequest::OperatorCancel { .. }
            | ObjectRequest::LegacyCancel { .. } => Need::Step,
            ObjectRequest::Timeline { .. } | ObjectRequest::Inspect { .. } => Need::Timeline,
            _ => Need::Hot,
        };
        let stored = self.load(need);
        match &request {
            ObjectRequest::Timeline { task_id } => {
                return timeline::owner_view(stored.as_ref(), task_id, principal, now);
            }
            ObjectRequest::Inspect { task_id } => {
                return admin::inspect(stored.as_ref(), task_id, now);
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
        self.trace = Some(TRACE);
        self.apply(stored.as_ref(), effects);
        self.trace = None;
        if let Some(record) = cancelled
            && let Some(tool) = self.registry.get(record.tool())
        {
            block_on(tool.cancelled(record.call(now, 0), Host::new(self.host.clone())));
        }
        reply
    }

    pub fn get_as(&mut self, principal: &str, now: u64) -> Value {
        match self.request(ObjectRequest::Get { task_id: ID.into() }, principal, now) {
            ObjectReply::Result(v) => v,
            ObjectReply::Error(e) => json!({ "error": e.code.0, "message": e.message }),
        }
    }

    pub fn get(&mut self, now: u64) -> Value {
        self.get_as("anonymous", now)
    }

    pub fn update(&mut self, responses: Value, now: u64) -> ObjectReply {
        self.update_as(responses, "anonymous", now)
    }

    pub fn update_as(&mut self, responses: Value, principal: &str, now: u64) -> ObjectReply {
        let Value::Object(input_responses) = responses else {
            panic!("responses must be an object")
        };
        self.request(
            ObjectRequest::Update {
                task_id: ID.into(),
                input_responses,
            },
            principal,
            now,
        )
    }

    /// The alarm's first half: what it plans (and, for a step, the lease it stores).
    pub fn plan(&mut self, now: u64) -> Option<u32> {
        self.handler = Some(false);
        let stored = self.load(Need::Hot);
        let plan = execution::alarm(
            stored.as_ref().map(|s| s.record.clone()),
            now,
            self.running,
            self.limits,
        )
        .expect("the state machine accepts the alarm");
        match plan {
            AlarmPlan::Done(effects) => {
                self.apply(stored.as_ref(), effects);
                self.handler_returned();
                None
            }
            AlarmPlan::RunStep { lease, attempt } => {
                self.apply(stored.as_ref(), lease);
                self.running = Some(attempt);
                Some(attempt)
            }
        }
    }

    /// The alarm's second half: run attempt `attempt` of the step and apply its outcome
    /// to whatever the record is by then.
    pub fn run(&mut self, attempt: u32, now: u64) {
        let full = self.load(Need::Step).expect("a task");
        let host = Host::new(self.host.clone());
        let step = block_on(execution::run_step(
            &full.record,
            &self.registry,
            host,
            now,
            attempt,
        ));
        self.running = None;
        let outcome = log::step_outcome(&step);
        let current = self.load(Need::Hot);
        let effects = execution::finish(
            current.as_ref().map(|s| s.record.clone()),
            attempt,
            step,
            now,
            self.limits,
        )
        .expect("the state machine accepts the outcome");
        let applied = effects.store.is_some();
        self.logged.push(log::step_finished(
            &full.record,
            attempt,
            outcome,
            7,
            applied,
        ));
        self.apply(current.as_ref(), effects);
        self.handler_returned();
    }

    /// Fires the alarm if it is due at `now`: the whole cycle.
    pub fn tick(&mut self, now: u64) {
        if self.alarm.is_some_and(|at| at <= now)
            && let Some(attempt) = self.plan(now)
        {
            self.run(attempt, now);
        }
    }

    /// The instance dies: memory is gone, storage stays.
    pub fn restart(&mut self) {
        self.running = None;
        self.handler = None;
    }
}
