//! Task timelines (`tasks::timeline`): every transition recorded in the write that makes
//! it, the owner's view, the bound, and the storage it leaves.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::NOW;
use common::object::{ID, Object};
use mcp_tasks_edge::server::Server;
use mcp_tasks_edge::tasks::execution::Limits;
use mcp_tasks_edge::tasks::layout::{self, Need};
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::record::{LEASE_CHECK_MS, NewTask, TaskRecord};
use mcp_tasks_edge::tasks::timeline::{self, KEEP};
use mcp_tasks_edge::tools::{Call, Step, TaskSupport, Tool};
use serde_json::{Map, Value, json};
use std::time::Duration;

const OWNER: &str = "key:alice";
const LIMITS: Limits = Limits {
    max_attempts: 3,
    lease_ms: 60_000,
    max_result_bytes: 1 << 20,
};

/// Counts to `n`, one step a second, saying where it is; asks once at `ask`.
fn counter(call: &Call) -> Step {
    let n = call.f64_arg("n").unwrap_or(3.0) as u64;
    let done = match call.checkpoint::<u64>() {
        Ok(done) => done.unwrap_or(0),
        Err(e) => return e.into_step(),
    };
    if Some(done) == call.f64_arg("ask").map(|a| a as u64) && !call.answers.contains_key("go") {
        return Step::ask(
            "go",
            json!({ "method": "elicitation/create", "params": { "mode": "form", "message": "Go on?",
                "requestedSchema": { "type": "object", "properties": {} } } }),
        );
    }
    if done >= n {
        return Step::text(format!("counted to {n}"));
    }
    Step::wait(Duration::from_secs(1))
        .checkpoint(done + 1)
        .message(format!("{}/{n}", done + 1))
}

fn object() -> Object {
    let server = Server::builder("t")
        .tool(
            Tool::new("counter", "test")
                .task(TaskSupport::Required)
                .sync(counter),
        )
        .build();
    Object::new(server.registry, LIMITS)
}

