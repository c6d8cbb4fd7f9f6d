//! `tasks::live::plan` as a table: each event a running step reports (progress, a question,
//! a request's write) in each state of its task, and what is written and what the step is
//! told. (The runner around it, interleaved with requests: tests/live_step.rs.)
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::NOW;
use mcp_tasks_edge::mcp::input::elicit_form;
use mcp_tasks_edge::tasks::execution::Limits;
use mcp_tasks_edge::tasks::protocol::ObjectRequest;
use mcp_tasks_edge::tasks::record::TaskRecord;
use serde_json::{Map, Value, json};

const LIMITS: Limits = Limits {
    max_attempts: 3,
    lease_ms: 60_000,
    max_result_bytes: 1 << 20,
};

fn colour() -> Map<String, Value> {
    let schema = json!({ "type": "object", "properties": { "colour": { "type": "string" } }, "required": ["colour"] });
    let mut requests = Map::new();
    requests.insert("colour".into(), elicit_form("Which colour?", schema));
    requests
}

/// `tasks::live::plan`, state by event: what is written and what the step is told.
#[test]
fn the_plan_of_each_event_in_each_state() {
    use mcp_tasks_edge::tasks::execution::{self, AlarmPlan};
    use mcp_tasks_edge::tasks::live::{Event, Outcome, plan};
    use mcp_tasks_edge::tasks::object;
    use mcp_tasks_edge::tasks::task::TaskStatus;
    use mcp_tasks_edge::tools::Report;
    let report = Report {
        progress: 1.0,
        total: Some(4.0),
        message: Some("one".into()),
    };
    // A working task whose attempt 1 holds the lease, from a client that can be asked.
    let running = |caps: Value| {
        let record = common::working_task("asks", caps, Value::Null);
        let Ok(AlarmPlan::RunStep { lease, attempt: 1 }) =
            execution::alarm(Some(record), NOW, None, LIMITS)
        else {
            panic!("a step is due")
        };
        lease.store.unwrap()
    };
    let asked = |record: TaskRecord| {
        let (effects, outcome) = plan(Some(record), 1, Event::Ask(colour()), None, NOW).unwrap();
        assert_eq!(outcome, Outcome::Asked(vec!["colour".into()]));
        effects.unwrap().store.unwrap()
    };
    let answered = |record: TaskRecord| {
        let TaskStatus::InputRequired { input_requests } = record.status() else {
            panic!("asking")
        };
        let key = input_requests.keys().next().unwrap().clone();
        let update = ObjectRequest::Update {
            task_id: common::SID.into(),
            input_responses: json!({ key: { "action": "accept", "content": { "colour": "red" } } })
                .as_object()
                .unwrap()
                .clone(),
        };
        object::handle(Some(record), update, "anonymous", NOW)
            .1
            .store
            .unwrap()
    };
    let elicit = json!({ "elicitation": {} });
    let working = running(elicit.clone());
    let waiting = asked(working.clone());
    let keys = ["colour".to_owned()];

    // Progress: written while working (message and numbers, the alarm left alone).
    let (effects, outcome) =
        plan(Some(working.clone()), 1, Event::Report(&report), None, NOW).unwrap();
    let effects = effects.expect("written");
    assert_eq!(effects.alarm, None, "the step's alarm stays as it is");
    assert_eq!(effects.store.unwrap().status_message(), Some("1/4: one"));
    assert_eq!(outcome, Outcome::Nothing);
    // ...not over a pending question's message.
    let (effects, outcome) =
        plan(Some(waiting.clone()), 1, Event::Report(&report), None, NOW).unwrap();
    assert!(effects.is_none() && outcome == Outcome::Nothing);

    // A question the client cannot answer, or a second one, is refused and writes nothing.
    let (effects, outcome) =
        plan(Some(running(json!({}))), 1, Event::Ask(colour()), None, NOW).unwrap();
    assert!(
        effects.is_none() && matches!(outcome, Outcome::Refused(_)),
        "{outcome:?}"
    );
    let (effects, outcome) = plan(
        Some(waiting.clone()),
        1,
        Event::Ask(colour()),
        Some(&keys),
        NOW,
    )
    .unwrap();
    assert!(
        effects.is_none() && matches!(outcome, Outcome::Refused(_)),
        "{outcome:?}"
    );

    // A write: answered once the task is working again with every key; else nothing.
    let (_, outcome) = plan(Some(waiting.clone()), 1, Event::Changed, Some(&keys), NOW).unwrap();
    assert_eq!(outcome, Outcome::Nothing);
    let (effects, outcome) = plan(
        Some(answered(waiting.clone())),
        1,
        Event::Changed,
        Some(&keys),
        NOW,
    )
    .unwrap();
    assert!(effects.is_none());
    assert_eq!(
        outcome,
        Outcome::Answered(
            json!({ "colour": { "action": "accept", "content": { "colour": "red" } } })
                .as_object()
                .unwrap()
                .clone()
        )
    );
    let (_, outcome) = plan(Some(working.clone()), 1, Event::Changed, None, NOW).unwrap();
    assert_eq!(outcome, Outcome::Nothing);

    // Any event once the attempt no longer holds the task: gone, nothing written.
    let cancel = ObjectRequest::Cancel {
        task_id: common::SID.into(),
    };
    let cancelled = object::handle(Some(waiting.clone()), cancel, "anonymous", NOW)
        .1
        .store
        .unwrap();
    for record in [Some(cancelled), None, Some(working.clone())] {
        let attempt = if record.as_ref() == Some(&working) {
            2
        } else {
            1
        };
        for event in [Event::Report(&report), Event::Ask(colour()), Event::Changed] {
            let (effects, outcome) =
                plan(record.clone(), attempt, event, Some(&keys), NOW).unwrap();
            assert!(effects.is_none() && outcome == Outcome::Gone);
        }
    }
}
