//! What the jobs tests share (tests/jobs.rs, tests/jobs_follow.rs): a job's run as the
//! server hands it over, and the task states its object answers.

use super::body;
use mcp_tasks_edge::jsonrpc::RequestId;
use mcp_tasks_edge::server::Envelope;
use mcp_tasks_edge::server::jobs::{JobRun, Next, Reader};
use serde_json::{Map, Value, json};

pub const JOB: &str = "0123456789abcdef0123456789abcdef";

pub fn run(reader: Reader, token: bool, capabilities: Value) -> JobRun {
    JobRun {
        request_id: RequestId::Number(7),
        envelope: Envelope::default(),
        job: JOB.into(),
        first: None,
        wait_ms: 30_000,
        reader,
        progress_token: token.then(|| json!("p")),
        reported: 0.0,
        capabilities: mcp_tasks_edge::mcp::meta::ClientCapabilities(
            capabilities.as_object().unwrap().clone(),
        ),
        request_key: "tools/call slow_compute".into(),
        arguments: Map::new(),
        max_wait_s: 30,
    }
}

pub fn call_reader() -> Reader {
    Reader::Call {
        tool: "slow_compute".into(),
    }
}

pub fn task(status: &str, extra: Value) -> Value {
    let mut task = json!({ "taskId": JOB, "status": status, "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": 60000 });
    task.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    task
}

pub fn answer(next: Vec<Next>) -> Value {
    match next.last() {
        Some(Next::Answer(r)) => body(r),
        other => panic!("expected an answer, got {other:?}"),
    }
}

pub fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"].as_str().unwrap()
}
