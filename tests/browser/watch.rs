//! `watchMyTasks`: every unfinished task of the caller, the client's own at once, those
//! another client starts through a listing, each until its terminal state; and polling
//! when no stream opens.

use crate::support::*;
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

#[wasm_bindgen(inline_js = r#"
// Collects watchMyTasks callbacks by task; `until(id, status, ms)` resolves with that
// task's states once it reaches `status`.
export function byTask() {
  const states = new Map();
  const waiters = [];
  const callback = (task) => {
    states.set(task.taskId, [...(states.get(task.taskId) ?? []), task]);
    for (const w of waiters) if (w.id === task.taskId && task.status === w.status) w.resolve(states.get(w.id));
  };
  const until = (id, status, ms) => new Promise((resolve, reject) => {
    if (states.get(id)?.some((t) => t.status === status)) return resolve(states.get(id));
    waiters.push({ id, status, resolve });
    setTimeout(() => reject(new Error(`${id}: no ${status} within ${ms} ms; got ${JSON.stringify(states.get(id)?.map((t) => t.status))}`)), ms);
  });
  return { callback, until, seen: (id) => states.has(id), count: () => states.size };
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = byTask)]
    fn by_task() -> JsValue;
}

/// The states `watched` got of `task_id` once it reached `status` (within `ms`).
async fn states(watched: &JsValue, task_id: &JsValue, status: &str, ms: u32) -> Vec<JsValue> {
    let until = invoke(
        watched,
        "until",
        args(&[task_id, &status.into(), &ms.into()]),
    );
    Array::from(&settle(until).await.unwrap()).iter().collect()
}

fn status(task: &JsValue) -> String {
    prop(task, "status").as_string().unwrap_or_default()
}

