//! Checkpoints across deploys: one that no longer decodes into the tool's checkpoint type
//! fails the task loudly (naming the tool, the type and the mismatch) and never starts
//! the tool over; an author's migration converts an older form instead; a checkpoint
//! that cannot be stored fails the step rather than storing nothing.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::NOW;
use common::object::{ID, Object};
use mcp_tasks_edge::host::Host;
use mcp_tasks_edge::prelude::*;
use mcp_tasks_edge::server::Server;
use mcp_tasks_edge::tasks::execution::Limits;
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::record::{NewTask, TaskRecord};
use mcp_tasks_edge::tools::CHECKPOINT_MISMATCH;
use std::cell::Cell;
use std::collections::BTreeMap;

const LIMITS: Limits = Limits {
    max_attempts: 3,
    lease_ms: 60_000,
    max_result_bytes: 1 << 20,
};

/// This deploy's checkpoint.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Job {
    poll_url: String,
    failures: u32,
}

/// The previous deploy's.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OldJob {
    status_url: String,
}

thread_local! {
    /// Jobs started (the side effect a restart from scratch would repeat).
    static STARTED: Cell<u32> = const { Cell::new(0) };
}

async fn job(call: Call, _host: Host) -> Result<Step, ToolError> {
    match call.checkpoint::<Job>()? {
        None => {
            STARTED.with(|s| s.set(s.get() + 1));
            Ok(Step::wait(Duration::from_secs(1)).checkpoint(Job {
                poll_url: "https://jobs.example/1".into(),
                failures: 0,
            }))
        }
        Some(job) => Ok(Step::text(format!("polled {}", job.poll_url))),
    }
}

async fn migrating_job(call: Call, _host: Host) -> Result<Step, ToolError> {
    let migrate = |old: OldJob| Job {
        poll_url: old.status_url,
        failures: 0,
    };
    match call.checkpoint_migrating(migrate)? {
        None => Ok(Step::text("started")),
        Some(job) => Ok(Step::text(format!("polled {}", job.poll_url))),
    }
}

fn object() -> Object {
    let server = Server::builder("t")
        .tool(
            Tool::new("job", "test")
                .task(TaskSupport::Required)
                .run_json(job),
        )
        .tool(
            Tool::new("migrating_job", "test")
                .task(TaskSupport::Required)
                .run_json(migrating_job),
        )
        .build();
    Object::new(server.registry, LIMITS)
}

/// A task of `tool` in flight, as an earlier deploy left it: its first step done, its
/// checkpoint stored in that deploy's form.
fn in_flight(tool: &str, checkpoint: Value) -> Object {
    let mut o = object();
    let mut record = TaskRecord::new(NewTask {
        tool: tool.into(),
        title: None,
        owner: "key:alice".into(),
        arguments: Map::new(),
        capabilities: Map::new(),
        checkpoint,
        answers: Map::new(),
        status_message: Some("Job accepted".into()),
        amount: None,
        now_ms: NOW,
        ttl_ms: Some(3_600_000),
        poll_interval_ms: 1000,
        next_step_at_ms: NOW + 1000,
    });
    record.assign_id(ID.into());
    let create = ObjectRequest::Create {
        record: Box::new(record),
    };
    assert!(matches!(
        o.request(create, "key:alice", NOW),
        ObjectReply::Result(_)
    ));
    o
}

#[test]
fn a_checkpoint_of_another_shape_fails_the_task_and_nothing_starts_over() {
    STARTED.with(|s| s.set(0));
    let mut o = in_flight(
        "job",
        json!({ "statusUrl": "https://jobs.example/1", "failures": 0 }),
    );
    o.tick(NOW + 1000);
    let task = o.get_as("key:alice", NOW + 1001);
    assert_eq!(task["status"], "failed", "{task}");
    assert_eq!(task["error"]["code"], -32603);
    assert_eq!(
        task["error"]["message"],
        "The tool \"job\" cannot resume: its stored checkpoint does not decode as checkpoint::Job: missing field `pollUrl`. It was stored by an earlier step (perhaps before a deploy changed the checkpoint type); the step was not run again, so nothing it did is repeated"
    );
    assert_eq!(task["error"]["data"], json!({ CHECKPOINT_MISMATCH: true }));
    assert_eq!(STARTED.with(Cell::get), 0, "the job was started again");
    // It is in the timeline and the logs too.
    let timeline = match o.request(
        ObjectRequest::Timeline { task_id: ID.into() },
        "key:alice",
        NOW + 1002,
    ) {
        ObjectReply::Result(v) => v,
        other => panic!("{other:?}"),
    };
    assert_eq!(timeline["timeline"][1]["event"], "failed");
    let last = o.logged.last().unwrap();
    assert_eq!(last.event(), "task.failed");
}

