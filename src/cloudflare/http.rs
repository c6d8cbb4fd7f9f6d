//! Conversions between the runtime's HTTP values and the core's plain ones
//! ([`crate::http`]), each crossing the wasm boundary as few times as possible.

use crate::http::{Headers, HttpResponse};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use worker::wasm_bindgen_futures::JsFuture;
use worker::{Response, web_sys};

/// The property of the incoming `Request` that holds its body once read: `guard.js`
/// answers a request whose instance crashed with the JSON-RPC id found there (instead of
/// cloning every request's body up front).
const BODY_PROPERTY: &str = "mcpBody";

/// Reads the whole body in one piece (one `arrayBuffer()`).
pub(crate) async fn whole_body(req: &web_sys::Request) -> worker::Result<js_sys::Uint8Array> {
    let buffer = JsFuture::from(req.array_buffer()?).await?;
    Ok(js_sys::Uint8Array::new(&buffer))
}

/// Reads the whole body in one piece, leaving it on the request for `guard.js`.
pub(crate) async fn read_whole_body(req: &web_sys::Request) -> worker::Result<Vec<u8>> {
    let body = whole_body(req).await?;
    js_sys::Reflect::set(req, &BODY_PROPERTY.into(), &body)?;
    Ok(body.to_vec())
}

/// Reads a POST body as it streams in, stopping one byte past `limit`: a chunked upload
/// larger than `MAX_BODY_BYTES` is never held whole (the core answers 413 from the
/// length). The bytes read are left on the request for `guard.js` ([`BODY_PROPERTY`]).
pub(crate) async fn read_body(
    req: &web_sys::Request,
    declared: Option<usize>,
    limit: usize,
) -> worker::Result<Vec<u8>> {
    // A declared length was already checked against the limit: one read, no chunk loop
    // (each chunk crosses the wasm boundary; this is the hot path of every request).
    if declared.is_some() {
        return read_whole_body(req).await;
    }
    let stream = req
        .body()
        .ok_or_else(|| worker::Error::RustError("no body for request".into()))?;
    let body = read_up_to(&stream, limit).await?;
    let copy = js_sys::Uint8Array::from(body.as_slice());
    js_sys::Reflect::set(req, &BODY_PROPERTY.into(), &copy)?;
    Ok(body)
}

/// Reads `stream` chunk by chunk to its end, or until more than `limit` bytes came: then
/// the rest is cancelled and the first `limit + 1` bytes returned. (`worker`'s
/// `ByteStream` would bring `wasm_streams`' stream adapter and `futures`' combinators into
/// the Worker for this loop.)
pub(crate) async fn read_up_to(
    stream: &web_sys::ReadableStream,
    limit: usize,
) -> worker::Result<Vec<u8>> {
    let reader = web_sys::ReadableStreamDefaultReader::new(stream)?;
    let mut body = Vec::new();
    loop {
        let read = JsFuture::from(reader.read()).await?;
        if js_sys::Reflect::get(&read, &"done".into())?.is_truthy() {
            return Ok(body);
        }
        let chunk: js_sys::Uint8Array =
            js_sys::Reflect::get(&read, &"value".into())?.unchecked_into();
        let room = (limit + 1).saturating_sub(body.len());
        let take = (chunk.length() as usize).min(room);
        body.extend(chunk.subarray(0, take as u32).to_vec());
        if body.len() > limit {
            // The rest is not wanted: the sender may stop.
            if JsFuture::from(reader.cancel()).await.is_err() {
                // The stream failed meanwhile: nothing more is read either way.
            }
            return Ok(body);
        }
    }
}

/// The request's headers in one crossing of the wasm boundary (see [`header_pairs`]).
pub(crate) fn request_headers(req: &web_sys::Request) -> Headers {
    Headers::from_pairs(header_pairs(&req.headers()))
}

/// `headers` as (name, value) pairs, names lower-cased as the runtime gives them, read in
/// one crossing of the wasm boundary: `Array.from(headers)` joined into one string,
/// "name,value" per line (a header name never holds a comma, and a value never a line
/// break), instead of several crossings per header.
pub(crate) fn header_pairs(headers: &web_sys::Headers) -> Vec<(String, String)> {
    let joined = String::from(js_sys::Array::from(headers.as_ref()).join("\n"));
    crate::http::from_lines(&joined)
}

#[wasm_bindgen(module = "/src/cloudflare/wire.js")]
extern "C" {
    /// `new Response(stream ?? bytes, {status, headers})`, in one crossing (wire.js).
    #[wasm_bindgen(catch, js_name = response)]
    fn new_response(
        status: u16,
        headers: &str,
        bytes: &[u8],
        stream: Option<&web_sys::ReadableStream>,
    ) -> Result<web_sys::Response, JsValue>;

    /// `{method, headers, body}` for `fetch(url, init)` (wire.js).
    #[wasm_bindgen(js_name = init)]
    fn new_init(method: &str, headers: &str, body: &[u8]) -> web_sys::RequestInit;
}

/// `pairs` as wire.js takes them ([`crate::http::lines`]).
pub(crate) fn header_lines<'a>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> worker::Result<String> {
    crate::http::lines(pairs).map_err(worker::Error::RustError)
}

/// [`header_lines`] of the core's own header list (a response's, a request it forwards).
pub(crate) fn owned_header_lines(headers: &[(&'static str, String)]) -> worker::Result<String> {
    header_lines(headers.iter().map(|(name, value)| (*name, value.as_str())))
}

/// The core's response as the runtime's own, built in one crossing of the wasm boundary
/// (`worker::Response` would add a conversion with its own copy of the body).
pub(crate) fn to_response(response: HttpResponse) -> worker::Result<web_sys::Response> {
    let headers = owned_header_lines(&response.headers)?;
    Ok(new_response(
        response.status,
        &headers,
        &response.body,
        None,
    )?)
}

/// A response with `head`'s status and headers whose body is `body` (its own is ignored).
pub(crate) fn streamed(
    head: &HttpResponse,
    body: &web_sys::ReadableStream,
) -> worker::Result<web_sys::Response> {
    let headers = owned_header_lines(&head.headers)?;
    Ok(new_response(head.status, &headers, &[], Some(body))?)
}

/// The core's response as a `worker::Response`, for the Durable Objects' handlers.
pub(crate) fn to_worker_response(response: HttpResponse) -> worker::Result<Response> {
    to_response(response).map(Response::from)
}

/// The options of a request to send (a subrequest, or a call on an object) for the
/// runtime's `fetch(url, init)`, built in wire.js in one crossing: no `Request` object is
/// built to cross the wasm boundary, and `worker`'s own `RequestInit` converts its `cf`
/// options on every request, which brings their serializer (image resizing and all,
/// several KB) into every Worker.
pub(crate) fn request_init<'a>(
    method: &str,
    headers: impl IntoIterator<Item = (&'a str, &'a str)>,
    body: Option<&[u8]>,
) -> worker::Result<web_sys::RequestInit> {
    let headers = header_lines(headers)?;
    Ok(new_init(method, &headers, body.unwrap_or_default()))
}