/// Starts slow_compute for `seconds` on `client`; the task's id.
async fn start(client: &JsValue, seconds: f64) -> JsValue {
    let handle = call(
        client,
        "startToolCall",
        &[
            &"slow_compute".into(),
            &obj(&format!(r#"{{"seconds":{seconds}}}"#)),
        ],
    )
    .await
    .unwrap();
    prop(&handle, "taskId")
}

#[wasm_bindgen_test]
async fn watch_my_tasks_follows_every_task_of_the_caller_new_ones_included() {
    // A keyed caller of its own (an anonymous one has no task list; the other tests list
    // the browser key's tasks).
    let keyed = || obj(r#"{"bearerToken":"alice-token"}"#);
    let page = connect_with(&mcp_url(), keyed()).await.unwrap();
    let elsewhere = connect_with(&mcp_url(), keyed()).await.unwrap();
    let before = start(&elsewhere, 3.0).await;
    let watched = by_task();
    let options = obj(r#"{"relistIntervalMs":1000}"#);
    let watch = call(
        &page,
        "watchMyTasks",
        &[&prop(&watched, "callback"), &options],
    )
    .await
    .unwrap();
    assert_eq!(prop(&watch, "mode").as_string().as_deref(), Some("stream"));
    // Found by the first listing, with this server's facts.
    let seen = invoke(&watched, "seen", args(&[&before]));
    assert!(
        seen.is_truthy(),
        "the unfinished task of another client, at once"
    );
    // The page's own call joins at once; one started elsewhere by a later listing.
    let mine = start(&page, 1.0).await;
    let later = start(&elsewhere, 3.0).await;
    for (task_id, what) in [(&before, "before"), (&mine, "mine"), (&later, "later")] {
        let got = states(&watched, task_id, "completed", 15_000).await;
        let first = &got[0];
        assert_eq!(status(first), "working", "{what}: its current state first");
        let facts = prop(&prop(first, "_meta"), "mcp-tasks-edge/task");
        assert_eq!(
            prop(&facts, "tool").as_string().as_deref(),
            Some("slow_compute")
        );
        assert!(prop(first, "resultType").is_undefined());
        let ends: Vec<String> = got.iter().map(status).filter(|s| s != "working").collect();
        assert_eq!(
            ends,
            ["completed"],
            "{what}: one terminal state, the last one"
        );
    }
    // Closed: a new task of the caller no longer reaches the callback.
    invoke(&watch, "close", Array::new());
    let count = invoke(&watched, "count", Array::new()).as_f64();
    let after = start(&page, 0.2).await;
    settle(sleep(1_500).into()).await.unwrap();
    assert!(!invoke(&watched, "seen", args(&[&after])).is_truthy());
    assert_eq!(invoke(&watched, "count", Array::new()).as_f64(), count);
}

#[wasm_bindgen_test]
async fn watch_my_tasks_polls_when_no_stream_opens() {
    let options = js_sys::Object::new();
    Reflect::set(&options, &"fetch".into(), &no_stream_fetch()).unwrap();
    let client = connect_with(&mcp_url(), options.into()).await.unwrap();
    let task_id = start(&client, 1.0).await;
    let watched = by_task();
    let watch = call(&client, "watchMyTasks", &[&prop(&watched, "callback")])
        .await
        .unwrap();
    assert_eq!(prop(&watch, "mode").as_string().as_deref(), Some("polling"));
    let got = states(&watched, &task_id, "completed", 10_000).await;
    assert_eq!(status(got.last().unwrap()), "completed");
    invoke(&watch, "close", Array::new());
}

#[wasm_bindgen(inline_js = r#"
// Reads a MyTasksStore the way a framework does: `until(id, status, ms)` resolves with the
// task's entry once the store shows it in `status`.
export function reader(store) {
  const snapshots = [];
  const unsubscribe = store.subscribe((snapshot) => snapshots.push(snapshot));
  const find = (id, status) => store.getSnapshot().tasks.find((t) => t.taskId === id && t.status === status);
  const until = (id, status, ms) => new Promise((resolve, reject) => {
    if (find(id, status)) return resolve(find(id, status));
    const off = store.subscribe(() => { if (find(id, status)) { off(); resolve(find(id, status)); } });
    setTimeout(() => { off(); reject(new Error(`${id}: not ${status} within ${ms} ms`)); }, ms);
  });
  return { until, unsubscribe, count: () => snapshots.length, stable: () => store.getSnapshot() === store.getSnapshot()
    && Object.isFrozen(store.getSnapshot()), first: () => snapshots[0] };
}
"#)]
extern "C" {
    fn reader(store: &JsValue) -> JsValue;
}

#[wasm_bindgen_test]
async fn my_tasks_is_one_store_of_every_task_finished_ones_included() {
    let keyed = || obj(r#"{"bearerToken":"alice-token"}"#);
    let page = connect_with(&mcp_url(), keyed()).await.unwrap();
    let elsewhere = connect_with(&mcp_url(), keyed()).await.unwrap();
    let finished = start(&elsewhere, 0.2).await;
    settle(sleep(1_500).into()).await.unwrap();
    let controller = web_sys::AbortController::new().unwrap();
    let options = obj(r#"{"relistIntervalMs":1000}"#);
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let store = invoke(&page, "myTasks", args(&[&options]));
    let read = reader(&store);
    let first = invoke(&read, "first", Array::new());
    assert_eq!(
        prop(&first, "loading").as_bool(),
        Some(true),
        "the listener at once"
    );
    let until = |id: &JsValue, status: &str| {
        settle(invoke(
            &read,
            "until",
            args(&[id, &status.into(), &15_000.into()]),
        ))
    };
    // A task finished before the store: from its first listing.
    let entry = until(&finished, "completed").await.unwrap();
    assert_eq!(
        prop(&entry, "tool").as_string().as_deref(),
        Some("slow_compute")
    );
    // The page's own, live, and one started elsewhere, found by a relisting.
    let mine = start(&page, 0.5).await;
    let later = start(&elsewhere, 0.5).await;
    for id in [&mine, &later] {
        let entry = until(id, "completed").await.unwrap();
        assert_eq!(
            prop(&entry, "tool").as_string().as_deref(),
            Some("slow_compute")
        );
        assert!(prop(&entry, "inputRequests").is_object());
    }
    assert!(
        invoke(&read, "stable", Array::new()).is_truthy(),
        "one frozen snapshot between changes"
    );
    assert_eq!(
        prop(&store, "connection").as_string().as_deref(),
        Some("live")
    );
    // The signal closes it: a new task no longer reaches it.
    controller.abort();
    let count = invoke(&read, "count", Array::new()).as_f64();
    start(&page, 0.2).await; // a task the closed store must not show
    settle(sleep(1_500).into()).await.unwrap();
    assert_eq!(invoke(&read, "count", Array::new()).as_f64(), count);
    // Cleanups that run twice are harmless.
    for _ in 0..2 {
        invoke(&store, "free", Array::new());
        invoke(&store, "close", Array::new());
    }
}
