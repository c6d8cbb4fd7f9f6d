//! `client.myTasks(options)`: the `MyTasksStore`, every task of the caller as one merged,
//! observable view for UI frameworks. `subscribe(listener) => unsubscribe` and
//! `getSnapshot()` are functions of their own (not methods needing `this`), and the
//! snapshot keeps its identity until something changes: React's `useSyncExternalStore`
//! takes them as they are, a Svelte store is the object itself (`subscribe` calls the
//! listener at once with the current snapshot, as Svelte's contract asks), and Vue copies
//! each snapshot into a `shallowRef`.
//!
//! The store runs a watch (`watch.rs`) from its creation until `close()` or its signal:
//! subscribing and unsubscribing only add and remove listeners, so a framework that
//! subscribes twice (React's StrictMode) lists nothing twice. What the snapshot shows is
//! `board.rs`'s merge of the listings (finished tasks included) and the live states.

use super::board::{self, Board, Source};
use super::hub::Hub;
use super::js::{self, to_js};
use super::my_tasks;
use super::watch::{self, Hooks, MyTasksWatch};
use js_sys::{Function, Object, Reflect};
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

/// What the store's functions, its watch's hooks and the handle share.
struct State {
    board: RefCell<Board>,
    listeners: RefCell<Vec<(u64, Function)>>,
    next_listener: Cell<u64>,
    /// The current snapshot; `None` after a change until someone reads it.
    snapshot: RefCell<Option<JsValue>>,
    /// No listing has succeeded yet.
    loading: Cell<bool>,
    /// The last listing's error (`null` once one succeeds).
    error: RefCell<JsValue>,
    connection: Cell<&'static str>,
    closed: Cell<bool>,
    watch: RefCell<Option<MyTasksWatch>>,
}

impl State {
    /// The snapshot, built once per change (so its identity says whether it changed).
    fn snapshot(&self) -> JsValue {
        if let Some(snapshot) = &*self.snapshot.borrow() {
            return snapshot.clone();
        }
        let value = crate::jsonrpc::payload(&Snapshot {
            tasks: self.board.borrow().tasks(),
            connection: self.connection.get(),
            loading: self.loading.get(),
        });
        let snapshot = to_js(&value);
        let _ = Reflect::set(&snapshot, &"error".into(), &self.error.borrow());
        // Frozen: a page that mutated it would corrupt what every other reader sees.
        Object::freeze(js::get(&snapshot, "tasks").unchecked_ref::<Object>());
        Object::freeze(snapshot.unchecked_ref::<Object>());
        *self.snapshot.borrow_mut() = Some(snapshot.clone());
        snapshot
    }

    /// Something changed: a new snapshot for every listener.
    fn changed(&self) {
        if self.closed.get() {
            return;
        }
        *self.snapshot.borrow_mut() = None;
        let listeners: Vec<Function> = {
            let listeners = self.listeners.borrow();
            listeners.iter().map(|(_, f)| f.clone()).collect()
        };
        let snapshot = self.snapshot();
        for listener in listeners {
            if let Err(thrown) = listener.call1(&JsValue::UNDEFINED, &snapshot) {
                web_sys::console::error_2(&"McpClient: a myTasks listener threw".into(), &thrown);
            }
        }
    }

    /// Merges states into the board; whether the view changed.
    fn offer(&self, tasks: &[Map<String, Value>], source: Source) -> bool {
        let mut changed = false;
        for task in tasks {
            changed |= self.board.borrow_mut().offer(task, source);
        }
        changed
    }

    fn close(&self) {
        if self.closed.get() {
            return;
        }
        if let Some(watch) = self.watch.borrow_mut().take() {
            watch.close();
        }
        self.closed.set(true);
        self.listeners.borrow_mut().clear();
    }
}

/// A running `myTasks()` store (docs/js-api.md).
#[wasm_bindgen]
pub struct MyTasksStore {
    state: Rc<State>,
    subscribe: JsValue,
    get_snapshot: JsValue,
}

#[wasm_bindgen]
impl MyTasksStore {
    /// `subscribe(listener)`: the listener gets the current snapshot at once, then each
    /// new one; returns the function that unsubscribes it. A function of its own: pass it
    /// as it is (`useSyncExternalStore(store.subscribe, store.getSnapshot)`).
    #[wasm_bindgen(
        getter,
        unchecked_return_type = "(listener: (snapshot: MyTasksSnapshot) => void) => () => void"
    )]
    pub fn subscribe(&self) -> JsValue {
        self.subscribe.clone()
    }

    /// `getSnapshot()`: the current snapshot, the same object until something changes.
    #[wasm_bindgen(getter, js_name = getSnapshot, unchecked_return_type = "() => MyTasksSnapshot")]
    pub fn get_snapshot(&self) -> JsValue {
        self.get_snapshot.clone()
    }

    /// How the changes come now (also the snapshot's `connection`).
    #[wasm_bindgen(getter, unchecked_return_type = "Connection")]
    pub fn connection(&self) -> String {
        self.state.connection.get().to_owned()
    }

    /// Stops the watch; listeners get nothing more (the last snapshot stays readable).
    pub fn close(&self) {
        self.state.close();
    }
}

