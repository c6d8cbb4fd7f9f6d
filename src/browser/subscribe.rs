//! `listen(taskIds, callback)`: `notifications/tasks` for some tasks, over the client's
//! one shared `subscriptions/listen` stream (`hub.rs`), or by polling `tasks/get` when
//! no stream can be opened.
//!
//! The callback sees each task state once, whichever way it arrived: states are compared
//! without their transport fields (`sse::bare_task`).

use super::hub::Hub;
use super::js::JsResult;
use js_sys::Function;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A running subscription: `mode` and `close()` (docs/js-api.md).
#[wasm_bindgen]
pub struct Subscription {
    hub: Rc<Hub>,
    key: u64,
    closed: Cell<bool>,
}

#[wasm_bindgen]
impl Subscription {
    /// `"stream"` while notifications come over subscriptions/listen, `"polling"` after
    /// falling back to tasks/get.
    #[wasm_bindgen(getter, unchecked_return_type = "\"stream\" | \"polling\"")]
    pub fn mode(&self) -> String {
        self.hub.mode().to_owned()
    }

    /// Stops the notifications (the shared stream drops these tasks when it next reopens).
    pub fn close(&self) {
        if !self.closed.replace(true) {
            self.hub.remove_listener(self.key);
        }
    }
}

pub async fn listen(
    hub: Rc<Hub>,
    task_ids: Vec<String>,
    callback: Function,
) -> JsResult<Subscription> {
    let key = hub.add_listener(task_ids, callback).await;
    Ok(Subscription {
        hub,
        key,
        closed: Cell::new(false),
    })
}
