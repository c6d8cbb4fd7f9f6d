//! One outbound exchange of a Worker or Durable Object ([`Platform::fetch`] and
//! [`Platform::open`] of [`super::host::WorkerHost`]): the runtime's `fetch` or a service
//! binding's, the answer's body read as it arrives, all within the request's deadline.
//!
//! [`Platform::fetch`]: crate::host::Platform::fetch
//! [`Platform::open`]: crate::host::Platform::open

use crate::host::{BoxFuture, Chunks, HostError, Inbound, Limits, Outbound, Streaming};
use wasm_bindgen::{JsCast, JsValue};
use worker::Fetcher;
use worker::wasm_bindgen_futures::JsFuture;
use worker::web_sys::{self, RequestRedirect};

/// One exchange (see [`Platform::fetch`]): sent with `redirect: manual`, the answer's
/// status, headers and body all within `limits.timeout_ms`, the body read chunk by chunk
/// and abandoned as soon as it passes `limits.max_bytes`.
pub(crate) async fn send(request: Outbound, limits: Limits) -> Result<Inbound, HostError> {
    open(None, request, limits).await?.into_inbound().await
}

/// [`Platform::open`] to the network (`service` `None`) or to the Worker behind a service
/// binding: sent with `redirect: manual`, answered once status and headers came within
/// `limits.timeout_ms`, and [`Streaming`] counts the bytes against `limits.max_bytes`. The
/// deadline is the runtime's own timer (`AbortSignal.timeout`), one per exchange: the fetch
/// and every read of the body fail with its `TimeoutError`. (The runtime's promises
/// directly: `worker`'s `Fetch` and `Fetcher::fetch_request` would each bring their own
/// future and response conversion.)
pub(super) async fn open(
    service: Option<Fetcher>,
    request: Outbound,
    limits: Limits,
) -> Result<Streaming, HostError> {
    let init = request_init(&request)?;
    // The request is aborted when the exchange is dropped (a cancelled call) before its
    // answer's headers came (later, its body's reader stops it): the connection is closed,
    // or the other Worker's request cancelled, at once, which a 2026-07-28 server takes as
    // the call's cancellation (basic/patterns/cancellation). Dropping the fetch's promise
    // alone would leave the request running.
    let controller = web_sys::AbortController::new().map_err(js)?;
    let timer = web_sys::AbortSignal::timeout_with_f64(limits.timeout_ms as f64);
    let signals = js_sys::Array::of2(&timer, &controller.signal());
    init.set_signal(Some(&web_sys::AbortSignal::any(&signals)));
    let mut abort = Aborter(Some(controller));
    let sent = match &service {
        None => {
            let global: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
            global.fetch_with_str_and_init(&request.url, &init)
        }
        Some(fetcher) => {
            let fetcher: &worker::worker_sys::Fetcher = fetcher.as_ref().unchecked_ref();
            fetcher
                .fetch_with_str_and_init(&request.url, &init)
                .map_err(js)?
        }
    };
    let sent = JsFuture::from(sent)
        .await
        .map_err(|e| settled(e, &request, limits.timeout_ms))?;
    let response: web_sys::Response = sent.unchecked_into();
    let reader = match response.body() {
        Some(stream) => Some(web_sys::ReadableStreamDefaultReader::new(&stream).map_err(js)?),
        None => None,
    };
    // From here, dropping `body` (an error below, or the caller's) stops the request: its
    // reader is cancelled (`Body::stop`).
    abort.0 = None;
    let body = Body {
        reader,
        failed: None,
        url: request.url.clone(),
        timeout_ms: limits.timeout_ms,
    };
    let headers = super::http::header_pairs(&response.headers());
    let answer = Streaming::new(response.status(), headers, request.url, Box::new(body));
    let declared = answer
        .header("content-length")
        .and_then(|v| v.trim().parse::<usize>().ok());
    if declared.is_some_and(|n| n > limits.max_bytes) {
        return Err(HostError::TooLarge {
            url: answer.url,
            limit: limits.max_bytes,
        });
    }
    Ok(answer.max_bytes(limits.max_bytes))
}