/// A JS function of one argument. Every function the store hands out has this one type:
/// each closure type brings its own glue into the wasm and the JS.
fn function(f: impl Fn(JsValue) -> JsValue + 'static) -> JsValue {
    Closure::<dyn Fn(JsValue) -> JsValue>::new(f).into_js_value()
}

/// `subscribe` as a function of its own.
fn subscribe_fn(state: &Rc<State>) -> JsValue {
    let state = state.clone();
    function(move |listener: JsValue| {
        let Ok(listener) = listener.dyn_into::<Function>() else {
            return JsValue::UNDEFINED; // not a function: nothing to call
        };
        let key = state.next_listener.get() + 1;
        state.next_listener.set(key);
        if !state.closed.get() {
            state.listeners.borrow_mut().push((key, listener.clone()));
        }
        if let Err(thrown) = listener.call1(&JsValue::UNDEFINED, &state.snapshot()) {
            web_sys::console::error_2(&"McpClient: a myTasks listener threw".into(), &thrown);
        }
        let state = state.clone();
        function(move |_| {
            state.listeners.borrow_mut().retain(|(k, _)| *k != key);
            JsValue::UNDEFINED
        })
    })
}

/// `client.myTasks(options)`: the store, its watch starting at once.
pub fn my_tasks(hub: Rc<Hub>, options: &JsValue) -> MyTasksStore {
    let state = Rc::new(State {
        board: RefCell::new(Board::new(board::limit(js::get(options, "limit").as_f64()))),
        listeners: RefCell::default(),
        next_listener: Cell::new(0),
        snapshot: RefCell::default(),
        loading: Cell::new(true),
        error: RefCell::new(JsValue::NULL),
        connection: Cell::new(hub.connection()),
        closed: Cell::new(false),
        watch: RefCell::default(),
    });
    let interval = my_tasks::relist_interval(js::get(options, "relistIntervalMs").as_f64());
    let signal = js::signal(options);
    if let Some(signal) = &signal {
        let state = state.clone();
        js::on_abort(signal, Box::new(move || state.close()));
    }
    spawn_local(run(hub, state.clone(), interval, signal));
    let get_snapshot = {
        let state = state.clone();
        function(move |_| state.snapshot())
    };
    MyTasksStore {
        subscribe: subscribe_fn(&state),
        get_snapshot,
        state,
    }
}

/// Starts the watch, again after `interval` while its first listing fails.
async fn run(hub: Rc<Hub>, state: Rc<State>, interval: u64, signal: Option<web_sys::AbortSignal>) {
    let live = {
        let state = state.clone();
        function(move |task: JsValue| {
            if let Ok(Value::Object(task)) = js::from_js(&task)
                && state.offer(&[task], Source::Live)
            {
                state.changed();
            }
            JsValue::UNDEFINED
        })
        .unchecked_into::<Function>()
    };
    let listed = state.clone();
    let connection = state.clone();
    let failed = state.clone();
    let hooks = Hooks {
        listed: Some(Rc::new(move |tasks: &[Map<String, Value>]| {
            let news = listed.loading.replace(false) || !listed.error.borrow().is_null();
            *listed.error.borrow_mut() = JsValue::NULL;
            if listed.offer(tasks, Source::Listed) || news {
                listed.changed();
            }
        })),
        connection: Some(Rc::new(move |now: &'static str| {
            if connection.connection.replace(now) != now {
                connection.changed();
            }
        })),
        error: Some(Rc::new(move |error: &JsValue| {
            *failed.error.borrow_mut() = error.clone();
            failed.changed();
        })),
    };
    loop {
        if state.closed.get() {
            return;
        }
        match watch::start(
            hub.clone(),
            live.clone(),
            interval,
            signal.clone(),
            hooks.clone(),
        )
        .await
        {
            Ok(watch) if state.closed.get() => return watch.close(),
            Ok(watch) => {
                // The watch tells changes from its start on; an "offline" of a failed
                // start before it is over now.
                if let Some(hook) = &hooks.connection {
                    hook(hub.connection());
                }
                *state.watch.borrow_mut() = Some(watch);
                return;
            }
            Err(error) => {
                if let Some(hook) = &hooks.error {
                    hook(&error);
                }
                let offline =
                    js::get(&js::get(&error, "data"), "reachable").as_bool() == Some(false);
                if let Some(hook) = &hooks.connection {
                    hook(if offline { "offline" } else { hub.connection() });
                }
            }
        }
        if js::wait(js::sleep(interval), None).await.is_err() { /* a timer does not reject */ }
    }
}

/// What a snapshot holds besides its `error` (set on the JS object).
#[derive(serde::Serialize)]
struct Snapshot {
    tasks: Vec<Value>,
    connection: &'static str,
    loading: bool,
}
