//! The task layout in storage (src/tasks/layout.rs): a small task is one key for its
//! whole life, a part too large for the hot record goes apart and comes back inline when
//! it shrinks, and a task stored by the previous format (2: every part and every timeline
//! entry under its own key) still loads, resumes after a lost attempt, and finishes.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::NOW;
use common::object::{ID, Object};
use mcp_tasks_edge::tasks::execution::Limits;
use mcp_tasks_edge::tasks::layout::{self, INLINE_BYTES, Need};
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::record::{NewTask, TaskRecord};
use mcp_tasks_edge::tools::{Call, Registry, Step, TaskSupport, Tool};
use serde_json::{Map, Value, json};

const LIMITS: Limits = Limits {
    max_attempts: 3,
    lease_ms: 60_000,
    max_result_bytes: 10 * 1024 * 1024,
};

/// `resume`: without a checkpoint, continues with the checkpoint `{"pad": "y" × cp}`
/// (argument `cp`, default 0); with that one, continues with the checkpoint 2; with a
/// number, completes saying its `word` argument, the number and the answer `name`.
fn resume(c: &Call) -> Step {
    match c.checkpoint_value() {
        Value::Null => {
            let cp = c.arguments.get("cp").and_then(Value::as_u64).unwrap_or(0);
            Step::next().checkpoint(json!({ "pad": "y".repeat(cp as usize) }))
        }
        Value::Object(_) => Step::next().checkpoint(2),
        n => Step::text(format!(
            "{} {n} {}",
            c.str_arg("word").unwrap_or("-"),
            c.answers.get("name").and_then(Value::as_str).unwrap_or("-")
        )),
    }
}

fn object() -> Object {
    let tool = Tool::new("resume", "test")
        .task(TaskSupport::Required)
        .sync(resume);
    Object::new(Registry::new(vec![tool]), LIMITS)
}

fn start(o: &mut Object, arguments: Value) {
    let Value::Object(arguments) = arguments else {
        panic!()
    };
    let mut record = TaskRecord::new(NewTask {
        tool: "resume".into(),
        title: None,
        owner: "anonymous".into(),
        arguments,
        capabilities: Map::new(),
        checkpoint: Value::Null,
        answers: Map::new(),
        status_message: None,
        amount: None,
        now_ms: NOW,
        ttl_ms: Some(3_600_000),
        poll_interval_ms: 1000,
        next_step_at_ms: NOW,
    });
    record.assign_id(ID.into());
    let create = ObjectRequest::Create {
        record: Box::new(record),
    };
    let reply = o.request(create, "anonymous", NOW);
    assert!(matches!(reply, ObjectReply::Result(_)), "{reply:?}");
}

fn keys(o: &Object) -> Vec<&str> {
    o.storage.keys().map(String::as_str).collect()
}

fn text(task: &Value) -> &str {
    task["result"]["content"][0]["text"].as_str().unwrap_or("")
}

#[test]
fn a_small_task_is_one_key_for_its_whole_life() {
    let mut o = object();
    start(&mut o, json!({ "word": "hi" }));
    assert_eq!(keys(&o), [layout::HOT_KEY]);
    for t in 0..3 {
        o.tick(NOW + t * 1000);
        assert_eq!(keys(&o), [layout::HOT_KEY], "after step {t}");
    }
    let task = o.get(NOW + 5000);
    assert_eq!(text(&task), "hi 2 -");
    // Nothing to read beside the hot record, whatever the request needs.
    let stored = o.load(Need::Hot).unwrap();
    for need in [Need::Result, Need::Step, Need::Timeline, Need::All] {
        assert!(layout::keys_for(&stored, need).is_empty(), "{need:?}");
    }
    assert!(o.storage[layout::HOT_KEY].contains("\"format\":3"));
}

#[test]
fn large_parts_go_apart_and_come_back_inline_when_small() {
    let mut o = object();
    let pad = "x".repeat(INLINE_BYTES);
    start(
        &mut o,
        json!({ "word": "hi", "cp": INLINE_BYTES, "pad": pad }),
    );
    assert_eq!(keys(&o), ["arguments.0", layout::HOT_KEY]);
    o.tick(NOW);
    assert_eq!(keys(&o), ["arguments.0", "checkpoint.0", layout::HOT_KEY]);
    let hot = o.storage[layout::HOT_KEY].len();
    assert!(
        hot < 4096,
        "the hot record holds no large part: {hot} bytes"
    );
    // The checkpoint shrinks: inline again, its chunk deleted in the same write.
    o.tick(NOW + 1000);
    assert_eq!(keys(&o), ["arguments.0", layout::HOT_KEY]);
    o.tick(NOW + 2000);
    assert_eq!(text(&o.get(NOW + 3000)), "hi 2 -");
    // The arguments, kept apart, still reach every step and the cancel hook's record.
    assert_eq!(o.record().unwrap().arguments()["pad"].as_str(), Some(&*pad));
}

