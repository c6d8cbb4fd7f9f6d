//! Task notifications: `listen` streams them (a state in the acknowledgement's chunk
//! counts too) and falls back to polling when no stream opens.

use crate::support::*;
use js_sys::{Array, Promise, Reflect};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
async fn states_in_the_chunk_of_the_acknowledgement_count() {
    // The stream's first chunk holds the ack and the task's current state: that state
    // must reach the driver (it is not sent again), or the call waits forever.
    let options = js_sys::Object::new();
    Reflect::set(&options, &"fetch".into(), &coalescing_fetch()).unwrap();
    let client = connect_with(&mcp_url(), options.into()).await.unwrap();
    let recorder = recording_options(&obj(r#"{"action":"accept","content":{"confirm":true}}"#), 0);
    let result = invoke(
        &client,
        "callTool",
        args(&[
            &"confirm_delete".into(),
            &obj(r#"{"filename":"chunk.txt"}"#),
            &prop(&recorder, "options"),
        ]),
    );
    let raced = Promise::race(&args(&[&result, &timeout(10_000)]));
    let result = JsFuture::from(raced).await.unwrap();
    assert_eq!(first_text(&result), "Deleted chunk.txt.");
}

#[wasm_bindgen_test]
async fn listen_streams_task_notifications() {
    let client = connect().await;
    let handle = call(
        &client,
        "startToolCall",
        &[&"slow_compute".into(), &obj(r#"{"seconds":1}"#)],
    )
    .await
    .unwrap();
    let task_id = prop(&handle, "taskId");
    let collected = collector();
    let ids: Array = [task_id.clone(), "0123456789abcdef0123456789abcdef".into()]
        .iter()
        .collect();
    let subscription = call(&client, "listen", &[&ids, &prop(&collected, "callback")])
        .await
        .unwrap();
    assert_eq!(
        prop(&subscription, "mode").as_string().as_deref(),
        Some("stream")
    );
    let done = settle(invoke(
        &collected,
        "until",
        args(&[&"completed".into(), &8000.into()]),
    ))
    .await
    .unwrap();
    assert_eq!(prop(&done, "taskId"), task_id);
    assert!(prop(&prop(&done, "result"), "content").is_object());
    invoke(&subscription, "close", Array::new());
    let tasks = Array::from(&prop(&collected, "tasks"));
    assert!(
        tasks.iter().all(|t| prop(&t, "taskId") == task_id),
        "only the known task is reported"
    );
}

#[wasm_bindgen_test]
async fn listen_falls_back_to_polling() {
    let options = js_sys::Object::new();
    Reflect::set(&options, &"fetch".into(), &no_stream_fetch()).unwrap();
    let client = connect_with(&mcp_url(), options.into()).await.unwrap();
    let handle = call(
        &client,
        "startToolCall",
        &[&"slow_compute".into(), &obj(r#"{"seconds":1}"#)],
    )
    .await
    .unwrap();
    let collected = collector();
    let ids: Array = [prop(&handle, "taskId")].iter().collect();
    let subscription = call(&client, "listen", &[&ids, &prop(&collected, "callback")])
        .await
        .unwrap();
    assert_eq!(
        prop(&subscription, "mode").as_string().as_deref(),
        Some("polling")
    );
    settle(invoke(
        &collected,
        "until",
        args(&[&"completed".into(), &8000.into()]),
    ))
    .await
    .unwrap();
    let statuses: Vec<String> = Array::from(&prop(&collected, "tasks"))
        .iter()
        .filter_map(|t| prop(&t, "status").as_string())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| *s == "completed").count(),
        1,
        "{statuses:?}"
    );
    invoke(&subscription, "close", Array::new());
}
