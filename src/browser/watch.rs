//! `watchMyTasks(callback, options)`: every unfinished task of the caller on the client's
//! one shared listen stream (`hub.rs`), new ones included. The tasks this client's calls
//! start join at once (the hub adds them to every watcher); tasks started elsewhere
//! (another tab, another device) are found by listing "my tasks" again (`my_tasks.rs`)
//! at each reconnect of the stream and every `relistIntervalMs`. The callback gets each
//! task's current state, then each change up to the terminal one, then nothing more of
//! that task. Also the JS `MyTasksWatch`, and what `store.rs` builds on (`start`, `Hooks`):
//! with an `AbortSignal` the watch ends when it aborts, before its promise resolves too.

use super::client::Inner;
use super::hub::Hub;
use super::js::{self, JsResult, to_js_error};
use super::my_tasks::{self, Listed, Listing};
use js_sys::{Array, Function, Promise};
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

/// Told every task of a listing.
pub type ListedHook = Rc<dyn Fn(&[Map<String, Value>])>;
/// Told an error.
pub type ErrorHook = Rc<dyn Fn(&JsValue)>;

/// What a watch tells besides the task callback: the JS options (`onError`,
/// `onConnection`), or a store's own hooks.
#[derive(Clone, Default)]
pub struct Hooks {
    /// Every task of each listing, finished ones included (the store shows them).
    pub listed: Option<ListedHook>,
    /// The connection changed (`"live"`, `"reconnecting"`, `"polling"`, `"offline"`).
    pub connection: Option<Rc<dyn Fn(&'static str)>>,
    /// A listing after the first failed (default: `console.error`).
    pub error: Option<ErrorHook>,
}

/// What the handle, its relisting loop and the hub's hooks share.
struct Shared {
    closed: Cell<bool>,
    /// Resolves the promise the loop waits on, so `close()` ends it at once.
    stop: RefCell<Option<Function>>,
    hooks: Hooks,
    /// The last listing could not reach the server (a fetch that failed).
    offline: Cell<bool>,
    /// The connection last told to `hooks.connection`.
    told: Cell<&'static str>,
}

impl Shared {
    /// The watch's connection: the hub's, unless the server cannot be reached at all.
    fn connection(&self, hub: &'static str) -> &'static str {
        if self.offline.get() { "offline" } else { hub }
    }

    /// Tells `hooks.connection` when the connection changed.
    fn tell(&self, hub: &'static str) {
        let now = self.connection(hub);
        if self.told.replace(now) != now
            && !self.closed.get()
            && let Some(hook) = &self.hooks.connection
        {
            hook(now);
        }
    }
}

/// Ends a watch: no more callbacks, no more listings.
fn stop(hub: &Hub, key: u64, shared: &Shared) {
    if shared.closed.replace(true) {
        return;
    }
    hub.remove_listener(key);
    if let Some(stop) = shared.stop.borrow_mut().take()
        && stop.call0(&JsValue::UNDEFINED).is_err()
    { /* a resolver does not throw */ }
}

/// A running `watchMyTasks`: `mode`, `connection` and `close()` (docs/js-api.md).
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

    /// How the changes come now: `"live"`, `"reconnecting"`, `"polling"` or `"offline"`.
    #[wasm_bindgen(getter, unchecked_return_type = "Connection")]
    pub fn connection(&self) -> String {
        self.shared.connection(self.hub.connection()).to_owned()
    }

