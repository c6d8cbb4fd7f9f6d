//! `listen(taskIds, callback)`: `notifications/tasks` over a `subscriptions/listen` SSE
//! stream, or polling `tasks/get` when the stream cannot be opened or breaks.
//!
//! The callback sees each task state once, whichever way it arrived: states are compared
//! without their transport fields (`sse::bare_task`).

use super::client::Inner;
use super::flow;
use super::js::{self, JsResult, to_js};
use super::sse::{ListenEvent, SseParser, bare_task, listen_event};
use super::wire::ClientError;
use js_sys::Function;
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

struct State {
    mode: &'static str,
    closed: bool,
    reader: Option<web_sys::ReadableStreamDefaultReader>,
    /// Watched task ids and the last state delivered (`Null` before the first).
    last: BTreeMap<String, Value>,
    callback: Function,
}

type Shared = Rc<RefCell<State>>;

/// A running subscription: `mode` and `close()` (docs/js-api.md).
#[wasm_bindgen]
pub struct Subscription {
    state: Shared,
}

#[wasm_bindgen]
impl Subscription {
    /// `"stream"` while notifications come over subscriptions/listen, `"polling"` after
    /// falling back to tasks/get.
    #[wasm_bindgen(getter, unchecked_return_type = "\"stream\" | \"polling\"")]
    pub fn mode(&self) -> String {
        self.state.borrow().mode.to_owned()
    }

    /// Stops the notifications (closes the stream or stops polling).
    pub fn close(&self) {
        let reader = {
            let mut state = self.state.borrow_mut();
            state.closed = true;
            state.reader.take()
        };
        if let Some(reader) = reader {
            let _ = reader.cancel();
        }
    }
}

/// Hands `task` to the callback if it is watched and differs from the last one delivered.
fn deliver(state: &Shared, task: &Map<String, Value>) {
    let task = Value::Object(bare_task(task));
    let id = task
        .get("taskId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let callback = {
        let mut s = state.borrow_mut();
        match s.last.get(&id) {
            Some(last) if *last != task && !s.closed => {
                s.last.insert(id, task.clone());
                s.callback.clone()
            }
            _ => return,
        }
    };
    if let Err(thrown) = callback.call1(&JsValue::UNDEFINED, &to_js(&task)) {
        web_sys::console::error_2(&"McpClient: a listen callback threw".into(), &thrown);
    }
}

/// Watched ids whose last state is not terminal.
fn pending(state: &Shared) -> Vec<String> {
    let s = state.borrow();
    s.last
        .iter()
        .filter(|(_, task)| !flow::task_state(task).is_ok_and(|t| t.is_terminal()))
        .map(|(id, _)| id.clone())
        .collect()
}

pub async fn listen(
    inner: Rc<Inner>,
    task_ids: Vec<String>,
    callback: Function,
) -> JsResult<Subscription> {
    let last = task_ids
        .iter()
        .map(|id| (id.clone(), Value::Null))
        .collect();
    let state = Rc::new(RefCell::new(State {
        mode: "stream",
        closed: false,
        reader: None,
        last,
        callback,
    }));
    match open_stream(&inner, &task_ids).await {
        Some((reader, parser, early)) => {
            for event in early {
                handle(&state, event);
            }
            state.borrow_mut().reader = Some(reader.clone());
            spawn_local(read_stream(inner, state.clone(), reader, parser));
        }
        None => {
            state.borrow_mut().mode = "polling";
            spawn_local(poll(inner, state.clone()));
        }
    }
    Ok(Subscription { state })
}

/// Opens the stream and reads up to its acknowledgement. `None` when that fails: no
/// stream, an error answer, or an end before the acknowledgement.
async fn open_stream(
    inner: &Inner,
    task_ids: &[String],
) -> Option<(
    web_sys::ReadableStreamDefaultReader,
    SseParser,
    Vec<ListenEvent>,
)> {
    let mut params = Map::new();
    params.insert("notifications".into(), json!({ "taskIds": task_ids }));
    let outgoing = inner
        .session
        .request(inner.next_id(), "subscriptions/listen", params, None);
    let response = js::post(inner.fetch.as_ref(), &inner.session.url, &outgoing, None)
        .await
        .ok()?;
    let media = js::content_type(&response).to_ascii_lowercase();
    if !response.ok() || !media.starts_with("text/event-stream") {
        return None;
    }
    let reader = web_sys::ReadableStreamDefaultReader::new(&response.body()?).ok()?;
    let mut parser = SseParser::default();
    let mut early = Vec::new();
    loop {
        let chunk = js::read_chunk(&reader).await.ok()??;
        for payload in parser.push(&chunk) {
            match listen_event(&payload) {
                ListenEvent::Acknowledged(_) => {
                    early.push(listen_event(&payload));
                    return Some((reader, parser, early));
                }
                ListenEvent::Error(_) | ListenEvent::Closed => return None,
                event => early.push(event),
            }
        }
    }
}

/// Applies one stream event; `false` once the stream is over.
fn handle(state: &Shared, event: ListenEvent) -> bool {
    match event {
        // Ids the server would not watch (unknown, expired, not ours) get no callbacks.
        ListenEvent::Acknowledged(accepted) => {
            state
                .borrow_mut()
                .last
                .retain(|id, _| accepted.contains(id));
            true
        }
        ListenEvent::Task(Value::Object(task)) => {
            deliver(state, &task);
            true
        }
        ListenEvent::Closed | ListenEvent::Error(_) => false,
        _ => true,
    }
}

async fn read_stream(
    inner: Rc<Inner>,
    state: Shared,
    reader: web_sys::ReadableStreamDefaultReader,
    mut parser: SseParser,
) {
    let ended_cleanly = loop {
        let chunk = match js::read_chunk(&reader).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) | Err(_) => break false,
        };
        let mut over = None;
        for payload in parser.push(&chunk) {
            match listen_event(&payload) {
                ListenEvent::Closed => over = Some(true),
                ListenEvent::Error(_) => over = Some(false),
                event => {
                    handle(&state, event);
                }
            }
        }
        if let Some(clean) = over {
            break clean;
        }
    };
    let closed = state.borrow().closed;
    let _ = reader.cancel();
    if !ended_cleanly && !closed && !pending(&state).is_empty() {
        state.borrow_mut().mode = "polling";
        poll(inner, state).await;
    }
}

/// Polls every non-terminal watched task until all are terminal or the subscription is
/// closed. A task the server no longer knows (-32602) is dropped; other errors retry.
async fn poll(inner: Rc<Inner>, state: Shared) {
    loop {
        let ids = pending(&state);
        if ids.is_empty() || state.borrow().closed {
            return;
        }
        let mut delay = flow::MAX_POLL_MS;
        for id in ids {
            match inner.get_task(&id, None).await {
                Ok(Value::Object(task)) => {
                    delay = delay.min(flow::poll_delay(&Value::Object(task.clone())));
                    deliver(&state, &task);
                }
                Ok(_) => {}
                Err(e) => {
                    if js::get(&e, "code").as_f64() == Some(ClientError::INVALID_PARAMS as f64) {
                        state.borrow_mut().last.remove(&id);
                    }
                    delay = delay.min(flow::DEFAULT_POLL_MS);
                }
            }
        }
        if state.borrow().closed {
            return;
        }
        let _ = js::wait(js::sleep(delay), None).await;
    }
}
