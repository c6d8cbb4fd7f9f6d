//! Requests among the Worker and the Durable Objects (`tasks::calls`): each a `fetch` to
//! the object's stub (Rust Durable Objects cannot be called over JS RPC); an object's
//! request body and path as it reads them, and its reply as it sends it.

use super::http::{header_lines, owned_header_lines, to_response, whole_body};
use crate::http::HttpResponse;
use crate::tasks::calls::{Call, CallError, Calls};
use crate::tasks::protocol::ObjectReply;
use wasm_bindgen::prelude::*;
use worker::wasm_bindgen_futures::JsFuture;
use worker::{Env, web_sys};

/// Every call among the Worker and the objects (`tasks::calls` decides them): a POST to
/// the named object of the class's binding.
impl Calls for Env {
    async fn call(&self, call: Call<'_>) -> Result<(u16, Vec<u8>), CallError> {
        let class = call.class;
        let namespace = self
            .durable_object(class.binding())
            .map_err(|_| CallError::Unbound(class))?;
        let stub = namespace
            .get_by_name(call.name)
            .map_err(|e| CallError::Failed(e.to_string()))?;
        let sent = exchange(stub, call.url, call.headers, call.body).await;
        sent.map_err(CallError::Failed)
    }
}

#[wasm_bindgen]
extern "C" {
    /// A Durable Object's stub, as the runtime gives it.
    #[wasm_bindgen(extends = js_sys::Object)]
    type ObjectStub;

    /// `stub.fetch(url, init)`: the runtime builds the request itself, so no `Request`
    /// object is built and passed across the wasm boundary first.
    #[wasm_bindgen(method, catch, js_name = fetch)]
    fn fetch_with_init(
        this: &ObjectStub,
        url: &str,
        init: &web_sys::RequestInit,
    ) -> Result<js_sys::Promise, JsValue>;
}

#[wasm_bindgen(module = "/src/cloudflare/wire.js")]
extern "C" {
    /// `stub.fetch(url, {method: "POST", headers, body})` and its reply's whole body,
    /// `[status, Uint8Array]` (wire.js).
    fn post(stub: &ObjectStub, url: &str, headers: &str, body: &[u8]) -> js_sys::Promise;

    /// `stub.fetch(url, {method, headers, body})`, its reply answered as it comes with
    /// `extra` headers added (wire.js).
    #[wasm_bindgen(js_name = relay)]
    fn relay_reply(
        stub: &ObjectStub,
        url: &str,
        method: &str,
        headers: &str,
        body: &[u8],
        extra: &str,
    ) -> js_sys::Promise;
}

/// Sends a request (`body` empty: none) on to a Durable Object and answers its reply as it
/// comes, its body streamed, with `extra` headers added to its own.
pub(crate) async fn relay(
    stub: worker::Stub,
    url: &str,
    method: &str,
    headers: &[(&'static str, String)],
    body: &[u8],
    extra: &[(&'static str, String)],
) -> worker::Result<web_sys::Response> {
    let stub: ObjectStub = stub.into_rpc();
    let headers = owned_header_lines(headers)?;
    let extra = owned_header_lines(extra)?;
    let reply = relay_reply(&stub, url, method, &headers, body, &extra);
    Ok(JsFuture::from(reply).await?.unchecked_into())
}

/// POSTs `body` with `headers` to a Durable Object, then its reply as sent (status, body),
/// for `ObjectReply::outcome`: every object answers in the object protocol. Sent and read
/// in wire.js: one crossing and one promise.
async fn exchange(
    stub: worker::Stub,
    url: &str,
    headers: &[(&str, &str)],
    body: String,
) -> Result<(u16, Vec<u8>), String> {
    let stub: ObjectStub = stub.into_rpc();
    let lines = header_lines(headers.iter().copied()).map_err(|e| e.to_string())?;
    let reply = JsFuture::from(post(&stub, url, &lines, body.as_bytes()))
        .await
        .map_err(|e| worker::Error::from(e).to_string())?;
    let reply: js_sys::Array = reply.unchecked_into();
    let status = reply.get(0).as_f64().unwrap_or_default() as u16;
    let body: js_sys::Uint8Array = reply.get(1).unchecked_into();
    Ok((status, body.to_vec()))
}

/// `stub.fetch(url, init)`: the object's answer, as the runtime gives it.
pub(crate) async fn fetch_object(
    stub: worker::Stub,
    url: &str,
    init: &web_sys::RequestInit,
) -> worker::Result<web_sys::Response> {
    let stub: ObjectStub = stub.into_rpc();
    let answer = JsFuture::from(stub.fetch_with_init(url, init)?).await?;
    Ok(answer.unchecked_into())
}

/// A response's whole body in one `arrayBuffer()`: `worker::Response::bytes` reads a
/// streamed body (every subrequest's) chunk by chunk through a stream reader, several
/// wasm-boundary crossings and promises per chunk (and brings `wasm_streams`' stream
/// adapter into the Worker).
pub(crate) async fn whole(response: &web_sys::Response) -> worker::Result<Vec<u8>> {
    let buffer = JsFuture::from(response.array_buffer()?).await?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// An object's request body, read whole (every object request is a small JSON body).
/// Not left on the request: an object's crash answers the object protocol, no JSON-RPC id.
pub(crate) async fn request_body(req: &web_sys::Request) -> Result<Vec<u8>, String> {
    match whole_body(req).await {
        Ok(body) => Ok(body.to_vec()),
        Err(e) => Err(e.to_string()),
    }
}

/// The path an object's request was sent to.
pub(crate) fn request_path(req: &web_sys::Request) -> String {
    crate::http::split_url(&req.url())
        .map(|(_, path)| path)
        .unwrap_or_default()
}

/// An object's reply as it sends it (`tasks::protocol`): every object (task, principal)
/// answers this way, a refusal as an `ErrorObject`. Built as the runtime's own response,
/// as the Worker's answers are (no `worker::Response` to convert).
pub(crate) fn object_reply(reply: &ObjectReply) -> worker::Result<web_sys::Response> {
    let (status, body) = reply.encode();
    to_response(HttpResponse {
        status,
        headers: Vec::new(),
        body,
    })
}
