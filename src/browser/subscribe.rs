//! `listen(taskIds, callback)`: `notifications/tasks` for some tasks, over the client's
//! one shared `subscriptions/listen` stream (`hub.rs`), or by polling `tasks/get` when
//! no stream can be opened.
//!
//! The callback sees each task state once, whichever way it arrived: states are compared
//! without their transport fields (`sse::bare_task`).

use super::hub::Hub;
use super::js::{self, JsResult};
use js_sys::Function;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A running subscription: `mode` and `close()` (docs/js-api.md).
#[wasm_bindgen]
pub struct Subscription {
    hub: Rc<Hub>,
    key: u64,
    closed: Rc<Cell<bool>>,
}

#[wasm_bindgen]
impl Subscription {
    /// `"stream"` while notifications come over subscriptions/listen, `"polling"` after
    /// falling back to tasks/get.
    #[wasm_bindgen(getter, unchecked_return_type = "\"stream\" | \"polling\"")]
    pub fn mode(&self) -> String {
        self.hub.mode().to_owned()
    }

    /// How the changes come now: `"live"`, `"reconnecting"` or `"polling"`.
    #[wasm_bindgen(getter, unchecked_return_type = "Connection")]
    pub fn connection(&self) -> String {
        self.hub.connection().to_owned()
    }

    /// Stops the notifications (the shared stream drops these tasks when it next reopens).
    pub fn close(&self) {
        if !self.closed.replace(true) {
            self.hub.remove_listener(self.key);
        }
    }
}

/// `listen(taskIds, callback, { signal })`: an aborted signal closes the subscription
/// (before its promise resolves too: the promise then rejects with the signal's reason).
pub async fn listen(
    hub: Rc<Hub>,
    task_ids: Vec<String>,
    callback: Function,
    signal: Option<web_sys::AbortSignal>,
) -> JsResult<Subscription> {
    let key = hub.add_listener(task_ids, callback).await;
    let closed = Rc::new(Cell::new(false));
    if let Some(signal) = &signal {
        let (hub, closed) = (hub.clone(), closed.clone());
        js::on_abort(
            signal,
            Box::new(move || {
                if !closed.replace(true) {
                    hub.remove_listener(key);
                }
            }),
        );
        if signal.aborted() {
            return Err(signal.reason());
        }
    }
    Ok(Subscription { hub, key, closed })
}
