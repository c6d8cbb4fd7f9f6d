//! An in-memory TaskObject: a key-value map laid out by `tasks::layout` and one alarm,
//! driven by the pure functions exactly as the Cloudflare adapter drives them.

use mcp_tasks_edge::host::{Host, block_on, fake::FakeHost};
use mcp_tasks_edge::tasks::layout::{self, Dirty, Need, Stored};
use mcp_tasks_edge::tasks::object::{self, AlarmPlan, Effects, Limits};
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::record::TaskRecord;
use mcp_tasks_edge::tasks::watch::{self, WatchMessage};
use mcp_tasks_edge::tools::Registry;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};

pub const ID: &str = "0123456789abcdef0123456789abcdef";

pub struct Object {
    pub storage: BTreeMap<String, String>,
    pub alarm: Option<u64>,
    pub registry: Registry,
    pub limits: Limits,
    pub host: FakeHost,
    /// The attempt "this instance" is running (memory: cleared by `restart`).
    pub running: Option<u32>,
    /// What the object pushed to its watchers, in order.
    pub pushed: Vec<WatchMessage>,
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
            pushed: Vec::new(),
        }
    }

    pub fn load(&self, need: Need) -> Option<Stored> {
        let hot = self.storage.get(layout::HOT_KEY)?;
        let mut stored = layout::decode_hot(hot).expect("hot record decodes");
        let values: HashMap<String, String> = layout::keys_for(&stored, need)
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

    /// Writes `effects`, then records what watchers are sent (as the adapter does).
    pub fn apply(&mut self, before: Option<&Stored>, mut effects: Effects) {
        watch::stamp(&mut effects, before);
        self.pushed.extend(watch::after_write(&effects));
        self.write(before, effects);
    }

    fn write(&mut self, before: Option<&Stored>, effects: Effects) {
        if effects.delete_all {
            self.storage.clear();
            self.alarm = None;
            return;
        }
        if let Some(record) = &effects.store {
            let (parts, dirty) = match before {
                Some(s) if s.legacy => (layout::Parts::default(), Dirty::all(record)),
                Some(s) => (s.parts.clone(), effects.dirty.clone()),
                None => (layout::Parts::default(), effects.dirty.clone()),
            };
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
        }
    }

    pub fn request(&mut self, request: ObjectRequest, principal: &str, now: u64) -> ObjectReply {
        let need = match request {
            ObjectRequest::Get { .. } => Need::Result,
            ObjectRequest::Cancel { .. } => Need::Step,
            _ => Need::Hot,
        };
        let stored = self.load(need);
        let (reply, effects) = object::handle(
            stored.as_ref().map(|s| s.record.clone()),
            request,
            principal,
            now,
        );
        let cancelled = effects.store.clone().filter(|_| effects.cancel_hook);
        self.apply(stored.as_ref(), effects);
        if let Some(record) = cancelled
            && let Some(tool) = self.registry.get(&record.tool)
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
        let Value::Object(input_responses) = responses else {
            panic!("responses must be an object")
        };
        self.request(
            ObjectRequest::Update {
                task_id: ID.into(),
                input_responses,
            },
            "anonymous",
            now,
        )
    }

    /// The alarm's first half: what it plans (and, for a step, the lease it stores).
    pub fn plan(&mut self, now: u64) -> Option<u32> {
        let stored = self.load(Need::Hot);
        let plan = object::alarm(
            stored.as_ref().map(|s| s.record.clone()),
            now,
            self.running,
            self.limits,
        )
        .expect("the state machine accepts the alarm");
        match plan {
            AlarmPlan::Done(effects) => {
                self.apply(stored.as_ref(), effects);
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
        let step = block_on(object::run_step(
            &full.record,
            &self.registry,
            host,
            now,
            attempt,
        ));
        self.running = None;
        let current = self.load(Need::Hot);
        let effects = object::finish(
            current.as_ref().map(|s| s.record.clone()),
            attempt,
            step,
            now,
            self.limits,
        )
        .expect("the state machine accepts the outcome");
        self.apply(current.as_ref(), effects);
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
    }
}
