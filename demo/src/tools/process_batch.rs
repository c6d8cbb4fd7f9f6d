//! A long job: one item per step, progress in the status message, cancellable between
//! any two items because each wait is an alarm, not a sleep.

use mcp_tasks_edge::prelude::*;

/// Arguments of `process_batch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BatchArgs {
    /// How many items to process
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 100))]
    pub items: u64,
    /// Milliseconds per item
    #[serde(default = "one_second")]
    #[schemars(range(min = 0, max = 60000))]
    pub delay_ms: u64,
    /// A name for the batch
    #[serde(default = "batch")]
    pub label: String,
}

fn ten() -> u64 {
    10
}
fn one_second() -> u64 {
    1000
}
fn batch() -> String {
    "batch".into()
}

/// The checkpoint: items done so far and when the batch started.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Progress {
    done: u64,
    started_at: u64,
}

pub fn tool() -> Tool {
    Tool::new(
        "process_batch",
        "Processes `items` items one at a time, `delayMs` apart, reporting progress in the task's statusMessage as 'Processed N/M items' (and in numbers). Cancel it at any point with tasks/cancel.",
    )
    .title("Process a batch (long task)")
    .task(TaskSupport::Optional)
    .output_schema(json!({
        "type": "object",
        "properties": {
            "label": { "type": "string" },
            "items": { "type": "integer", "minimum": 0 },
            "elapsedMs": { "type": "integer", "minimum": 0, "description": "From the first step to the last, in milliseconds" }
        },
        "required": ["label", "items", "elapsedMs"]
    }))
    .run(process_batch)
}

/// What a finished batch reports in `structuredContent`, as the tool's `outputSchema`
/// declares it. A host without the Tasks extension gets this schema in
/// `_meta["mcp-tasks-edge/outputSchema"]` instead, since a long call's answer there is a
/// job's handle (docs/hosts.md).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchDone {
    pub label: String,
    pub items: u64,
    /// From the first step to the last, in milliseconds
    pub elapsed_ms: u64,
}

async fn process_batch(call: Call<BatchArgs>, _host: Host) -> Result<Step, ToolError> {
    let BatchArgs {
        items,
        delay_ms,
        label,
    } = &call.args;
    let progress = call.checkpoint::<Progress>()?.unwrap_or(Progress {
        done: 0,
        started_at: call.now_ms,
    });
    if progress.done >= *items {
        let elapsed = call.now_ms.saturating_sub(progress.started_at);
        let summary = format!("Processed {items} items of {label} in {elapsed} ms.");
        let done = BatchDone {
            label: label.clone(),
            items: *items,
            elapsed_ms: elapsed,
        };
        return Ok(Step::complete(json!({
            "content": [text(summary)],
            "structuredContent": done,
            "isError": false
        })));
    }
    let done = progress.done + 1;
    // In numbers too: the task's `_meta["mcp-tasks-edge/task"]` carries `progress` and
    // `total` for a client that draws a bar (the console does).
    let message = format!("Processed {done}/{items} items");
    call.progress(done as f64, Some(*items as f64), Some(&message));
    Ok(Step::wait(Duration::from_millis(*delay_ms))
        .checkpoint(Progress {
            done,
            started_at: progress.started_at,
        })
        .message(message))
}