#[test]
fn inline_parts_share_one_budget() {
    // Arguments and a checkpoint that each fit, but not together: the one written
    // second goes apart, so the hot record stays bounded.
    let mut o = object();
    let half = INLINE_BYTES / 2 + 100;
    start(&mut o, json!({ "cp": half, "pad": "x".repeat(half) }));
    assert_eq!(keys(&o), [layout::HOT_KEY]);
    o.tick(NOW);
    assert_eq!(keys(&o), ["checkpoint.0", layout::HOT_KEY]);
    assert!(o.storage[layout::HOT_KEY].len() < INLINE_BYTES + 4096);
}

/// A task as format 2 stored it while a step was in flight: every part and every
/// timeline entry under its own key, the lease of attempt 1 in the hot record.
fn format_2(o: &mut Object) {
    let hot = json!({
        "format": 2, "taskId": ID, "owner": "anonymous", "tool": "resume",
        "arguments": {}, "capabilities": {}, "status": "working",
        "statusMessage": "Input received; resuming",
        "createdAtMs": NOW, "lastUpdatedAtMs": NOW + 500, "ttlMs": 3_600_000,
        "pollIntervalMs": 1000, "checkpoint": null, "answers": {}, "round": 1,
        "nextStepAtMs": NOW + 500, "lease": { "attempt": 1, "deadlineMs": NOW + 60_500 },
        "version": 4,
        "parts": { "arguments": 1, "checkpoint": 1, "result": 0, "answers": { "name": 1 }, "timeline": 2 }
    });
    for (key, value) in [
        (layout::HOT_KEY, hot.to_string()),
        ("arguments.0", json!({ "word": "hi" }).to_string()),
        ("checkpoint.0", "7".into()),
        ("answer.name.0", "\"bob\"".into()),
        (
            "timeline.0",
            json!({ "atMs": NOW, "event": "created", "status": "working" }).to_string(),
        ),
        (
            "timeline.1",
            json!({ "atMs": NOW + 500, "event": "input_answered", "status": "working" })
                .to_string(),
        ),
    ] {
        o.storage.insert(key.into(), value);
    }
    o.alarm = Some(NOW + 5_500);
}

#[test]
fn a_format_2_task_in_flight_loads_resumes_and_finishes() {
    let mut o = object();
    format_2(&mut o);
    let task = o.get(NOW + 1000);
    assert_eq!(task["status"], "working");
    // The redeployed instance runs nothing: attempt 1 was lost, attempt 2 runs with the
    // parts format 2 kept apart (arguments, checkpoint, answer).
    assert_eq!(o.plan(NOW + 5_500), Some(2));
    assert!(o.storage[layout::HOT_KEY].contains("\"format\":3"));
    assert_eq!(o.storage["checkpoint.0"], "7", "unchanged parts stay apart");
    o.run(2, NOW + 5_600);
    let task = o.get(NOW + 6_000);
    assert_eq!(text(&task), "hi 7 bob");
    // The old entries are read from their keys, the new ones from the hot record.
    let timeline = o.load(Need::Timeline).unwrap().timeline;
    let events: Vec<&str> = timeline.iter().map(|e| e.event.name()).collect();
    assert_eq!(
        events,
        ["created", "input_answered", "retried", "completed"]
    );
    assert!(!o.storage.contains_key("timeline.2"));
    assert!(
        !o.storage.contains_key("result.0"),
        "the small result is inline"
    );
}

#[test]
fn a_newer_format_is_refused_by_name() {
    let hot = json!({ "format": 4, "taskId": ID }).to_string();
    let error = layout::decode_hot(&hot).unwrap_err();
    assert_eq!(
        error,
        "task record format 4 is newer than this server understands"
    );
}

/// A body that is not an object request (the Worker's bug, or one that could not be read)
/// is refused in the object protocol, -32600 saying why, and touches no storage; a good
/// one is served as `request` serves it.
#[test]
fn a_body_that_is_not_a_request_is_refused_and_nothing_is_read() {
    let mut o = Object::new(Registry::new(Vec::new()), LIMITS);
    for body in [
        Ok(b"{\"op\":\"fly\"}".to_vec()),
        Ok(b"not json".to_vec()),
        Err("reset".into()),
    ] {
        let ObjectReply::Error(refused) = o.serve(body, "alice", NOW) else {
            panic!("served");
        };
        assert_eq!(refused.code.0, -32600, "{}", refused.message);
        assert!(
            refused.message.starts_with("bad object request"),
            "{}",
            refused.message
        );
    }
    assert!(
        o.storage.is_empty() && o.effects.is_empty(),
        "nothing written, nothing done"
    );
    let get = format!("{{\"op\":\"get\",\"taskId\":\"{ID}\"}}").into_bytes();
    let ObjectReply::Error(unknown) = o.serve(Ok(get), "alice", NOW) else {
        panic!("an unknown task found");
    };
    assert_eq!(
        unknown.code.0, -32602,
        "the request itself is served: {}",
        unknown.message
    );
}
