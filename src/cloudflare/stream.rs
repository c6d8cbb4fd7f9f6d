//! Streamed response bodies, written by a task of their own into the writable side of a
//! `TransformStream` whose readable side is the body. `worker::Response::from_stream`
//! would wrap the body in `futures` stream adapters and `wasm_streams`' underlying source
//! (about 20 KB of the Worker); this is one loop.
//!
//! One task polls the source from start to end: the platform's timers keep the waker of
//! their first poll, so a future must always be polled by the same task.

use super::http::streamed;
use crate::http::HttpResponse;
use futures_util::future::{Either, select};
use std::future::Future;
use std::pin::Pin;
use worker::wasm_bindgen_futures::{JsFuture, spawn_local};
use worker::{Response, web_sys};

/// The next bytes of a body, or `None` at its end.
pub(crate) type Next<'a> = Pin<Box<dyn Future<Output = Option<Vec<u8>>> + 'a>>;

/// What a streamed body is made of. Called through `dyn`, so the loop that writes the
/// body is in the Worker once, whatever the sources.
pub(crate) trait Source {
    /// The next bytes of the body; `None` ends it. The source is dropped when the body
    /// ends or the client goes away: what it holds is released by its `Drop`.
    fn next(&mut self) -> Next<'_>;
}

/// A response with `head`'s status and headers whose body is what `source` yields.
pub(crate) fn response(head: &HttpResponse, source: Box<dyn Source>) -> worker::Result<Response> {
    let pipe = web_sys::TransformStream::new()?;
    let writer = pipe.writable().get_writer()?;
    let response = streamed(head, &pipe.readable())?;
    spawn_local(pump(writer, source));
    Ok(response.into())
}

/// Writes the source's chunks, one at a time: a write completes once the client takes
/// the chunk, so a slow client slows the source down. A client that goes away errors the
/// stream: the pending write fails, or, while the source waits, `closed` does; either
/// ends the task and drops the source.
async fn pump(writer: web_sys::WritableStreamDefaultWriter, mut source: Box<dyn Source>) {
    let mut gone = JsFuture::from(writer.closed());
    loop {
        let next = match select(source.next(), &mut gone).await {
            Either::Left((next, _)) => next,
            Either::Right(_) => return,
        };
        let Some(chunk) = next else {
            // Released before the client reads the end, as soon as the source is done.
            drop(source);
            if JsFuture::from(writer.close()).await.is_err() {
                // The client went away before the end: nothing is left to send.
            }
            return;
        };
        let chunk = js_sys::Uint8Array::from(chunk.as_slice());
        if JsFuture::from(writer.write_with_chunk(&chunk))
            .await
            .is_err()
        {
            return;
        }
    }
}