/// Aborts a request when dropped while it still holds it (see [`open`]).
struct Aborter(Option<web_sys::AbortController>);

impl Drop for Aborter {
    fn drop(&mut self) {
        if let Some(controller) = self.0.take() {
            controller.abort();
        }
    }
}

/// `request`'s method, headers and body, sent with `redirect: manual`.
fn request_init(request: &Outbound) -> Result<web_sys::RequestInit, HostError> {
    let headers = request
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()));
    let body = (!request.body.is_empty()).then_some(request.body.as_slice());
    let init = super::http::request_init(&request.method, headers, body).map_err(network)?;
    init.set_redirect(RequestRedirect::Manual);
    Ok(init)
}

/// A runtime promise's rejection: the deadline's `TimeoutError`, or the network's failure.
fn settled(e: JsValue, request: &Outbound, ms: u64) -> HostError {
    match timed_out(&e) {
        true => HostError::Timeout {
            url: request.url.clone(),
            ms,
        },
        false => js(e),
    }
}

/// Whether a rejection is the deadline's (`AbortSignal.timeout` rejects with a
/// `TimeoutError`).
fn timed_out(e: &JsValue) -> bool {
    js_sys::Reflect::get(e, &"name".into())
        .ok()
        .and_then(|name| name.as_string())
        .is_some_and(|name| name == "TimeoutError")
}

/// The body of an answer as it arrives (see [`open`]), chunk by chunk as the runtime
/// gives it (`worker`'s `ByteStream` would bring `wasm_streams` into the Worker), each
/// read within the request's deadline (the runtime's timer).
struct Body {
    /// `None`: no body, or the end was read, or the request was stopped.
    reader: Option<web_sys::ReadableStreamDefaultReader>,
    /// Why reading stopped (the deadline, or the stream's failure): every later read says so.
    failed: Option<HostError>,
    url: String,
    timeout_ms: u64,
}

impl Body {
    /// Stops the request: its body is cancelled (the connection closed, not drained; the
    /// other Worker's body cancelled), fire and forget.
    fn stop(&mut self) {
        if let Some(reader) = self.reader.take() {
            let _ = reader.cancel();
        }
    }

    /// Stops reading for good with `error`.
    fn fail(&mut self, error: HostError) -> HostError {
        self.stop();
        self.failed = Some(error.clone());
        error
    }

    fn timeout(&mut self) -> HostError {
        self.fail(HostError::Timeout {
            url: self.url.clone(),
            ms: self.timeout_ms,
        })
    }
}

impl Chunks for Body {
    fn next(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, HostError>> {
        Box::pin(async move {
            if let Some(failed) = &self.failed {
                return Err(failed.clone());
            }
            let Some(reader) = &self.reader else {
                return Ok(None);
            };
            // The runtime's timer bounds the read (see [`open`]).
            let read = match JsFuture::from(reader.read()).await {
                Ok(read) => read,
                Err(e) if timed_out(&e) => return Err(self.timeout()),
                // The stream failed: there is nothing left to stop (or to cancel).
                Err(e) => {
                    self.reader = None;
                    return Err(self.fail(js(e)));
                }
            };
            if js_sys::Reflect::get(&read, &"done".into())
                .map_err(js)?
                .is_truthy()
            {
                self.reader = None;
                return Ok(None);
            }
            let chunk: js_sys::Uint8Array = js_sys::Reflect::get(&read, &"value".into())
                .map_err(js)?
                .unchecked_into();
            Ok(Some(chunk.to_vec()))
        })
    }
}

impl Drop for Body {
    fn drop(&mut self) {
        self.stop();
    }
}

fn js(e: JsValue) -> HostError {
    network(worker::Error::from(e))
}

fn network(e: impl std::fmt::Display) -> HostError {
    HostError::Network(e.to_string())
}
