//! An in-memory TaskObject: the core's runner (`objects::task`) on a platform of a
//! key-value map, one alarm, and lists of what was pushed and logged. The double decides
//! nothing: reorder the runner's effects and these tests see it.

use mcp_tasks_edge::host::{Host, block_on, fake::FakeHost};
use mcp_tasks_edge::http::HttpRequest;
use mcp_tasks_edge::objects::task::live;
use mcp_tasks_edge::objects::task::{self as runner, Runtime, TaskPlatform, Write};
use mcp_tasks_edge::ops::log::Line;
use mcp_tasks_edge::pairs::Pairs;
use mcp_tasks_edge::server::{Action, Server};
use mcp_tasks_edge::tasks::execution::Limits;
use mcp_tasks_edge::tasks::layout::{self, Need, Stored};
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::record::TaskRecord;
use mcp_tasks_edge::tasks::watch::WatchMessage;
use mcp_tasks_edge::tools::Registry;
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub const ID: &str = "0123456789abcdef0123456789abcdef";
/// The request id the Worker would pass with every request (`ops::log`).
pub const TRACE: &str = "req-1";

/// What the platform was asked to do, in order (`Object::effects`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Write,
    Print,
    Push,
    TaskEnded,
}

pub struct Object {
    pub storage: BTreeMap<String, String>,
    pub alarm: Option<u64>,
    pub registry: Registry,
    pub limits: Limits,
    pub host: FakeHost,
    /// The attempt "this instance" is running (memory: cleared by `restart`).
    pub running: Option<u32>,
    /// Where a step running "here" hears of requests' writes (memory, as `running`).
    pub live: Option<live::Sender>,
    /// While an alarm handler runs: whether anything set the alarm since it fired. As on
    /// the platform, the fired alarm stays armed until its handler returns, and is then
    /// deleted unless it was set meanwhile; after a crash (`restart`) it fires again.
    handler: Option<bool>,
    /// What the object pushed to its watchers, in order.
    pub pushed: Vec<WatchMessage>,
    /// The log lines the adapter would print, in order (`ops::log`).
    pub logged: Vec<Line>,
    /// Every effect, in order.
    pub effects: Vec<Effect>,
    /// Whether the owner's ledger counts live tasks (so `task_ended` is called).
    pub counts_live_tasks: bool,
    /// The tasks reported ended to the owner's ledger: (owner, task id).
    pub ended: Vec<(String, String)>,
    /// The watchers' sockets the object holds.
    pub watchers: usize,
    now: u64,
}

impl TaskPlatform for Object {
    async fn hot(&mut self) -> Result<Option<String>, String> {
        Ok(self.storage.get(layout::HOT_KEY).cloned())
    }

    async fn rows(&mut self, keys: Vec<String>) -> Result<Pairs<String, String>, String> {
        Ok(keys
            .into_iter()
            .filter_map(|k| self.storage.get(&k).map(|v| (k, v.clone())))
            .collect())
    }

    async fn write(&mut self, write: Write) -> Result<(), String> {
        self.effects.push(Effect::Write);
        if write.erase {
            self.storage.clear();
            self.alarm = None;
            return Ok(());
        }
        for (k, v) in write.put {
            self.storage.insert(k, v);
        }
        for k in write.delete {
            self.storage.remove(&k);
        }
        if let Some(alarm) = write.alarm {
            self.alarm = alarm;
            if self.handler.is_some() {
                self.handler = Some(true);
            }
        }
        Ok(())
    }

    fn push(&mut self, message: &WatchMessage) {
        self.effects.push(Effect::Push);
        self.pushed.push(message.clone());
    }

    fn watchers(&self) -> usize {
        self.watchers
    }

    fn print(&mut self, lines: Vec<Line>) {
        if !lines.is_empty() {
            self.effects.push(Effect::Print);
        }
        self.logged.extend(lines);
    }

    async fn task_ended(&mut self, owner: &str, task_id: &str) {
        self.effects.push(Effect::TaskEnded);
        self.ended.push((owner.to_owned(), task_id.to_owned()));
    }

    fn now_ms(&self) -> u64 {
        self.now
    }

