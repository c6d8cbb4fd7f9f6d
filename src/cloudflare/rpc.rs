//! Requests among the Worker and the Durable Objects (`tasks::calls`): each a `fetch` to
//! the object's stub (Rust Durable Objects cannot be called over JS RPC); an object's
//! request body and path as it reads them, and its reply as it sends it.

use super::http::{to_response, whole_body};
use crate::http::HttpResponse;
use crate::tasks::calls::{Call, CallError, Calls};
use crate::tasks::protocol::ObjectReply;
use wasm_bindgen::prelude::*;
use worker::wasm_bindgen_futures::JsFuture;
use worker::{Env, Response, web_sys};

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

/// POSTs `body` with `headers` to a Durable Object, then its reply as sent (status, body),
/// for `ObjectReply::outcome`: every object answers in the object protocol. The reply is
/// read whole by one `arrayBuffer()`, straight off the runtime's response.
async fn exchange(
    stub: worker::Stub,
    url: &str,
    headers: &[(&str, &str)],
    body: String,
) -> Result<(u16, Vec<u8>), String> {
    let posted = async {
        let sent = web_sys::Headers::new()?;
        for (name, value) in headers {
            sent.set(name, value)?;
        }
        let init = web_sys::RequestInit::new();
        init.set_method("POST");
        init.set_headers(&sent);
        init.set_body(&JsValue::from_str(&body));
        let stub: ObjectStub = stub.into_rpc();
        let answer = JsFuture::from(stub.fetch_with_init(url, &init)?).await?;
        let response: web_sys::Response = answer.unchecked_into();
        let buffer = JsFuture::from(response.array_buffer()?).await?;
        Ok::<_, JsValue>((response.status(), js_sys::Uint8Array::new(&buffer).to_vec()))
    };
    posted.await.map_err(|e| worker::Error::from(e).to_string())
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

/// A response's whole body in one `arrayBuffer()`: `worker::Response::bytes` reads a
/// streamed body (every subrequest's) chunk by chunk through a stream reader, several
/// wasm-boundary crossings and promises per chunk (and brings `wasm_streams`' stream
/// adapter into the Worker).
pub(crate) async fn response_bytes(response: &mut Response) -> worker::Result<Vec<u8>> {
    let stream = match response.body() {
        worker::ResponseBody::Stream(stream) => stream,
        worker::ResponseBody::Body(bytes) => return Ok(bytes.clone()),
        worker::ResponseBody::Empty => return Ok(Vec::new()),
    };
    let whole = web_sys::Response::new_with_opt_readable_stream(Some(stream))?;
    let buffer = worker::wasm_bindgen_futures::JsFuture::from(whole.array_buffer()?).await?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
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
