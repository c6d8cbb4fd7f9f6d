//! The execution model of task steps (docs/architecture.md, "Executing steps"), as a table: leases current and
//! stale, a cancel during a step, lost attempts re-run and then exhausted, illegal step
//! outputs, the alarm always present, sizes, answers validated on arrival, progress, and
//! records of the previous storage format. What a step reaches through its host (the allow
//! list, resource updates): tests/execution_host.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::object::{ID, Object};
use common::*;
use mcp_tasks_edge::mcp::input::elicit_form;
use mcp_tasks_edge::server::Server;
use mcp_tasks_edge::tasks::execution::{self, Limits};
use mcp_tasks_edge::tasks::layout::{self, CHUNK_BYTES};
use mcp_tasks_edge::tasks::object;
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::record::{LEASE_CHECK_MS, NewTask, TaskRecord};
use mcp_tasks_edge::tools::{Call, Step, TaskSupport, Tool};
use serde_json::{Map, Value, json};

const LIMITS: Limits = Limits {
    max_attempts: 3,
    lease_ms: 60_000,
    max_result_bytes: 10 * 1024 * 1024,
};

/// A tool whose second step returns `step` (the first one hands over to the task).
fn then(name: &str, second: fn(&Call) -> Step) -> Tool {
    Tool::new(name, "test")
        .task(TaskSupport::Required)
        .sync(second)
}

fn first_then(call: &Call, outcome: Step) -> Step {
    if !call.has_checkpoint() {
        Step::next().checkpoint(1)
    } else {
        outcome
    }
}

fn tools() -> Vec<Tool> {
    vec![
        then("empty_need_input", |c| {
            first_then(c, Step::NeedInput(Map::new()))
        }),
        then("bogus_input", |c| {
            first_then(c, Step::ask("k", json!({ "method": "tools/call" })))
        }),
        then("not_an_object", |c| {
            first_then(c, Step::Complete(json!("done")))
        }),
        then("no_content", |c| {
            first_then(c, Step::Complete(json!({ "text": "x" })))
        }),
        then("twice", |c| {
            first_then(c, Step::text(format!("attempt {}", c.attempt)))
        }),
        then("reports", |c| {
            c.progress(50.0, Some(100.0), Some("half"));
            first_then(c, Step::wait(std::time::Duration::from_secs(1)))
        }),
        then("big", |c| {
            let bytes = c.f64_arg("bytes").unwrap_or(0.0) as usize;
            first_then(c, Step::text("y".repeat(bytes)))
        }),
    ]
}

fn object() -> Object {
    let server = Server::builder("t")
        .config(server().config)
        .tools(tools())
        .build();
    Object::new(server.registry, LIMITS)
}

/// Creates a task of `tool` whose first step is due at NOW.
fn start(o: &mut Object, tool: &str, arguments: Value) {
    let Value::Object(arguments) = arguments else {
        panic!()
    };
    let mut record = TaskRecord::new(NewTask {
        tool: tool.into(),
        title: None,
        owner: "anonymous".into(),
        arguments,
        capabilities: json!({ "elicitation": {} }).as_object().unwrap().clone(),
        checkpoint: json!(1),
        answers: Map::new(),
        status_message: None,
        amount: None,
        now_ms: NOW,
        ttl_ms: Some(3_600_000),
        poll_interval_ms: 1000,
        next_step_at_ms: NOW,
    });
    record.assign_id(ID.into());
    let reply = o.request(
        ObjectRequest::Create {
            record: Box::new(record),
        },
        "anonymous",
        NOW,
    );
    assert!(matches!(reply, ObjectReply::Result(_)), "{reply:?}");
}

fn failed_with(task: &Value, pattern: &str) {
    assert_eq!(task["status"], "failed", "{task}");
    assert_eq!(task["error"]["code"], -32603);
    let message = task["error"]["message"].as_str().unwrap();
    assert!(message.contains(pattern), "{message:?} lacks {pattern:?}");
}

#[test]
fn illegal_step_outputs_fail_the_task_naming_the_tool() {
    for (tool, why) in [
        (
            "empty_need_input",
            "asked for input without any input request",
        ),
        ("bogus_input", "is not one of elicitation/create"),
        ("not_an_object", "a result that is not a JSON object"),
        ("no_content", "without a \"content\" array"),
    ] {
        let mut o = object();
        start(&mut o, tool, json!({}));
        o.tick(NOW);
        let task = o.get(NOW + 1);
        failed_with(&task, &format!("The tool \"{tool}\""));
        failed_with(&task, why);
        // A terminal task keeps only its expiry alarm.
        assert_eq!(o.alarm, Some(NOW + 3_600_000));
    }
}

