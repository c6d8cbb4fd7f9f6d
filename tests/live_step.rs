//! A step that reports while it runs (`objects::live`, `tasks::live`): its progress
//! reaches the task before the step ends, a question it asks mid-step (`Call::ask_now`)
//! becomes the task's input request and the answer reaches the running step, a cancel
//! while it waits drops the step (and whatever it held open), and a question the client
//! cannot answer is refused to the step. The step and the requests interleave on one
//! object, as they do on the platform: the alarm's future is polled by hand between them.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::NOW;
use common::object::{ID, Object};
use mcp_tasks_edge::host::{Host, block_on};
use mcp_tasks_edge::mcp::input::elicit_form;
use mcp_tasks_edge::objects::task::live;
use mcp_tasks_edge::objects::task::{self as runner, Runtime, TaskPlatform, Write};
use mcp_tasks_edge::ops::log::Line;
use mcp_tasks_edge::pairs::Pairs;
use mcp_tasks_edge::tasks::execution::Limits;
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::watch::WatchMessage;
use mcp_tasks_edge::tools::{Call, Registry, Step, TaskSupport, Tool};
use serde_json::{Map, Value, json};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

const LIMITS: Limits = Limits {
    max_attempts: 3,
    lease_ms: 60_000,
    max_result_bytes: 1 << 20,
};

thread_local! {
    /// How many held connections the steps dropped (a stand-in for an upstream call).
    static DROPPED: Cell<u32> = const { Cell::new(0) };
    /// Opens the gate the `reports` step waits at.
    static GATE: Cell<bool> = const { Cell::new(false) };
}

struct Held;
impl Drop for Held {
    fn drop(&mut self) {
        DROPPED.with(|d| d.set(d.get() + 1));
    }
}

fn colour() -> Map<String, Value> {
    let schema = json!({ "type": "object", "properties": { "colour": { "type": "string" } }, "required": ["colour"] });
    let mut requests = Map::new();
    requests.insert("colour".into(), elicit_form("Which colour?", schema));
    requests
}

fn gate() -> impl Future<Output = ()> {
    std::future::poll_fn(|_| match GATE.with(Cell::get) {
        true => Poll::Ready(()),
        false => Poll::Pending,
    })
}

fn tools() -> Vec<Tool> {
    let asks = Tool::new("asks", "asks mid-step")
        .task(TaskSupport::Required)
        .run_json(|call: Call, _host: Host| async move {
            let _held = Held;
            let answers = call.ask_now(colour()).await?;
            call.progress(2.0, Some(2.0), Some("after the answer"));
            Ok(Step::text(format!(
                "colour {}",
                answers["colour"]["content"]["colour"]
            )))
        });
    let reports = Tool::new("reports", "reports, then waits at the gate")
        .task(TaskSupport::Required)
        .run_json(|call: Call, _host: Host| async move {
            call.progress(1.0, Some(3.0), Some("one"));
            call.progress(2.0, Some(3.0), Some("two"));
            gate().await;
            Ok(Step::text("done"))
        });
    vec![asks, reports]
}

/// The object shared by the alarm's future and the requests made while it is paused.
#[derive(Clone)]
struct Shared(Rc<RefCell<Object>>);

impl TaskPlatform for Shared {
    async fn hot(&mut self) -> Result<Option<String>, String> {
        let o = &mut *self.0.borrow_mut();
        block_on(o.hot())
    }
    async fn rows(&mut self, keys: Vec<String>) -> Result<Pairs<String, String>, String> {
        let o = &mut *self.0.borrow_mut();
        block_on(o.rows(keys))
    }
    async fn write(&mut self, write: Write) -> Result<(), String> {
        let o = &mut *self.0.borrow_mut();
        block_on(o.write(write))
    }
    fn push(&mut self, message: &WatchMessage) {
        self.0.borrow_mut().push(message)
    }
    fn watchers(&self) -> usize {
        self.0.borrow().watchers()
    }
    fn print(&mut self, lines: Vec<Line>) {
        self.0.borrow_mut().print(lines)
    }
    async fn task_ended(&mut self, owner: &str, task_id: &str) {
        let o = &mut *self.0.borrow_mut();
        block_on(o.task_ended(owner, task_id))
    }
    fn now_ms(&self) -> u64 {
        self.0.borrow().now_ms()
    }
    fn host(&self) -> Host {
        self.0.borrow().host()
    }
    fn running(&self) -> Option<u32> {
        self.0.borrow().running
    }
    fn set_running(&mut self, attempt: Option<u32>) {
        self.0.borrow_mut().running = attempt;
    }
    fn live(&self) -> Option<live::Sender> {
        self.0.borrow().live.clone()
    }
    fn set_live(&mut self, live: Option<live::Sender>) {
        self.0.borrow_mut().live = live;
    }
}

