//! `watchMyTasks(callback, options)`: every unfinished task of the caller on the client's
//! one shared listen stream (`hub.rs`), new ones included. The tasks this client's calls
//! start join at once (the hub adds them to every watcher); tasks started elsewhere
//! (another tab, another device) are found by listing "my tasks" again (`my_tasks.rs`)
//! at each reconnect of the stream and every `relistIntervalMs`. The callback gets each
//! task's current state, then each change up to the terminal one, then nothing more of
//! that task. Also the JS `MyTasksWatch`.

use super::client::Inner;
use super::hub::Hub;
use super::js::{self, JsResult, to_js_error};
use super::my_tasks::{self, Listing};
use js_sys::{Array, Function, Promise};
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

/// What the handle and its relisting loop share.
struct Shared {
    closed: Cell<bool>,
    /// Resolves the promise the loop waits on, so `close()` ends it at once.
    stop: RefCell<Option<Function>>,
    /// `options.onError`: where a failed relisting goes.
    on_error: Option<Function>,
}

/// A running `watchMyTasks`: `mode` and `close()` (docs/js-api.md).
#[wasm_bindgen]
pub struct MyTasksWatch {
    hub: Rc<Hub>,
    key: u64,
    shared: Rc<Shared>,
}

#[wasm_bindgen]
impl MyTasksWatch {
    /// `"stream"` while the changes come over subscriptions/listen, `"polling"` after
    /// falling back to tasks/get.
    #[wasm_bindgen(getter, unchecked_return_type = "\"stream\" | \"polling\"")]
    pub fn mode(&self) -> String {
        self.hub.mode().to_owned()
    }

    /// Stops the callbacks and the listings (the shared stream drops these tasks when it
    /// next reopens, unless a call or a `listen()` still follows them).
    pub fn close(&self) {
        if self.shared.closed.replace(true) {
            return;
        }
        self.hub.remove_listener(self.key);
        if let Some(stop) = self.shared.stop.borrow_mut().take()
            && stop.call0(&JsValue::UNDEFINED).is_err()
        { /* a resolver does not throw */ }
    }
}

/// Lists the caller's unfinished tasks (see `my_tasks.rs`): the tasks, and the newest
/// `createdAt` seen (the next listing's `since`).
async fn list(
    inner: &Inner,
    since: Option<String>,
) -> JsResult<(Vec<Map<String, Value>>, Option<String>)> {
    let mut listing = Listing::new(since);
    let mut cursor: Option<String> = None;
    loop {
        let mut params = Map::new();
        if let Some(cursor) = cursor.take() {
            params.insert("cursor".into(), cursor.into());
        }
        let page = inner
            .rpc(crate::server::LIST_TASKS, params, None, None)
            .await?;
        match listing.page(&page).map_err(to_js_error)? {
            Some(next) => cursor = Some(next),
            None => return Ok(listing.finish()),
        }
    }
}

/// A failed listing: to `onError`, else to the console (never an unhandled rejection).
fn report(on_error: &Option<Function>, error: &JsValue) {
    let reported = on_error
        .as_ref()
        .map(|f| f.call1(&JsValue::UNDEFINED, error));
    match reported {
        Some(Ok(_)) => {}
        Some(Err(thrown)) => {
            web_sys::console::error_2(&"McpClient: a watchMyTasks onError threw".into(), &thrown)
        }
        None => web_sys::console::error_2(&"McpClient: listing my tasks failed".into(), error),
    }
}

pub async fn watch_my_tasks(
    hub: Rc<Hub>,
    callback: Function,
    options: JsValue,
) -> JsResult<MyTasksWatch> {
    let interval = my_tasks::relist_interval(js::get(&options, "relistIntervalMs").as_f64());
    let key = hub.add_watcher(callback);
    let (tasks, since) = match list(hub.inner(), None).await {
        Ok(listed) => listed,
        Err(error) => {
            hub.remove_listener(key);
            return Err(error);
        }
    };
    hub.watch_listed(key, tasks, true).await;
    let shared = Rc::new(Shared {
        closed: Cell::new(false),
        stop: RefCell::new(None),
        on_error: js::get_function(&options, "onError"),
    });
    let stopped = Promise::new(&mut |resolve, _| *shared.stop.borrow_mut() = Some(resolve));
    spawn_local(relist(
        hub.clone(),
        key,
        shared.clone(),
        stopped,
        interval,
        since,
    ));
    Ok(MyTasksWatch { hub, key, shared })
}

/// Lists again every `interval` ms and at each reconnect of the stream, until closed.
async fn relist(
    hub: Rc<Hub>,
    key: u64,
    shared: Rc<Shared>,
    stopped: Promise,
    interval: u64,
    mut since: Option<String>,
) {
    let mut reconnects = hub.reconnects();
    let mut reconnected = hub.reconnected();
    loop {
        let pause = Promise::race(&Array::of3(&js::sleep(interval), &reconnected, &stopped));
        if js::wait(pause, None).await.is_err() { /* timers and resolvers do not reject */ }
        if shared.closed.get() {
            return;
        }
        if hub.reconnects() != reconnects {
            reconnects = hub.reconnects();
            reconnected = hub.reconnected();
        }
        match list(hub.inner(), since.clone()).await {
            Ok(_) if shared.closed.get() => return,
            Ok((tasks, newest)) => {
                since = newest;
                hub.watch_listed(key, tasks, false).await;
            }
            Err(error) => report(&shared.on_error, &error),
        }
    }
}