#[test]
fn a_step_runs_under_a_lease_and_the_alarm_checks_on_it() {
    let mut o = object();
    start(&mut o, "twice", json!({}));
    let attempt = o.plan(NOW).expect("the step is due");
    assert_eq!(attempt, 1);
    let lease = o.load(layout::Need::Hot).unwrap().record.lease().unwrap();
    assert_eq!(lease.deadline_ms, NOW + LIMITS.lease_ms);
    // A first attempt sets no alarm: the one that fired stays armed while its handler runs.
    assert_eq!(o.alarm, Some(NOW));
    // Should an alarm fire during the step, it finds the attempt still running here:
    // nothing changes but the alarm.
    assert_eq!(o.plan(NOW + LEASE_CHECK_MS), None);
    assert_eq!(o.alarm, Some(NOW + 2 * LEASE_CHECK_MS));
    // Requests interleave normally while the step is awaited.
    assert_eq!(o.get(NOW + 6000)["status"], "working");
    o.run(attempt, NOW + 7000);
    assert_eq!(
        o.get(NOW + 7001)["result"]["content"][0]["text"],
        "attempt 1"
    );
}

#[test]
fn a_lost_attempt_reruns_from_the_checkpoint_then_gives_up() {
    let mut o = object();
    start(&mut o, "twice", json!({}));
    assert_eq!(o.plan(NOW), Some(1));
    o.restart(); // the instance died inside the step: the alarm that ran it fires again
    assert_eq!(o.alarm, Some(NOW));
    assert_eq!(o.plan(NOW + LEASE_CHECK_MS), Some(2));
    // A retried attempt arms its own check, whatever the platform's retries.
    assert_eq!(o.alarm, Some(NOW + 2 * LEASE_CHECK_MS));
    o.run(2, NOW + LEASE_CHECK_MS + 10);
    assert_eq!(
        o.get(NOW + 6000)["result"]["content"][0]["text"],
        "attempt 2"
    );

    let mut o = object();
    start(&mut o, "twice", json!({}));
    for attempt in 1..=3 {
        assert_eq!(o.plan(NOW + attempt as u64 * LEASE_CHECK_MS), Some(attempt));
        o.restart();
    }
    assert_eq!(o.plan(NOW + 4 * LEASE_CHECK_MS), None);
    failed_with(
        &o.get(NOW + 20_001),
        "\"twice\" did not finish a step in 3 attempts",
    );
}

#[test]
fn a_step_that_outlives_its_lease_is_superseded_and_its_outcome_dropped() {
    let mut o = object();
    start(&mut o, "twice", json!({}));
    assert_eq!(o.plan(NOW), Some(1));
    // Past the deadline the same instance starts attempt 2 although attempt 1 still runs.
    assert_eq!(o.plan(NOW + LIMITS.lease_ms), Some(2));
    o.running = Some(1);
    o.run(1, NOW + LIMITS.lease_ms + 1); // the stale attempt reports: dropped
    assert_eq!(o.get(NOW + LIMITS.lease_ms + 2)["status"], "working");
    o.run(2, NOW + LIMITS.lease_ms + 3);
    assert_eq!(
        o.get(NOW + LIMITS.lease_ms + 4)["result"]["content"][0]["text"],
        "attempt 2"
    );
}

#[test]
fn a_step_ends_with_the_alarm_its_outcome_sets_and_no_other() {
    let mut o = object();
    start(&mut o, "reports", json!({}));
    o.tick(NOW);
    // The lease set none, the outcome set the next step's: the fired alarm is not left.
    let record = o.record().unwrap();
    assert!(record.lease().is_none());
    assert_eq!(o.alarm, record.next_alarm_ms(NOW));
    assert!(o.alarm.is_some());
}

#[test]
fn a_task_that_expires_during_its_step_is_erased_when_the_step_returns() {
    let mut o = object();
    start(&mut o, "twice", json!({}));
    assert_eq!(o.plan(NOW), Some(1));
    o.run(1, NOW + 3_600_000);
    assert!(o.storage.is_empty(), "{:?}", o.storage);
    assert_eq!(o.alarm, None);
}

#[test]
fn a_cancel_during_a_step_wins() {
    let mut o = object();
    start(&mut o, "twice", json!({}));
    let attempt = o.plan(NOW).unwrap();
    o.request(
        ObjectRequest::Cancel { task_id: ID.into() },
        "anonymous",
        NOW + 10,
    );
    o.run(attempt, NOW + 20);
    let task = o.get(NOW + 30);
    assert_eq!(task["status"], "cancelled");
    assert!(task.get("result").is_none());
    assert_eq!(o.alarm, Some(NOW + 3_600_000));
}

