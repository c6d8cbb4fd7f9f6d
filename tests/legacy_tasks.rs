//! The 2025-11-25 era's task answers, natively: the steps of `tasks/result` as the task
//! goes, a task that does not decode, `tasks/list`'s page in legacy shape, and the HTTP
//! statuses a legacy answer keeps. The rest of the era: tests/legacy.rs.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::legacy;
use serde_json::{Value, json};

#[test]
fn tasks_result_steps_follow_the_task() {
    use legacy::ResultStep;
    let tid = "00112233445566778899aabbccddeeff";
    let task = |extra: Value| {
        let mut t = json!({ "taskId": tid, "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": null });
        t.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        t
    };
    assert_eq!(
        legacy::result_step(&task(json!({ "status": "working" })), tid).unwrap(),
        ResultStep::Wait
    );
    assert_eq!(
        legacy::result_step(&task(json!({ "status": "cancelled" })), tid).unwrap(),
        ResultStep::Cancelled
    );
    let asked = json!({ "name#1": { "method": "elicitation/create", "params": {} } });
    assert_eq!(
        legacy::result_step(
            &task(json!({ "status": "input_required", "inputRequests": asked })),
            tid
        )
        .unwrap(),
        ResultStep::Ask(asked.as_object().unwrap().clone())
    );
    let Ok(ResultStep::Complete(result)) = legacy::result_step(
        &task(json!({ "status": "completed", "result": { "content": [] } })),
        tid,
    ) else {
        panic!()
    };
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        tid
    );
    let failed = json!({ "status": "failed", "error": { "code": -32603, "message": "boom" } });
    let Ok(ResultStep::Fail(error)) = legacy::result_step(&task(failed), tid) else {
        panic!()
    };
    assert_eq!((error.code.0, error.message.as_str()), (-32603, "boom"));
}

/// A task reply that does not decode is an internal error naming why, never "wait"
/// (invariant 5): an unknown status, a completed task without its result, a failed one
/// whose error is not an error.
#[test]
fn tasks_result_of_a_task_that_does_not_decode_is_an_error() {
    let tid = "00112233445566778899aabbccddeeff";
    for (task, why) in [
        (json!({ "taskId": tid }), "missing field `status`"),
        (
            json!({ "taskId": tid, "status": "paused" }),
            "unknown variant `paused`",
        ),
        (
            json!({ "taskId": tid, "status": "completed" }),
            "missing field `result`",
        ),
        (
            json!({ "taskId": tid, "status": "failed", "error": "boom" }),
            "invalid type",
        ),
    ] {
        let Err(McpError::Internal(message)) = legacy::result_step(&task, tid) else {
            panic!("{task} must be refused")
        };
        assert!(
            message.contains("does not decode") && message.contains(why),
            "{message}"
        );
    }
}

#[test]
fn tasks_list_is_the_page_in_legacy_shape_with_its_cursor() {
    use mcp_tasks_edge::legacy::tasks::list_result;
    let page = [
        json!({ "taskId": "a", "status": "working", "createdAt": "t", "lastUpdatedAt": "t", "ttlMs": 60000, "pollIntervalMs": 1000 }),
        json!({ "taskId": "b", "status": "completed", "createdAt": "t", "lastUpdatedAt": "t", "ttlMs": null,
                "result": { "content": [{ "type": "text", "text": "bad" }], "isError": true } }),
    ];
    let listed = list_result(&page, Some("c2".into()));
    assert_eq!(listed["nextCursor"], "c2");
    assert!(
        listed.get("resultType").is_none(),
        "2025-11-25 results have none"
    );
    assert_eq!(listed["tasks"][0]["ttl"], 60000);
    assert_eq!(listed["tasks"][0]["pollInterval"], 1000);
    // A tool error reads as failed to a 2025-11-25 client (legacy tasks "Task Execution Errors").
    assert_eq!(listed["tasks"][1]["status"], "failed");
    assert!(list_result(&page[..1], None).get("nextCursor").is_none());
}

#[test]
fn a_legacy_answer_keeps_only_the_statuses_that_tell_the_client_what_to_do() {
    use mcp_tasks_edge::error::legacy_status;
    let statuses = [
        (
            McpError::TooManyRequests {
                limit: "QUOTA_TASKS_PER_MINUTE",
                max: 1,
                retry_after_s: 3,
            },
            429,
        ),
        (McpError::NotAcceptable("a stream".into()), 406),
        (McpError::InvalidParams("x".into()), 200),
        (McpError::MethodNotFound("x".into()), 200),
        (McpError::Internal("x".into()), 200),
        (McpError::TaskNotFound, 200),
    ];
    for (error, status) in statuses {
        assert_eq!(legacy_status(error.http_status()), status, "{error:?}");
    }
    assert_eq!(legacy_status(202), 202);
}