/// A task of `tool` from a client that declared `capabilities`, created in a new object,
/// its step due and the alarm's first half run (attempt 1 leased): the object, shared.
fn started(tool: &str, capabilities: Value) -> (Shared, Registry) {
    let registry = Registry::new(tools());
    let mut o = Object::new(registry.clone(), LIMITS);
    let record = common::working_task(tool, capabilities, Value::Null);
    let create = ObjectRequest::Create {
        record: Box::new(record),
    };
    assert!(matches!(
        o.request(create, "anonymous", NOW),
        ObjectReply::Result(_)
    ));
    assert_eq!(o.plan(NOW), Some(1));
    o.set_now(NOW);
    (Shared(Rc::new(RefCell::new(o))), registry)
}

type Alarm<'a> = Pin<Box<dyn Future<Output = Result<(), runner::RunError>> + 'a>>;

/// The alarm's second half, running attempt `attempt` of the step on `shared`.
fn alarm<'a>(shared: &Shared, registry: &'a Registry, attempt: u32) -> Alarm<'a> {
    let mut platform = shared.clone();
    let rt = Runtime {
        registry,
        limits: LIMITS,
        counts_live_tasks: false,
    };
    Box::pin(async move { runner::alarm_step(&mut platform, rt, attempt).await })
}

/// Polls the alarm a few times (every event it can take now): whether it finished.
fn turn(alarm: &mut Alarm<'_>) -> bool {
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..20 {
        if let Poll::Ready(outcome) = alarm.as_mut().poll(&mut cx) {
            outcome.expect("the runner finishes");
            return true;
        }
    }
    false
}

fn get(shared: &Shared) -> Value {
    shared.0.borrow_mut().get(NOW + 5)
}

#[test]
fn a_question_asked_mid_step_is_the_tasks_and_its_answer_reaches_the_running_step() {
    DROPPED.with(|d| d.set(0));
    let (shared, registry) = started("asks", json!({ "elicitation": {} }));
    let mut step = alarm(&shared, &registry, 1);
    assert!(!turn(&mut step), "the step waits for its answer");
    let task = get(&shared);
    assert_eq!(task["status"], "input_required", "{task}");
    let requests = task["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1);
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["params"]["message"], "Which colour?");
    // An answer that does not match the schema is refused; the step keeps waiting.
    let bad = shared.0.borrow_mut().update(
        json!({ key: { "action": "accept", "content": { "colour": 3 } } }),
        NOW + 6,
    );
    assert!(matches!(bad, ObjectReply::Error(_)), "{bad:?}");
    assert!(!turn(&mut step));
    let ok = shared.0.borrow_mut().update(
        json!({ key: { "action": "accept", "content": { "colour": "green" } } }),
        NOW + 7,
    );
    assert!(matches!(ok, ObjectReply::Result(_)), "{ok:?}");
    assert!(turn(&mut step), "the answered step runs to its end");
    let task = get(&shared);
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["result"]["content"][0]["text"], "colour \"green\"");
    assert_eq!(shared.0.borrow().running, None);
    assert!(shared.0.borrow().live.is_none());
    // Held to the end, dropped once by the step itself.
    assert_eq!(DROPPED.with(Cell::get), 1);
}