#[test]
fn every_non_terminal_task_has_an_alarm() {
    let mut o = object();
    start(&mut o, "twice", json!({}));
    assert_eq!(o.alarm, Some(NOW));
    // input_required with an unlimited TTL still has a periodic check.
    let mut waiting = TaskRecord::new(NewTask {
        tool: "twice".into(),
        title: None,
        owner: "anonymous".into(),
        arguments: Map::new(),
        capabilities: json!({ "elicitation": {} }).as_object().unwrap().clone(),
        checkpoint: Value::Null,
        answers: Map::new(),
        status_message: None,
        amount: None,
        now_ms: NOW,
        ttl_ms: None,
        poll_interval_ms: 1000,
        next_step_at_ms: NOW,
    });
    waiting.assign_id(ID.into());
    let ask = Step::ask("k", elicit_form("Name?", json!({ "type": "object" })));
    execution::advance(&mut waiting, ask, NOW, LIMITS).unwrap();
    assert_eq!(waiting.status().name(), "input_required");
    assert!(waiting.next_alarm_ms(NOW).is_some_and(|at| at > NOW));
    let cancel = ObjectRequest::Cancel { task_id: ID.into() };
    let (_, effects) = object::handle(Some(waiting), cancel, "anonymous", NOW);
    assert_eq!(effects.alarm, Some(None));
    assert_eq!(effects.store.unwrap().next_alarm_ms(NOW), None);
}

#[test]
fn results_are_chunked_and_bounded() {
    let mut o = object();
    start(&mut o, "big", json!({ "bytes": 5_000_000 }));
    o.tick(NOW);
    let task = o.get(NOW + 1);
    assert_eq!(
        task["result"]["content"][0]["text"].as_str().unwrap().len(),
        5_000_000
    );
    let hot = &o.storage[layout::HOT_KEY];
    assert!(
        hot.len() < 2_000,
        "the hot record stays small: {} bytes",
        hot.len()
    );
    assert!(o.storage.values().all(|v| v.len() <= CHUNK_BYTES));
    assert!(
        o.storage
            .keys()
            .filter(|k| k.starts_with("result."))
            .count()
            >= 10
    );

    let mut o = object();
    start(&mut o, "big", json!({ "bytes": 11_000_000 }));
    o.tick(NOW);
    failed_with(&o.get(NOW + 1), "MAX_RESULT_BYTES = 10485760");
}

#[test]
fn answers_are_validated_on_arrival() {
    let s = server();
    let mut o = Object::new(s.registry.clone(), s.limits());
    start(&mut o, "confirm_delete", json!({ "filename": "a" }));
    o.tick(NOW);
    let waiting = o.get(NOW + 1);
    assert_eq!(waiting["status"], "input_required");
    let key = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    for bad in [
        json!({ "action": "bogus" }),
        json!({ "action": "accept", "content": "not an object" }),
        json!({ "action": "accept", "content": { "confirm": "yes" } }),
    ] {
        let before = o.storage.clone();
        let ObjectReply::Error(e) = o.update(json!({ &key: bad }), NOW + 2) else {
            panic!("{bad} must be refused")
        };
        assert_eq!(e.code.0, -32602, "{bad}");
        assert_eq!(o.storage, before, "the task is untouched");
    }
    o.update(
        json!({ &key: { "action": "accept", "content": { "confirm": true } } }),
        NOW + 3,
    );
    o.tick(NOW + 3);
    assert_eq!(o.get(NOW + 4)["result"]["content"][0]["text"], "Deleted a.");
}

#[test]
fn a_format_1_record_is_read_and_rewritten() {
    // What the previous layout stored: the whole record under "task", stepRunning set.
    let mut o = object();
    let v1 = json!({
        "taskId": ID, "owner": "anonymous", "tool": "twice", "arguments": {},
        "capabilities": {}, "status": "working", "createdAtMs": NOW, "lastUpdatedAtMs": NOW,
        "ttlMs": 3_600_000, "pollIntervalMs": 1000, "checkpoint": 1, "answers": {},
        "round": 0, "nextStepAtMs": NOW, "stepRunning": true
    });
    o.storage.insert(layout::HOT_KEY.into(), v1.to_string());
    assert_eq!(o.get(NOW)["status"], "working");
    // The step that was running when the old version stopped is re-run, not failed.
    assert_eq!(o.plan(NOW + 1), Some(2));
    assert!(o.storage[layout::HOT_KEY].contains("\"format\":3"));
    o.run(2, NOW + 2);
    assert_eq!(o.get(NOW + 3)["result"]["content"][0]["text"], "attempt 2");
}
#[test]
fn progress_shows_in_the_status_message_of_a_task() {
    let mut o = object();
    start(&mut o, "reports", json!({}));
    o.tick(NOW);
    assert_eq!(o.get(NOW + 1)["statusMessage"], "50/100: half");
}
