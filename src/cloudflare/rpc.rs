//! Requests among the Worker and the Durable Objects: task objects (`tasks::protocol`),
//! ledgers, subscription registries. Rust Durable Objects cannot be called over JS RPC,
//! so every call is a `fetch` to the object's stub.

use super::TASKS_BINDING;
use super::http::outgoing;
use crate::auth::anonymous::task_principal;
use crate::tasks::protocol::{
    OBJECT_URL, ObjectError, ObjectReply, ObjectRequest, PRINCIPAL_HEADER, REQUEST_ID_HEADER,
};
use serde_json::Value;
use worker::web_sys::RequestRedirect;
use worker::{Env, Request, Response, web_sys};

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
    let mut headers = vec![
        (PRINCIPAL_HEADER, principal.as_ref()),
        ("content-type", "application/json"),
    ];
    if let Some(request_id) = request_id {
        headers.push((REQUEST_ID_HEADER, request_id));
    }
    exchange(&stub, OBJECT_URL, &headers, body).await
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

/// [`post_to_object`], then its reply as sent (status, body), for
/// `ObjectReply::outcome`: every object answers in the object protocol.
pub(crate) async fn exchange(
    stub: &worker::Stub,
    url: &str,
    headers: &[(&str, &str)],
    body: String,
) -> Result<(u16, Vec<u8>), String> {
    let mut response = post_to_object(stub, url, headers, body).await?;
    let body = response_bytes(&mut response)
        .await
        .map_err(|e| e.to_string())?;
    Ok((response.status_code(), body))
}

/// POSTs `body` with `headers` to a Durable Object (the objects' requests among
/// themselves: tasks, ledgers, subscription registries).
async fn post_to_object(
    stub: &worker::Stub,
    url: &str,
    headers: &[(&str, &str)],
    body: String,
) -> Result<Response, String> {
    let sent = worker::Headers::new();
    for (name, value) in headers {
        sent.set(name, value).map_err(|e| e.to_string())?;
    }
    let request = outgoing(
        url,
        "POST",
        &sent,
        Some(body.as_bytes()),
        RequestRedirect::Follow,
    )
    .map_err(|e| e.to_string())?;
    stub.fetch_with_request(request)
        .await
        .map_err(|e| e.to_string())
}

/// An object's decoded request body (JSON); the error says why it is not one.
pub(crate) async fn request_json<T: serde::de::DeserializeOwned>(
    req: &mut Request,
) -> Result<T, String> {
    let body = req.bytes().await.map_err(|e| e.to_string())?;
    crate::jsonrpc::read(&body).map_err(|e| e.to_string())
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
/// answers this way, a refusal as an `ErrorObject`.
pub(crate) fn object_reply(reply: &ObjectReply) -> worker::Result<Response> {
    let (status, body) = reply.encode();
    Ok(Response::from_bytes(body)?.with_status(status))
}