    fn host(&self) -> Host {
        Host::new(self.host.clone())
    }

    fn running(&self) -> Option<u32> {
        self.running
    }

    fn set_running(&mut self, attempt: Option<u32>) {
        self.running = attempt;
    }

    fn live(&self) -> Option<live::Sender> {
        self.live.clone()
    }

    fn set_live(&mut self, live: Option<live::Sender>) {
        self.live = live;
    }
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
            live: None,
            handler: None,
            pushed: Vec::new(),
            logged: Vec::new(),
            effects: Vec::new(),
            counts_live_tasks: false,
            ended: Vec::new(),
            watchers: 0,
            now: 0,
        }
    }

    /// Runs `f` with the runner's view of the server (the registry is cloned: the runner
    /// borrows it while it borrows this platform mutably).
    fn with_runtime<T>(&mut self, now: u64, f: impl AsyncFnOnce(&mut Self, Runtime<'_>) -> T) -> T {
        self.now = now;
        let registry = self.registry.clone();
        let rt = Runtime {
            registry: &registry,
            limits: self.limits,
            counts_live_tasks: self.counts_live_tasks,
        };
        block_on(f(self, rt))
    }

    /// The clock of the runner's next calls (`with_runtime` sets it for its own).
    pub fn set_now(&mut self, now: u64) {
        self.now = now;
    }

    pub fn load(&mut self, need: Need) -> Option<Stored> {
        block_on(runner::load(self, need)).expect("the task decodes")
    }

    /// The record with every part.
    pub fn record(&mut self) -> Option<TaskRecord> {
        Some(self.load(Need::All)?.record)
    }

    /// The alarm handler returned: the fired alarm is deleted unless it was set meanwhile.
    fn handler_returned(&mut self) {
        if self.handler.take() == Some(false) {
            self.alarm = None;
        }
    }

    pub fn request(&mut self, request: ObjectRequest, principal: &str, now: u64) -> ObjectReply {
        self.with_runtime(now, async |o, rt| {
            runner::request(o, rt, request, principal, Some(TRACE)).await
        })
        .expect("the runner answers")
    }

    /// A request as it arrived (`body`, or why it could not be read), as the object serves it.
    pub fn serve(
        &mut self,
        body: Result<Vec<u8>, String>,
        principal: &str,
        now: u64,
    ) -> ObjectReply {
        self.with_runtime(now, async |o, rt| {
            runner::serve(o, rt, body, principal, Some(TRACE)).await
        })
        .expect("the runner answers")
    }

    /// A watch request of `principal`: the socket's first message, or the refusal.
    pub fn watch(&mut self, principal: &str, now: u64) -> Result<WatchMessage, ObjectReply> {
        self.now = now;
        block_on(runner::watch(self, ID, principal)).expect("the runner answers")
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
        let attempt = self
            .with_runtime(now, async |o, rt| runner::alarm_plan(o, rt).await)
            .expect("the state machine accepts the alarm");
        if attempt.is_none() {
            self.handler_returned();
        }
        attempt
    }

    /// The alarm's second half: run attempt `attempt` of the step and apply its outcome
    /// to whatever the record is by then.
    pub fn run(&mut self, attempt: u32, now: u64) {
        self.with_runtime(now, async |o, rt| runner::alarm_step(o, rt, attempt).await)
            .expect("the state machine accepts the outcome");
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

/// The task `request` (a `tools/call`) makes on `server`, stored as [`ID`] in a new object
/// at `super::NOW`: the object and the `CreateTaskResult` it answered.
pub fn create_from(server: &Server, request: &HttpRequest) -> (Object, Value) {
    let Action::CreateTask { mut record, .. } =
        super::run_action(server, server.handle(request, &super::ctx()))
    else {
        panic!("expected the call to make a task")
    };
    record.assign_id(ID.into());
    let mut o = Object::new(server.registry.clone(), server.limits());
    match o.request(ObjectRequest::Create { record }, "anonymous", super::NOW) {
        ObjectReply::Result(created) => (o, created),
        refused => panic!("create failed: {refused:?}"),
    }
}