fn start(arguments: Value) -> Object {
    let mut o = object();
    let mut record = TaskRecord::new(NewTask {
        tool: "counter".into(),
        title: None,
        owner: OWNER.into(),
        arguments: arguments.as_object().unwrap().clone(),
        capabilities: json!({ "elicitation": {} }).as_object().unwrap().clone(),
        checkpoint: Value::Null,
        answers: Map::new(),
        status_message: Some("Queued".into()),
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
    assert!(matches!(
        o.request(create, OWNER, NOW),
        ObjectReply::Result(_)
    ));
    o
}

fn timeline_as(o: &mut Object, principal: &str, now: u64) -> Value {
    match o.request(
        ObjectRequest::Timeline { task_id: ID.into() },
        principal,
        now,
    ) {
        ObjectReply::Result(v) => v,
        ObjectReply::Error(e) => json!({ "error": e.code.0, "message": e.message }),
    }
}

/// `(event, status, attempt, message)` of each entry.
fn summary(view: &Value) -> Vec<(String, String, Option<u64>, Option<String>)> {
    view["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["event"].as_str().unwrap().to_owned(),
                e["status"].as_str().unwrap().to_owned(),
                e["attempt"].as_u64(),
                e["message"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

fn entry(
    event: &str,
    status: &str,
    attempt: Option<u64>,
    message: Option<&str>,
) -> (String, String, Option<u64>, Option<String>) {
    (
        event.into(),
        status.into(),
        attempt,
        message.map(str::to_owned),
    )
}

#[test]
fn every_transition_is_recorded_and_the_owner_reads_them() {
    let mut o = start(json!({ "n": 2, "ask": 1 }));
    for t in [0, 1000, 2000] {
        o.tick(NOW + t);
    }
    let answer = json!({ "go#1": { "action": "accept", "content": {} } });
    assert!(matches!(
        o.update_as(answer, OWNER, NOW + 2500),
        ObjectReply::Result(_)
    ));
    for t in [2500, 3500, 4500] {
        o.tick(NOW + t);
    }
    let view = timeline_as(&mut o, OWNER, NOW + 5000);
    assert_eq!(view["resultType"], "complete");
    assert_eq!(view["taskId"], ID);
    assert_eq!(view["status"], "completed");
    assert_eq!(view["omittedEntries"], 0);
    assert_eq!(
        summary(&view),
        [
            entry("created", "working", None, Some("Queued")),
            entry("progressed", "working", Some(1), Some("1/2")),
            entry(
                "input_requested",
                "input_required",
                Some(1),
                Some("Waiting for input")
            ),
            entry(
                "input_answered",
                "working",
                None,
                Some("Input received; resuming")
            ),
            entry("progressed", "working", Some(1), Some("2/2")),
            entry("completed", "completed", Some(1), None),
        ]
    );
    assert_eq!(view["timeline"][0]["at"], "2025-11-25T10:30:00.000Z");
    assert_eq!(view["timeline"][3]["at"], "2025-11-25T10:30:02.500Z");
    // Each entry is written with its transition, inline in the hot record while the
    // task has fewer than INLINE_ENTRIES: a small task stays one key.
    let keys: Vec<&String> = o.storage.keys().collect();
    assert_eq!(keys, [layout::HOT_KEY]);
    assert_eq!(o.load(Need::Hot).unwrap().parts.entries.len(), 6);
}

#[test]
fn only_the_owner_reads_a_timeline() {
    let mut o = start(json!({ "n": 1 }));
    for who in ["key:mallory", "anonymous", "admin:ops"] {
        let view = timeline_as(&mut o, who, NOW + 1);
        assert_eq!(view["error"], -32602, "{who}: {view}");
        // The same answer as tasks/get gives for an unknown id: nothing leaks.
        assert_eq!(view["message"], o.get_as(who, NOW + 1)["message"]);
    }
    // Expired: nobody.
    assert_eq!(timeline_as(&mut o, OWNER, NOW + 3_600_000)["error"], -32602);
}

#[test]
fn lost_attempts_failures_and_cancels_are_in_the_timeline() {
    let mut o = start(json!({ "n": 5 }));
    for attempt in 1..=3 {
        assert_eq!(o.plan(NOW + attempt * LEASE_CHECK_MS), Some(attempt as u32));
        o.restart();
    }
    assert_eq!(o.plan(NOW + 4 * LEASE_CHECK_MS), None);
    let view = timeline_as(&mut o, OWNER, NOW + 30_000);
    let entries = summary(&view);
    assert_eq!(entries[1].0, "retried");
    assert_eq!(entries[1].2, Some(2));
    assert_eq!(entries[2].2, Some(3));
    assert_eq!(entries[3].0, "failed");
    let failed = &view["timeline"][3];
    assert_eq!(failed["error"]["code"], -32603);
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not finish a step in 3 attempts")
    );

    let mut o = start(json!({ "n": 5 }));
    o.tick(NOW);
    assert!(matches!(
        o.request(
            ObjectRequest::Cancel { task_id: ID.into() },
            OWNER,
            NOW + 10
        ),
        ObjectReply::Result(_)
    ));
    let entries = summary(&timeline_as(&mut o, OWNER, NOW + 20));
    assert_eq!(
        entries.last().unwrap(),
        &entry(
            "cancelled",
            "cancelled",
            None,
            Some("Cancelled by the client")
        )
    );
}

#[test]
fn a_timeline_keeps_the_first_entry_and_the_last_ones() {
    let n = u64::from(KEEP) + 20;
    let mut o = start(json!({ "n": n }));
    for t in 0..=n {
        o.tick(NOW + t * 1000);
    }
    let view = timeline_as(&mut o, OWNER, NOW + (n + 1) * 1000);
    let entries = summary(&view);
    assert_eq!(entries.len(), KEEP as usize);
    assert_eq!(entries[0].0, "created");
    assert_eq!(entries.last().unwrap().0, "completed");
    // n progress entries + created + completed were written; KEEP are kept.
    let written = n + 2;
    assert_eq!(view["omittedEntries"], written - u64::from(KEEP));
    assert_eq!(
        entries[1].3.as_deref(),
        Some(format!("{}/{n}", n - u64::from(KEEP) + 3).as_str())
    );
    // The first INLINE_ENTRIES are inline, later ones under their own key; the dropped
    // ones left the hot record, or their keys were deleted, in the writes that dropped them.
    let keys: Vec<String> = o
        .storage
        .keys()
        .filter(|k| k.starts_with("timeline."))
        .cloned()
        .collect();
    assert_eq!(keys.len(), KEEP as usize - 1);
    let first_keyed = written - u64::from(KEEP) + 1;
    assert!(keys.contains(&format!("timeline.{first_keyed}")));
    assert!(!keys.contains(&format!("timeline.{}", first_keyed - 1)));
    let inline = o.load(Need::Hot).unwrap().parts.entries;
    assert_eq!(inline.keys().copied().collect::<Vec<_>>(), [0]);
    assert_eq!(
        o.load(Need::Hot).unwrap().parts.timeline as u64,
        written,
        "the hot record counts every entry written"
    );
}

#[test]
fn a_step_that_changes_nothing_visible_adds_no_entry() {
    let mut o = start(json!({ "n": 1 }));
    let before = o.load(Need::Timeline).unwrap().timeline.len();
    // Taking the lease is not a transition (the logs say when a step starts).
    assert_eq!(o.plan(NOW), Some(1));
    assert_eq!(o.load(Need::Timeline).unwrap().timeline.len(), before);
}

#[test]
fn entries_cut_long_messages_and_read_back_as_written() {
    let long = "x".repeat(2 * timeline::MAX_MESSAGE_CHARS);
    assert_eq!(
        timeline::clip(&long).chars().count(),
        timeline::MAX_MESSAGE_CHARS + 1
    );
    let mut o = start(json!({ "n": 1 }));
    let stored = o.load(Need::Timeline).unwrap();
    let text = &o.storage[layout::HOT_KEY];
    assert!(
        text.contains(&format!(
            r#""entries":{{"0":{{"atMs":{NOW},"event":"created","status":"working","message":"Queued"}}}}"#
        )),
        "{text}"
    );
    assert_eq!(
        stored.timeline[0].to_wire()["at"],
        "2025-11-25T10:30:00.000Z"
    );
    // Inline: nothing more to read.
    assert!(layout::keys_for(&stored, Need::Timeline).is_empty());
}
