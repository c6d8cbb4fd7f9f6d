//! Requests among the Worker and the Durable Objects: task objects (`tasks::protocol`),
//! ledgers, subscription registries. Rust Durable Objects cannot be called over JS RPC,
//! so every call is a `fetch` to the object's stub.

use super::TASKS_BINDING;
use super::http::{to_response, whole_body};
use crate::auth::anonymous::task_principal;
use crate::error::McpError;
use crate::http::HttpResponse;
use crate::tasks::protocol::{
    OBJECT_URL, ObjectError, ObjectReply, ObjectRequest, PRINCIPAL_HEADER, REQUEST_ID_HEADER,
};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use worker::wasm_bindgen_futures::JsFuture;
use worker::{Env, Response, web_sys};

/// Sends one request to the TaskObject named by its task id, naming the Worker's request
/// (`request_id`) for the object's log lines; returns the reply as sent (status, body):
/// see `tasks::protocol`.
pub(crate) async fn call_object_traced(
    env: &Env,
    request: &ObjectRequest,
    principal: &str,
    request_id: Option<&str>,
) -> Result<(u16, Vec<u8>), String> {
    let stub = env
        .durable_object(TASKS_BINDING)
        .and_then(|namespace| namespace.get_by_name(request.task_id()))
        .map_err(|e| e.to_string())?;
    let body = serde_json::to_string(request).map_err(|e| e.to_string())?;
    // An anonymous caller reaches each task as that task's own principal.
    let principal = task_principal(principal, request.task_id());
    let mut headers = vec![(PRINCIPAL_HEADER, principal.as_ref())];
    if let Some(request_id) = request_id {
        headers.push((REQUEST_ID_HEADER, request_id));
    }
    exchange(stub, OBJECT_URL, &headers, body).await
}

/// [`call_object_traced`]'s reply read (`tasks::protocol`): the result, or why not.
pub(crate) async fn object(
    env: &Env,
    request: &ObjectRequest,
    principal: &str,
    request_id: Option<&str>,
) -> Result<Value, ObjectError> {
    ObjectReply::outcome(call_object_traced(env, request, principal, request_id).await)
}

/// [`object`] as the core's platform traits take it: a refusal as an [`McpError`].
pub(crate) async fn task_object(
    env: &Env,
    request: &ObjectRequest,
    principal: &str,
) -> Result<Value, McpError> {
    object(env, request, principal, None)
        .await
        .map_err(McpError::from)
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

/// POSTs `body` with `headers` to a Durable Object (the objects' requests among
/// themselves: tasks, ledgers, subscription registries), then its reply as sent (status,
/// body), for `ObjectReply::outcome`: every object answers in the object protocol. The
/// reply is read whole by one `arrayBuffer()`, straight off the runtime's response.
pub(crate) async fn exchange(
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

/// An object's decoded request body (JSON); the error says why it is not one.
pub(crate) async fn request_json<T: serde::de::DeserializeOwned>(
    req: &web_sys::Request,
) -> Result<T, String> {
    let body = request_body(req).await?;
    crate::jsonrpc::read(&body).map_err(|e| e.to_string())
}

/// The path an object's request was sent to (the objects' URLs are this crate's own
/// constants, so the plain split always reads them).
pub(crate) fn request_path(req: &web_sys::Request) -> String {
    let url = req.url();
    match crate::http::origin_and_path(&url) {
        Some((_, path)) => path.to_owned(),
        None => crate::uri::Uri::parse(&url)
            .map(|u| u.path().to_owned())
            .unwrap_or_default(),
    }
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
