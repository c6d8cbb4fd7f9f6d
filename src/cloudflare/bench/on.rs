//! The bench build's counters (see [`super`]).

use crate::jsonrpc::{Empty, payload};
use serde::Serialize;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::future::Future;
use std::rc::Rc;
use worker::{Storage, web_sys};

use super::Invocation;

/// The Worker, as the counts name it (the objects' names are the parent's).
const WORKER: &str = "Worker";

/// The route that answers the counts (GET).
pub(crate) const ROUTE: &str = "/__bench/counters";

#[derive(Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Counts {
    requests: u64,
    alarms: u64,
    websocket_messages: u64,
    /// Other WebSocket events an object handles (close, error): not billed as requests,
    /// but invocations (each one an execution log with Workers Logs).
    websocket_events: u64,
    rows_read: u64,
    rows_written: u64,
    awake_ms: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Ledger {
    /// Drawn at the first count: a new value means the counts started again.
    instance: String,
    classes: BTreeMap<&'static str, Counts>,
    /// Structured log lines printed (`super::super::log::print`), whoever printed them.
    log_lines: u64,
}

thread_local! {
    static LEDGER: RefCell<Option<Ledger>> = const { RefCell::new(None) };
}

fn with_ledger(change: impl FnOnce(&mut Ledger)) {
    LEDGER.with(|ledger| {
        let mut ledger = ledger.borrow_mut();
        change(ledger.get_or_insert_with(|| Ledger {
            instance: super::super::new_task_id().unwrap_or_default(),
            classes: BTreeMap::new(),
            log_lines: 0,
        }));
    });
}

fn add(class: &'static str, change: impl FnOnce(&mut Counts)) {
    with_ledger(|ledger| change(ledger.classes.entry(class).or_default()));
}

/// A structured log line was printed.
pub(crate) fn log_line() {
    with_ledger(|ledger| ledger.log_lines += 1);
}

pub(crate) fn rows_read(class: &'static str, rows: usize) {
    add(class, |c| c.rows_read += rows as u64);
}

pub(crate) fn rows_written(class: &'static str, rows: usize) {
    add(class, |c| c.rows_written += rows as u64);
}

/// Counts the rows `delete_all` is about to delete (a `list`, itself not counted).
pub(crate) async fn before_delete_all(class: &'static str, storage: &Storage) {
    match storage.list().await {
        Ok(map) => rows_written(class, map.size() as usize),
        Err(e) => worker::console_error!("bench counters: listing before delete_all: {e}"),
    }
}

/// The counts before any was made.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NoLedger {
    instance: (),
    classes: Empty,
    log_lines: u64,
}

/// The counts as JSON: `{instance, classes: {class: {requests, alarms, ...}}, logLines}`.
fn snapshot() -> Value {
    LEDGER.with(|ledger| match ledger.borrow().as_ref() {
        Some(ledger) => payload(ledger),
        None => payload(&NoLedger {
            instance: (),
            classes: Empty {},
            log_lines: 0,
        }),
    })
}

/// A request to the Worker: `GET /__bench/counters` is answered with the counts (and not
/// counted); any other is counted and left to the Worker.
pub(crate) fn worker_request(req: &web_sys::Request) -> Option<web_sys::Response> {
    let path = crate::uri::Uri::parse(&req.url()).map(|url| url.path().to_owned());
    if req.method() == "GET" && path.is_ok_and(|p| p == ROUTE) {
        let init = web_sys::ResponseInit::new();
        let headers = web_sys::Headers::new().ok()?;
        headers.set("content-type", "application/json").ok()?;
        init.set_headers(&headers);
        let body = snapshot().to_string();
        return web_sys::Response::new_with_opt_str_and_init(Some(&body), &init).ok();
    }
    add(WORKER, |c| c.requests += 1);
    None
}

/// One object instance's meter: counts its invocations and the time it is awake.
#[derive(Clone)]
pub(crate) struct Meter {
    class: &'static str,
    running: Rc<Cell<u32>>,
    since_ms: Rc<Cell<f64>>,
}

impl Meter {
    pub(crate) fn new(class: &'static str) -> Self {
        Meter {
            class,
            running: Rc::default(),
            since_ms: Rc::default(),
        }
    }

    /// `work`, one invocation of `kind`, counted and timed.
    pub(crate) fn run<F: Future>(
        &self,
        kind: Invocation,
        work: F,
    ) -> impl Future<Output = F::Output> + use<F> {
        add(self.class, |c| match kind {
            Invocation::Request => c.requests += 1,
            Invocation::Alarm => c.alarms += 1,
            Invocation::WebSocketMessage => c.websocket_messages += 1,
            Invocation::WebSocketEvent => c.websocket_events += 1,
        });
        if self.running.get() == 0 {
            self.since_ms.set(js_sys::Date::now());
        }
        self.running.set(self.running.get() + 1);
        let meter = self.clone();
        async move {
            let out = work.await;
            meter.running.set(meter.running.get() - 1);
            if meter.running.get() == 0 {
                let awake = js_sys::Date::now() - meter.since_ms.get();
                add(meter.class, |c| c.awake_ms += awake);
            }
            out
        }
    }
}
