//! A caller that leaves before its answer. In 2026-07-28 a client's disconnect *is* the
//! cancellation of its request ("The server MUST treat a client disconnect as
//! cancellation of that request", basic/patterns/cancellation, "Transport-Specific
//! Cancellation"); in 2025-11-25 the client sends `notifications/cancelled` for it. A job
//! whose handle was not answered yet has nobody else to hold it, so leaving cancels it
//! (`server::wait::detach`); after the handle, the job goes on.
//!
//! A [`Leave`] is a promise that resolves when the caller leaves: the Worker's request's
//! `signal` (the `enable_request_signal` compatibility flag, wrangler.toml), or a
//! resolver the session object keeps by request id ([`Leaves`]). A runtime notices a
//! disconnect when it writes to the connection (workerd does not watch an idle one), so
//! the Worker answers a job's wait as a stream with a comment every second
//! (`HEARTBEAT`) when the client takes one (`Leave::streams`).

use crate::jsonrpc::RequestId;
use crate::legacy::in_flight::{Forget, InFlight};
use std::future::Future;
use worker::js_sys::{Function, Promise};
use worker::wasm_bindgen::JsValue;
use worker::wasm_bindgen_futures::JsFuture;
use worker::web_sys::AbortSignal;

/// How often a streamed wait writes to its client, so that a disconnect is noticed.
pub(crate) const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(1);

/// The caller leaving, and how work started when it does is kept alive.
pub(crate) struct Leave {
    left: Left,
    keep: Keep,
}

/// What says the caller left.
enum Left {
    Never,
    /// The Worker's request, whose `signal` is read only when a wait asks (most requests
    /// never wait on a job, and pay nothing for it).
    Signal(worker::web_sys::Request),
    /// Resolved by [`Leaves::cancel`].
    Promise(Promise),
}

enum Keep {
    /// Awaited where it is: a Durable Object lives on after its caller has gone.
    Here,
    /// The Worker's invocation ends with its client: `waitUntil` keeps the work going.
    WaitUntil(worker::Context),
}

impl Leave {
    /// A caller that cannot leave early (a job's handle tool, a request without a signal).
    pub(crate) fn never() -> Leave {
        Leave {
            left: Left::Never,
            keep: Keep::Here,
        }
    }

    /// The Worker's client: its request's `signal` aborts when it disconnects (noticed
    /// while the answer is being written: a wait is streamed to a client that takes a
    /// stream, with heartbeats, `server::perform::Stage`).
    pub(crate) fn on_abort(
        request: worker::web_sys::Request,
        ctx: Option<worker::Context>,
    ) -> Leave {
        Leave {
            left: Left::Signal(request),
            keep: ctx.map_or(Keep::Here, Keep::WaitUntil),
        }
    }

    /// Resolves when the caller leaves; never for a caller that cannot.
    pub(crate) async fn left(&self) {
        let left = match &self.left {
            Left::Never => return std::future::pending().await,
            Left::Signal(request) => aborted(&request.signal()),
            Left::Promise(left) => left.clone(),
        };
        if JsFuture::from(left).await.is_err() {
            // Never: nothing rejects it.
        }
    }

    /// Carries `work` to its end although the caller has left.
    pub(crate) async fn keep(&self, work: impl Future<Output = ()> + 'static) {
        match &self.keep {
            Keep::Here => work.await,
            Keep::WaitUntil(ctx) => ctx.wait_until(work),
        }
    }
}

/// A session's calls in flight that `notifications/cancelled` can reach
/// (`legacy::in_flight`): each resolves its call's leave.
#[derive(Default)]
pub(crate) struct Leaves(InFlight<Function>);

impl Leaves {
    /// The leave of call `id` (never, past the bound), forgotten when the call is answered.
    pub(crate) fn track(&self, id: &RequestId) -> Tracked {
        let mut resolver = None;
        let left = Promise::new(&mut |resolve, _| resolver = Some(resolve));
        match resolver.and_then(|resolve| self.0.track(id, resolve)) {
            None => Tracked::untracked(),
            Some(forget) => Tracked {
                leave: Leave {
                    left: Left::Promise(left),
                    keep: Keep::Here,
                },
                _forget: Some(forget),
            },
        }
    }

    /// The client cancelled call `id`: its leave resolves.
    pub(crate) fn cancel(&self, id: &RequestId) {
        if let Some(resolve) = self.0.cancel(id) {
            settle(&resolve);
        }
    }
}

/// A call's leave, whose call is forgotten when dropped (answered, or its future dropped).
/// Its fields are private: a future that uses the leave ([`Tracked::leave`]) holds the
/// whole of it, so the call is not forgotten while it runs (an `async move` block that
/// named the field would capture that field alone, and drop the rest at once).
pub(crate) struct Tracked {
    leave: Leave,
    _forget: Option<Forget<Function>>,
}

impl Tracked {
    pub(crate) fn leave(&self) -> &Leave {
        &self.leave
    }

    /// A call nobody can cancel by id (a job's handle tool: its job goes on).
    pub(crate) fn untracked() -> Tracked {
        Tracked {
            leave: Leave::never(),
            _forget: None,
        }
    }
}

/// A promise that resolves when `signal` aborts.
fn aborted(signal: &AbortSignal) -> Promise {
    Promise::new(&mut |resolve, _| {
        if signal.aborted() {
            settle(&resolve);
        } else {
            signal.set_onabort(Some(&resolve));
        }
    })
}

/// Resolves a leave's promise.
fn settle(resolve: &Function) {
    if resolve.call0(&JsValue::UNDEFINED).is_err() {
        // A promise's own resolver does not throw.
    }
}