#[test]
fn a_cancel_while_the_step_waits_drops_the_step_and_what_it_held() {
    DROPPED.with(|d| d.set(0));
    let (shared, registry) = started("asks", json!({ "elicitation": {} }));
    let mut step = alarm(&shared, &registry, 1);
    assert!(!turn(&mut step));
    assert_eq!(DROPPED.with(Cell::get), 0);
    let cancel = ObjectRequest::Cancel { task_id: ID.into() };
    let reply = shared.0.borrow_mut().request(cancel, "anonymous", NOW + 6);
    assert!(matches!(reply, ObjectReply::Result(_)), "{reply:?}");
    assert!(turn(&mut step), "the runner stops at once");
    assert_eq!(
        DROPPED.with(Cell::get),
        1,
        "the step was dropped with what it held"
    );
    assert_eq!(get(&shared)["status"], "cancelled");
    assert_eq!(shared.0.borrow().running, None);
}

#[test]
fn a_question_the_client_cannot_answer_is_refused_to_the_step() {
    let (shared, registry) = started("asks", json!({}));
    let mut step = alarm(&shared, &registry, 1);
    assert!(
        turn(&mut step),
        "refused at once: the step returns its error"
    );
    let task = get(&shared);
    assert_eq!(task["status"], "failed", "{task}");
    assert!(
        task["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("elicitation")),
        "{task}"
    );
}

#[test]
fn progress_reaches_the_task_while_the_step_runs_coalesced() {
    GATE.with(|g| g.set(false));
    let (shared, registry) = started("reports", json!({}));
    let writes_before = shared.0.borrow().effects.len();
    let mut step = alarm(&shared, &registry, 1);
    assert!(!turn(&mut step), "the step waits at its gate");
    let task = get(&shared);
    assert_eq!(task["status"], "working");
    // Two reports in the same instant: one write, of the latest.
    assert_eq!(task["statusMessage"], "2/3: two", "{task}");
    assert_eq!(task["_meta"]["mcp-tasks-edge/task"]["progress"], 2.0);
    let writes: Vec<_> = shared.0.borrow().effects[writes_before..].to_vec();
    assert_eq!(
        writes
            .iter()
            .filter(|e| **e == common::object::Effect::Write)
            .count(),
        1,
        "{writes:?}"
    );
    GATE.with(|g| g.set(true));
    assert!(turn(&mut step));
    assert_eq!(get(&shared)["status"], "completed");
}

#[test]
fn only_a_step_a_task_object_runs_can_ask_while_it_runs() {
    let call = Call::new(json!({}));
    assert!(!call.can_ask_now());
    let refused = block_on(call.ask_now(colour()));
    assert!(refused.is_err());
}

#[test]
fn an_attempt_lost_while_it_asks_takes_its_question_with_it_and_the_step_runs_again() {
    let (shared, registry) = started("asks", json!({ "elicitation": {} }));
    let mut step = alarm(&shared, &registry, 1);
    assert!(!turn(&mut step));
    assert_eq!(get(&shared)["status"], "input_required");
    // The instance dies while the step waits: memory is gone, storage stays.
    drop(step);
    shared.0.borrow_mut().restart();
    shared.0.borrow_mut().live = None;
    // The alarm finds the lease of an attempt not running here: attempt 2, working again.
    assert_eq!(shared.0.borrow_mut().plan(NOW + 10), Some(2));
    let task = get(&shared);
    assert_eq!(task["status"], "working", "{task}");
    assert!(task.get("inputRequests").is_none());
    // The step runs again and asks again; answered, it completes.
    let mut again = alarm(&shared, &registry, 2);
    assert!(!turn(&mut again));
    let task = get(&shared);
    let key = task["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let ok = shared.0.borrow_mut().update(
        json!({ key: { "action": "accept", "content": { "colour": "blue" } } }),
        NOW + 11,
    );
    assert!(matches!(ok, ObjectReply::Result(_)), "{ok:?}");
    assert!(turn(&mut again));
    let task = get(&shared);
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["result"]["content"][0]["text"], "colour \"blue\"");
}

#[test]
fn what_waits_for_the_runner_is_bounded_however_fast_it_comes() {
    let events = live::Sender::default();
    for i in 0..10_000 {
        events.send(live::Event::Progress(mcp_tasks_edge::tools::Report {
            progress: f64::from(i),
            total: None,
            message: None,
        }));
        events.send(live::Event::Changed);
    }
    assert!(events.queued() <= 3, "{} events queued", events.queued());
}