#[test]
fn the_same_shape_resumes_and_a_fresh_task_starts() {
    STARTED.with(|s| s.set(0));
    let mut o = in_flight(
        "job",
        json!({ "pollUrl": "https://jobs.example/1", "failures": 0 }),
    );
    o.tick(NOW + 1000);
    let task = o.get_as("key:alice", NOW + 1001);
    assert_eq!(
        task["result"]["content"][0]["text"],
        "polled https://jobs.example/1"
    );
    let mut o = in_flight("job", Value::Null);
    o.tick(NOW + 1000);
    o.tick(NOW + 2000);
    assert_eq!(o.get_as("key:alice", NOW + 2001)["status"], "completed");
    assert_eq!(STARTED.with(Cell::get), 1);
}

#[test]
fn an_authors_migration_converts_the_older_form() {
    let mut o = in_flight(
        "migrating_job",
        json!({ "statusUrl": "https://jobs.example/7", "failures": 2 }),
    );
    o.tick(NOW + 1000);
    let task = o.get_as("key:alice", NOW + 1001);
    assert_eq!(
        task["result"]["content"][0]["text"],
        "polled https://jobs.example/7"
    );
    // Neither form: the same loud failure, naming both types.
    let mut o = in_flight("migrating_job", json!({ "somethingElse": true }));
    o.tick(NOW + 1000);
    let message = o.get_as("key:alice", NOW + 1001)["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.starts_with("The tool \"migrating_job\" cannot resume: its stored checkpoint does not decode as checkpoint::Job: missing field `pollUrl` (nor is it a checkpoint::OldJob: missing field `statusUrl`)"),
        "{message}"
    );
}

#[test]
fn call_checkpoint_decodes_or_says_why() {
    let call = Call::new(json!({}));
    assert_eq!(call.checkpoint::<u64>(), Ok(None));
    let call = call.checkpoint_at(json!(3));
    assert_eq!(call.checkpoint::<u64>(), Ok(Some(3)));
    match call.checkpoint::<String>() {
        Err(ToolError::Rpc(e)) => {
            assert_eq!(e.code.0, -32603);
            assert!(
                e.message.starts_with(
                    "its stored checkpoint does not decode as alloc::string::String: invalid type: integer `3`, expected a string"
                ),
                "{}",
                e.message
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn raw_access_is_explicit_and_the_fixtures_read_theirs_typed() {
    let call = Call::new(json!({}));
    assert!(!call.has_checkpoint());
    assert_eq!(call.checkpoint_value(), &Value::Null);
    let call = call.checkpoint_at(json!({ "page": 2 }));
    assert!(call.has_checkpoint());
    assert_eq!(call.checkpoint_value(), &json!({ "page": 2 }));
    // The conformance fixtures that count their steps in the checkpoint fail on one that
    // is not a count (a deploy changed it) instead of starting over at step one.
    let server = common::server();
    for name in ["test_tool_with_progress", "test_tool_with_logging"] {
        let tool = server.registry.get(name).expect(name);
        let host = Host::new(mcp_tasks_edge::host::fake::FakeHost::new());
        let step = mcp_tasks_edge::host::block_on(tool.step(
            Call::new(json!({})).checkpoint_at(json!({ "page": 2 })),
            host.clone(),
        ));
        match step {
            Step::Fail(e) => {
                assert_eq!(e.data, Some(json!({ CHECKPOINT_MISMATCH: true })), "{name}");
                assert!(
                    e.message.contains("does not decode as u64"),
                    "{name}: {}",
                    e.message
                );
            }
            other => panic!("{name} started over: {other:?}"),
        }
        let resumed = mcp_tasks_edge::host::block_on(
            tool.step(Call::new(json!({})).checkpoint_at(json!(2)), host),
        );
        assert!(matches!(resumed, Step::Complete(_)), "{name}: {resumed:?}");
    }
}

#[test]
fn a_checkpoint_that_cannot_be_stored_fails_the_step() {
    // JSON objects need string keys.
    let mut map = BTreeMap::new();
    map.insert((1, 2), "x");
    match Step::next().checkpoint(map) {
        Step::Fail(e) => assert_eq!(
            e.message,
            "the step's checkpoint does not serialize as JSON: key must be a string"
        ),
        other => panic!("{other:?}"),
    }
}
