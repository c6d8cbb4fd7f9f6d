//! Reading a [`TaskRecord`] (as stored, and as the Worker sends it to be created) through a
//! plain struct whose status payload members are optional, checked against the status by
//! [`TaskStatus::from_payload`]; serde's derive for the flattened, internally tagged
//! [`TaskStatus`] would buffer the whole record first. Written records read back the same,
//! as do those of formats 1 and 2 (`crate::tasks::layout`).

use super::{Lease, TaskRecord};
use crate::tasks::task::{Payload, StatusKind, present};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RecordWire {
    task_id: String,
    owner: String,
    tool: String,
    #[serde(default)]
    title: Option<String>,
    arguments: Map<String, Value>,
    capabilities: Map<String, Value>,
    status: StatusKind,
    #[serde(default)]
    input_requests: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    status_message: Option<String>,
    #[serde(default)]
    progress: Option<f64>,
    #[serde(default)]
    total: Option<f64>,
    created_at_ms: u64,
    last_updated_at_ms: u64,
    ttl_ms: Option<u64>,
    poll_interval_ms: u64,
    #[serde(default)]
    checkpoint: Value,
    #[serde(default)]
    answers: Map<String, Value>,
    #[serde(default)]
    round: u32,
    #[serde(default)]
    next_step_at_ms: Option<u64>,
    #[serde(default, deserialize_with = "crate::jsonrpc::top::nested")]
    lease: Option<Lease>,
    #[serde(default)]
    version: u64,
}

impl<'de> Deserialize<'de> for TaskRecord {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<TaskRecord, D::Error> {
        let wire = RecordWire::deserialize(deserializer)?;
        let status = Payload {
            input_requests: wire.input_requests,
            result: wire.result,
            error: wire.error,
        }
        .status(wire.status, "task record", &wire.task_id)?;
        Ok(TaskRecord {
            task_id: wire.task_id,
            owner: wire.owner,
            tool: wire.tool,
            title: wire.title,
            arguments: wire.arguments,
            capabilities: wire.capabilities,
            status,
            status_message: wire.status_message,
            progress: wire.progress,
            total: wire.total,
            created_at_ms: wire.created_at_ms,
            last_updated_at_ms: wire.last_updated_at_ms,
            ttl_ms: wire.ttl_ms,
            poll_interval_ms: wire.poll_interval_ms,
            checkpoint: wire.checkpoint,
            answers: wire.answers,
            round: wire.round,
            next_step_at_ms: wire.next_step_at_ms,
            lease: wire.lease,
            version: wire.version,
        })
    }
}
