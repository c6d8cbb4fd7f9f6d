//! The bench build's counters (see [`super`]).

use crate::ops::counters::{Counts, Invocation, Ledger, WORKER, Wasm, snapshot};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use worker::{Storage, web_sys};

#[wasm_bindgen(module = "/src/cloudflare/bench/boundary.js")]
extern "C" {
    /// [calls into the instance, calls out of it] since it started.
    #[wasm_bindgen(js_name = boundaryCalls)]
    fn boundary_calls() -> js_sys::Array;
}

/// The boundary's and the allocator's counts so far.
fn wasm() -> Wasm {
    let calls = boundary_calls();
    let count = |at: u32| calls.get(at).as_f64().unwrap_or_default() as u64;
    let (allocations, allocated_bytes) = super::alloc::allocations();
    Wasm {
        calls_in: count(0),
        calls_out: count(1),
        allocations,
        allocated_bytes,
    }
}

/// The route that answers the counts (GET).
const ROUTE: &str = "/__bench/counters";

thread_local! {
    static LEDGER: RefCell<Option<Ledger>> = const { RefCell::new(None) };
}

fn with_ledger(change: impl FnOnce(&mut Ledger)) {
    LEDGER.with(|ledger| {
        let mut ledger = ledger.borrow_mut();
        change(
            ledger.get_or_insert_with(|| {
                Ledger::new(super::super::new_task_id().unwrap_or_default())
            }),
        );
    });
}

fn add(class: &'static str, change: impl FnOnce(&mut Counts)) {
    with_ledger(|ledger| change(ledger.class(class)));
}

/// A structured log line was printed.
pub(crate) fn log_line() {
    with_ledger(Ledger::log_line);
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

/// A request to the Worker: `GET /__bench/counters` is answered with the counts (and not
/// counted); any other is counted and left to the Worker.
pub(crate) fn worker_request(req: &web_sys::Request) -> Option<web_sys::Response> {
    let path = crate::http::split_url(&req.url()).map(|(_, path)| path);
    if req.method() == "GET" && path.is_ok_and(|p| p == ROUTE) {
        let init = web_sys::ResponseInit::new();
        let headers = web_sys::Headers::new().ok()?;
        headers.set("content-type", "application/json").ok()?;
        init.set_headers(&headers);
        let wasm = wasm();
        let body = LEDGER
            .with(|ledger| snapshot(ledger.borrow().as_ref(), wasm))
            .to_string();
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
        with_ledger(|ledger| ledger.invoked(self.class, kind));
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
