//! Tasks: completion, input, cancellation, failure, resuming, listing. Their notifications
//! (`listen`): listen.rs.

use crate::support::*;
use js_sys::Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
async fn task_runs_to_completion() {
    let client = connect().await;
    let recorder = recording_options(&JsValue::UNDEFINED, 0);
    let result = call(
        &client,
        "callTool",
        &[
            &"slow_compute".into(),
            &obj(r#"{"seconds":1,"label":"browser"}"#),
            &prop(&recorder, "options"),
        ],
    )
    .await
    .unwrap();
    assert_eq!(first_text(&result), "browser: computed after 1 s");
    let seen = prop(&recorder, "seen");
    let created = Array::from(&prop(&seen, "created"));
    assert_eq!(created.length(), 1);
    let task_id = prop(&created.get(0), "taskId").as_string().unwrap();
    assert_eq!(task_id.len(), 32);
    let statuses = strings(&prop(&seen, "statuses"));
    assert_eq!(
        statuses.first().map(String::as_str),
        Some("working: Computing for 1 s"),
        "{statuses:?}"
    );
    assert_eq!(
        statuses.last().map(String::as_str),
        Some("completed"),
        "{statuses:?}"
    );
    // A finished task stays readable by id.
    let task = call(&client, "getTask", &[&task_id.into()]).await.unwrap();
    assert_eq!(
        prop(&task, "status").as_string().as_deref(),
        Some("completed")
    );
    assert!(prop(&task, "resultType").is_undefined());
}

#[wasm_bindgen_test]
async fn task_input_is_answered_once_by_an_async_handler() {
    let client = connect().await;
    // The handler takes longer than a poll interval: the same key must not be asked twice.
    let recorder = recording_options(
        &obj(r#"{"action":"accept","content":{"confirm":true}}"#),
        1500,
    );
    let result = call(
        &client,
        "callTool",
        &[
            &"confirm_delete".into(),
            &obj(r#"{"filename":"notes.txt"}"#),
            &prop(&recorder, "options"),
        ],
    )
    .await
    .unwrap();
    assert_eq!(first_text(&result), "Deleted notes.txt.");
    let seen = prop(&recorder, "seen");
    let asked = Array::from(&prop(&seen, "elicitations"));
    assert_eq!(asked.length(), 1, "asked {} times", asked.length());
    assert_eq!(
        prop(&prop(&asked.get(0), "params"), "message")
            .as_string()
            .as_deref(),
        Some("Delete notes.txt?")
    );
    assert!(
        strings(&prop(&seen, "statuses"))
            .iter()
            .any(|s| s.starts_with("input_required"))
    );
}
#[wasm_bindgen_test]
async fn abort_signal_cancels_the_task() {
    let client = connect().await;
    let aborter = abort_on_create();
    let error = call(
        &client,
        "callTool",
        &[
            &"process_batch".into(),
            &obj(r#"{"items":50,"delayMs":500}"#),
            &prop(&aborter, "options"),
        ],
    )
    .await
    .expect_err("an aborted call rejects");
    assert_eq!(
        prop(&error, "name").as_string().as_deref(),
        Some("AbortError"),
        "rejects with the signal's reason"
    );
    let task_id = prop(&prop(&aborter, "state"), "taskId");
    assert!(task_id.is_string());
    // tasks/cancel went out before the rejection: the task ends cancelled.
    let mut status = String::new();
    for _ in 0..20 {
        status = prop(
            &call(&client, "getTask", &[&task_id]).await.unwrap(),
            "status",
        )
        .as_string()
        .unwrap();
        if status == "cancelled" {
            break;
        }
        JsFuture::from(sleep(250)).await.unwrap();
    }
    assert_eq!(status, "cancelled");
}

#[wasm_bindgen_test]
async fn handle_cancel_rejects_the_result_with_cancelled() {
    let client = connect().await;
    let handle = call(
        &client,
        "startToolCall",
        &[
            &"process_batch".into(),
            &obj(r#"{"items":50,"delayMs":500}"#),
        ],
    )
    .await
    .unwrap();
    assert!(prop(&handle, "taskId").is_string());
    assert_eq!(
        prop(&handle, "status").as_string().as_deref(),
        Some("working")
    );
    call(&handle, "cancel", &[]).await.unwrap();
    let error = call(&handle, "result", &[])
        .await
        .expect_err("a cancelled task rejects");
    assert_mcp_error(&error, -32800);
    assert_eq!(
        prop(&handle, "status").as_string().as_deref(),
        Some("cancelled")
    );
}

#[wasm_bindgen_test]
async fn failed_task_rejects_with_its_error() {
    let client = connect().await;
    let error = call(&client, "callTool", &[&"protocol_error_job".into()])
        .await
        .expect_err("a failed task rejects");
    let message = assert_mcp_error(&error, -32603);
    assert!(message.contains("on purpose"), "{message}");
    // A tool error is still a completed task: it resolves with isError.
    let result = call(&client, "callTool", &[&"failing_job".into()])
        .await
        .unwrap();
    assert_eq!(prop(&result, "isError"), JsValue::TRUE);
    // A JSON-RPC error of tools/call itself.
    let error = call(&client, "callTool", &[&"no_such_tool".into()])
        .await
        .expect_err("unknown tool");
    assert_mcp_error(&error, -32602);
}

#[wasm_bindgen_test]
async fn resume_task_after_a_reload() {
    // "Page 1" starts a task that asks a question, then goes away before answering.
    let first = connect().await;
    let handle = call(
        &first,
        "startToolCall",
        &[
            &"confirm_delete".into(),
            &obj(r#"{"filename":"draft.md"}"#),
            &obj("{}"),
        ],
    )
    .await
    .unwrap();
    let task_id = prop(&handle, "taskId");
    let error = call(&handle, "result", &[])
        .await
        .expect_err("no onElicitation handler");
    assert!(assert_mcp_error(&error, -32603).contains("onElicitation"));
    // "Page 2" knows only the id, from storage.
    let second = connect().await;
    let recorder = recording_options(&obj(r#"{"action":"accept","content":{"confirm":true}}"#), 0);
    let resumed = call(
        &second,
        "resumeTask",
        &[&task_id, &prop(&recorder, "options")],
    )
    .await
    .unwrap();
    assert_eq!(prop(&resumed, "taskId"), task_id);
    let result = call(&resumed, "result", &[]).await.unwrap();
    assert_eq!(first_text(&result), "Deleted draft.md.");
    assert_eq!(
        Array::from(&prop(&prop(&recorder, "seen"), "elicitations")).length(),
        1
    );
    assert_eq!(
        prop(&resumed, "status").as_string().as_deref(),
        Some("completed")
    );
}
#[wasm_bindgen_test]
async fn list_tasks_shows_the_callers_tasks_newest_first() {
    // A keyed caller: an anonymous one has no task list (each anonymous task is its own
    // principal, docs/security.md).
    let client = connect_with(&mcp_url(), obj(r#"{"bearerToken":"browser-test-token"}"#))
        .await
        .expect("connect with the test key");
    let recorder = recording_options(&JsValue::UNDEFINED, 0);
    call(
        &client,
        "callTool",
        &[
            &"slow_compute".into(),
            &obj(r#"{"seconds":0.2,"label":"listed"}"#),
            &prop(&recorder, "options"),
        ],
    )
    .await
    .unwrap();
    let created = Array::from(&prop(&prop(&recorder, "seen"), "created"));
    let task_id = prop(&created.get(0), "taskId").as_string().unwrap();
    let page = call(&client, "listTasks", &[]).await.unwrap();
    let tasks = Array::from(&prop(&page, "tasks"));
    assert!(tasks.length() >= 1);
    let newest = tasks.get(0);
    assert_eq!(
        prop(&newest, "taskId").as_string().as_deref(),
        Some(task_id.as_str())
    );
    assert_eq!(
        prop(&newest, "status").as_string().as_deref(),
        Some("completed")
    );
    assert!(prop(&newest, "resultType").is_undefined());
    // The task names its tool (this server's facts in `_meta`), and the list filters by it.
    let facts = prop(&prop(&newest, "_meta"), "mcp-tasks-edge/task");
    assert_eq!(
        prop(&facts, "tool").as_string().as_deref(),
        Some("slow_compute")
    );
    let ids = |page: JsValue| -> Vec<String> {
        Array::from(&prop(&page, "tasks"))
            .iter()
            .map(|t| prop(&t, "taskId").as_string().unwrap())
            .collect()
    };
    let only = |filter: &str| obj(filter);
    let mine = call(
        &client,
        "listTasks",
        &[
            &JsValue::NULL,
            &only(r#"{"tool":"slow_compute","status":"completed"}"#),
        ],
    )
    .await
    .unwrap();
    assert!(ids(mine).contains(&task_id));
    let none = call(
        &client,
        "listTasks",
        &[&JsValue::NULL, &only(r#"{"tool":"no_such_tool"}"#)],
    )
    .await
    .unwrap();
    assert_eq!(ids(none), Vec::<String>::new());
    let refused = call(
        &client,
        "listTasks",
        &[&JsValue::NULL, &only(r#"{"status":"done"}"#)],
    )
    .await;
    assert_mcp_error(&refused.unwrap_err(), -32602);
    // A new token on the live client: without one the caller is anonymous and lists
    // nothing; with the key again, the same tasks.
    invoke(&client, "setBearerToken", Array::of1(&JsValue::NULL));
    let anonymous = call(&client, "listTasks", &[]).await.unwrap();
    assert_eq!(ids(anonymous), Vec::<String>::new());
    invoke(
        &client,
        "setBearerToken",
        Array::of1(&"browser-test-token".into()),
    );
    let again = call(&client, "listTasks", &[]).await.unwrap();
    assert!(ids(again).contains(&task_id));
}
