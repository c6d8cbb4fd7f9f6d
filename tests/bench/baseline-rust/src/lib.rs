//! `make bench` baselines, written with workers-rs's own API as an author would:
//! - a GET gets an empty 200 (the no-op Worker);
//! - a POST to `/` is an MCP request's exchange with nothing of the protocol: its body read
//!   whole, and an answer of `x-answer-bytes` bytes of JSON (the bench sends the size of
//!   the project's own answer);
//! - a POST to `/object` is the same through a Durable Object, as `tasks/get` reaches a
//!   task's: the body passed on to the object named "existing", which reads one stored key
//!   and answers the bytes asked for, passed back whole.
use worker::{
    Context, DurableObject, Env, Headers, Method, Request, RequestInit, Response, Result, State,
    durable_object, event,
};

const ANSWER_BYTES: &str = "x-answer-bytes";

#[event(fetch)]
async fn fetch(mut req: Request, env: Env, _ctx: Context) -> Result<Response> {
    if req.method() != Method::Post {
        return Response::empty();
    }
    let body = req.bytes().await?;
    let size = req.headers().get(ANSWER_BYTES)?;
    if req.path() != "/object" {
        return answer(size.as_deref(), body.len());
    }
    let headers = Headers::new();
    if let Some(size) = &size {
        headers.set(ANSWER_BYTES, size)?;
    }
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_headers(headers)
        .with_body(Some(worker::js_sys::Uint8Array::from(body.as_slice()).into()));
    let stub = env.durable_object("BARE")?.get_by_name("existing")?;
    let mut reply = stub
        .fetch_with_request(Request::new_with_init("https://object/", &init)?)
        .await?;
    json(reply.bytes().await?)
}

/// `{"a":"…"}`: valid JSON of `x-answer-bytes` bytes (`otherwise` without the header).
fn answer(size: Option<&str>, otherwise: usize) -> Result<Response> {
    let size = size
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(otherwise)
        .max(8);
    let mut bytes = Vec::with_capacity(size);
    bytes.extend_from_slice(b"{\"a\":\"");
    bytes.resize(size - 2, b'x');
    bytes.extend_from_slice(b"\"}");
    json(bytes)
}

/// `bytes` answered as JSON.
fn json(bytes: Vec<u8>) -> Result<Response> {
    let mut response = Response::from_bytes(bytes)?;
    response.headers_mut().set("content-type", "application/json")?;
    Ok(response)
}

/// One object with one stored key, read on every request (a bare Durable Object read).
#[durable_object]
pub struct Bare {
    state: State,
}

impl DurableObject for Bare {
    fn new(state: State, _env: Env) -> Self {
        Bare { state }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let _body = req.bytes().await?;
        let storage = self.state.storage();
        if storage.get::<f64>("k").await?.is_none() {
            storage.put("k", 1.0).await?;
        }
        answer(req.headers().get(ANSWER_BYTES)?.as_deref(), 0)
    }
}