    /// Stops the callbacks and the listings (the shared stream drops these tasks when it
    /// next reopens, unless a call or a `listen()` still follows them).
    pub fn close(&self) {
        stop(&self.hub, self.key, &self.shared);
    }
}

/// Lists the caller's tasks (see `my_tasks.rs`).
async fn list(inner: &Inner, since: Option<String>) -> JsResult<Listed> {
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

/// Whether a failed request reached nothing (the client's -32603 with `reachable: false`).
fn unreachable(error: &JsValue) -> bool {
    js::get(&js::get(error, "data"), "reachable").as_bool() == Some(false)
}

/// A failed listing: to the hook, else to the console (never an unhandled rejection).
fn report(hooks: &Hooks, error: &JsValue) {
    match &hooks.error {
        Some(hook) => hook(error),
        None => web_sys::console::error_2(&"McpClient: listing my tasks failed".into(), error),
    }
}

/// Calls a JS callback of the options; a throw is logged.
fn js_hook(callback: Function, what: &'static str) -> ErrorHook {
    Rc::new(move |value: &JsValue| {
        if let Err(thrown) = callback.call1(&JsValue::UNDEFINED, value) {
            web_sys::console::error_2(
                &format!("McpClient: a watchMyTasks {what} threw").into(),
                &thrown,
            );
        }
    })
}

/// `watchMyTasks(callback, options)`.
pub async fn watch_my_tasks(
    hub: Rc<Hub>,
    callback: Function,
    options: JsValue,
) -> JsResult<MyTasksWatch> {
    let interval = my_tasks::relist_interval(js::get(&options, "relistIntervalMs").as_f64());
    let on_connection = js::get_function(&options, "onConnection").map(|f| {
        let hook = js_hook(f, "onConnection");
        Rc::new(move |c: &'static str| hook(&JsValue::from_str(c))) as Rc<dyn Fn(&'static str)>
    });
    let hooks = Hooks {
        listed: None,
        connection: on_connection,
        error: js::get_function(&options, "onError").map(|f| js_hook(f, "onError")),
    };
    start(hub, callback, interval, js::signal(&options), hooks).await
}

/// Starts a watch: the first listing, the stream, then the relisting loop. Rejects with
/// the first listing's error, or the signal's reason when it aborts before.
pub async fn start(
    hub: Rc<Hub>,
    callback: Function,
    interval: u64,
    signal: Option<web_sys::AbortSignal>,
    hooks: Hooks,
) -> JsResult<MyTasksWatch> {
    let key = hub.add_watcher(callback);
    let shared = Rc::new(Shared {
        closed: Cell::new(false),
        stop: RefCell::new(None),
        hooks,
        offline: Cell::new(false),
        told: Cell::new(hub.connection()),
    });
    let told = shared.clone();
    hub.on_connection(key, Rc::new(move |c| told.tell(c)));
    let aborted = || signal.as_ref().map_or(JsValue::UNDEFINED, |s| s.reason());
    if let Some(signal) = &signal {
        let (hub, shared) = (hub.clone(), shared.clone());
        js::on_abort(signal, Box::new(move || stop(&hub, key, &shared)));
    }
    let listed = match list(hub.inner(), None).await {
        Ok(listed) => listed,
        Err(_) if shared.closed.get() => return Err(aborted()),
        Err(error) => {
            stop(&hub, key, &shared);
            return Err(error);
        }
    };
    if shared.closed.get() {
        return Err(aborted());
    }
    if let Some(hook) = &shared.hooks.listed {
        hook(&listed.all);
    }
    hub.watch_listed(key, listed.unfinished, true).await;
    if shared.closed.get() {
        return Err(aborted());
    }
    let stopped = Promise::new(&mut |resolve, _| *shared.stop.borrow_mut() = Some(resolve));
    spawn_local(relist(
        hub.clone(),
        key,
        shared.clone(),
        stopped,
        interval,
        listed.newest,
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
        let listed = list(hub.inner(), since.clone()).await;
        if shared.closed.get() {
            return;
        }
        shared
            .offline
            .set(listed.as_ref().err().is_some_and(unreachable));
        shared.tell(hub.connection());
        match listed {
            Ok(listed) => {
                since = listed.newest;
                if let Some(hook) = &shared.hooks.listed {
                    hook(&listed.all);
                }
                hub.watch_listed(key, listed.unfinished, false).await;
            }
            Err(error) => report(&shared.hooks, &error),
        }
    }
}
