//! The Cloudflare adapter: the Worker's fetch entry and the task Durable Object. It
//! translates `worker` types to the core's plain HTTP values, performs the I/O an
//! [`Action`] asks for, and nothing else.
//!
//! A server author's crate owns the few lines the platform needs in the final wasm and
//! delegates to this module (see docs/authoring.md):
//!
//! ```text
//! #[event(fetch)]
//! async fn fetch(req: Request, env: Env, _ctx: Context) -> Result<Response> {
//!     mcp_tasks_edge::cloudflare::fetch(req, env, my_server).await
//! }
//!
//! #[durable_object]
//! pub struct TaskObject(mcp_tasks_edge::cloudflare::TaskRunner);
//!
//! impl DurableObject for TaskObject {
//!     fn new(state: State, env: Env) -> Self {
//!         TaskObject(TaskRunner::new(state, env, my_server))
//!     }
//!     async fn fetch(&self, req: Request) -> Result<Response> { self.0.fetch(req).await }
//!     async fn alarm(&self) -> Result<Response> { self.0.alarm().await }
//! }
//! ```

mod auth;
mod host;
mod listen;
pub(crate) mod my_tasks;
mod principal_object;
mod progress;
mod session_object;
mod sse;
mod task_object;

pub use host::{WorkerHost, env};
pub use principal_object::{PRINCIPALS_BINDING, PrincipalRunner};
pub use session_object::SessionRunner;
pub use task_object::TaskRunner;

use crate::auth::Outcome;
use crate::error::McpError;
use crate::http::{Headers, HttpRequest, HttpResponse};
use crate::quota::LedgerRequest;
use crate::server::{self, Action, Context, Server};
use crate::tasks::id;
use crate::tasks::protocol::{OBJECT_URL, ObjectRequest, PRINCIPAL_HEADER, RESULT_STATUS};
use crate::tools::Progress;
use principal_object::StreamSlot;
use std::cell::OnceCell;
use std::rc::Rc;
use worker::{Date, Env, Method, Request, RequestInit, Response, web_sys};

/// The Durable Object binding names (wrangler.toml).
pub const TASKS_BINDING: &str = "TASKS";
pub const SESSIONS_BINDING: &str = "SESSIONS";

thread_local! {
    /// One server per isolate: configuration is fixed for the isolate's life.
    static SERVER: OnceCell<Result<Rc<Server>, String>> = const { OnceCell::new() };
}

/// The isolate's server: the author's definition with the deployment's variables
/// applied, built on first use. A bad definition or variable is an error on every
/// request, saying what is wrong.
pub(crate) fn server(env: &Env, build: fn() -> Server) -> worker::Result<Rc<Server>> {
    SERVER.with(|cell| {
        let server = cell.get_or_init(|| {
            let definition = build();
            let config = definition
                .config
                .clone()
                .with_vars(|name| env.var(name).ok().map(|v| v.to_string()))
                .map_err(|e| format!("invalid configuration: {e}"))?;
            let server = definition.configure(config);
            match server.problems().as_slice() {
                [] => Ok(Rc::new(server)),
                problems => Err(format!(
                    "invalid server definition: {}",
                    problems.join("; ")
                )),
            }
        });
        server.clone().map_err(worker::Error::RustError)
    })
}

pub(crate) fn now_ms() -> u64 {
    Date::now().as_millis()
}

pub(crate) fn new_task_id() -> worker::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| worker::Error::RustError(format!("no randomness: {e}")))?;
    Ok(id::format(bytes))
}

/// The property of the incoming `Request` that holds its body once read: `entry.mjs`
/// answers a request whose instance crashed with the JSON-RPC id found there (instead of
/// cloning every request's body up front).
const BODY_PROPERTY: &str = "mcpBody";

/// Reads the whole body in one piece, leaving it on the request for `entry.mjs`.
pub(crate) async fn read_whole_body(req: &Request) -> worker::Result<Vec<u8>> {
    let buffer = worker::wasm_bindgen_futures::JsFuture::from(req.inner().array_buffer()?).await?;
    js_sys::Reflect::set(req.inner(), &BODY_PROPERTY.into(), &buffer)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Reads a POST body as it streams in, stopping one byte past `limit`: a chunked upload
/// larger than `MAX_BODY_BYTES` is never held whole (the core answers 413 from the
/// length). The bytes read are left on the request for `entry.mjs` ([`BODY_PROPERTY`]).
async fn read_body(
    req: &mut Request,
    declared: Option<usize>,
    limit: usize,
) -> worker::Result<Vec<u8>> {
    use futures_util::StreamExt;
    // A declared length was already checked against the limit: one read, no chunk loop
    // (each chunk crosses the wasm boundary; this is the hot path of every request).
    if declared.is_some() {
        return read_whole_body(req).await;
    }
    let mut body = Vec::new();
    let mut stream = req.stream()?;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        let room = (limit + 1).saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() > limit {
            break;
        }
    }
    let copy = js_sys::Uint8Array::from(body.as_slice());
    js_sys::Reflect::set(req.inner(), &BODY_PROPERTY.into(), &copy)?;
    Ok(body)
}

/// The Worker's fetch handler: MCP at `/mcp`, the Protected Resource Metadata at its
/// well-known paths. `build` defines the server (it runs once per isolate).
///
/// It answers a `web_sys::Response` (which `#[event(fetch)]` accepts as it is): built
/// straight from the core's bytes, without `worker::Response`'s extra copy of the body.
pub async fn fetch(
    mut req: Request,
    env: Env,
    build: fn() -> Server,
) -> worker::Result<web_sys::Response> {
    let server = server(&env, build)?;
    let url = worker::Url::parse(&req.inner().url())?;
    let mut request = HttpRequest {
        method: req.method().to_string(),
        path: url.path().to_owned(),
        headers: request_headers(&req),
        body: Vec::new(),
    };
    let origin = url.origin().ascii_serialization();
    if let Some(response) = server.well_known(&request, &origin) {
        return to_response(response);
    }
    // Credentials first: nothing of an unauthenticated request's body is read.
    let principal = match server.authenticate(&request) {
        Outcome::Principal(principal) => principal,
        Outcome::Refused(error) => return refuse(&server, &request, None, &error, &origin),
        Outcome::Jwt(token) => {
            let now = now_ms();
            let granted = match auth::verify(&server.config.auth, &token, now).await {
                Ok(()) => server.grant(&token, &origin, now),
                Err(error) => Err(error),
            };
            match granted {
                Ok(principal) => principal,
                Err(error) => return refuse(&server, &request, None, &error, &origin),
            }
        }
    };
    let declared = request.headers.content_length();
    let limit = server.config.max_body_bytes;
    // A body declared too large is not read; the core answers 413 from the header.
    if declared.is_none_or(|n| n <= limit) && request.method == "POST" {
        request.body = read_body(&mut req, declared, limit).await?;
    }
    let ctx = Context {
        principal,
        now_ms: now_ms(),
    };
    if let Some(session) = server.legacy_session(&request) {
        return legacy(&env, request, session, &ctx.principal)
            .await
            .map(Into::into);
    }
    let quotas = server.config.quotas;
    let mut action = server.handle(&request, &ctx);
    loop {
        action = match action {
            Action::Respond(response) => return to_response(response),
            Action::Run(run) if run.progress_token.is_some() => {
                return progress::stream(server, env, *run, ctx, origin)
                    .await
                    .map(Into::into);
            }
            Action::Run(run) => {
                let host = WorkerHost::host(env.clone());
                server
                    .run(*run, &ctx, &host, &Progress::default(), None)
                    .await
            }
            Action::Read(read) => server.read(*read, &WorkerHost::host(env.clone())).await,
            Action::ListTasks {
                request_id,
                cursor,
                cors,
            } => {
                let response = match my_tasks::page(&env, &ctx.principal, cursor.as_deref()).await {
                    Ok((tasks, next)) => {
                        let mut result =
                            serde_json::json!({ "resultType": "complete", "tasks": tasks });
                        if let Some(next) = next {
                            result["nextCursor"] = next.into();
                        }
                        server::result_response(&request_id, &result, &cors)
                    }
                    Err(e) => server.refuse(Some(&request_id), &e, &cors, &origin),
                };
                return to_response(response);
            }
            Action::CreateTask {
                request_id,
                record,
                cors,
            } => {
                let response = create_task(
                    &server,
                    &env,
                    &ctx.principal,
                    request_id,
                    record,
                    &cors,
                    &origin,
                )
                .await;
                return to_response(response);
            }
            Action::Forward {
                request_id,
                request,
                cors,
            } => {
                let reply = call_object(&env, &request, &ctx.principal).await;
                return respond_object(&server, &request_id, reply, &cors);
            }
            Action::Listen(listen) => {
                let slot = match quotas.listen_streams {
                    None => None,
                    Some(_) => {
                        let stream_id = new_task_id()?;
                        let refused = match StreamSlot::acquire(
                            env.clone(),
                            &ctx.principal,
                            stream_id,
                            quotas,
                        )
                        .await
                        {
                            Ok(Ok(slot)) => Ok(slot),
                            Ok(Err(exceeded)) => Err(exceeded.to_error()),
                            Err(why) => Err(McpError::Internal(format!(
                                "quota ledger unavailable: {why}"
                            ))),
                        };
                        match refused {
                            Ok(slot) => Some(slot),
                            Err(error) => {
                                let id = listen.request_id.clone();
                                let response =
                                    server.refuse(Some(&id), &error, &listen.cors, &origin);
                                return to_response(response);
                            }
                        }
                    }
                };
                return listen::stream(env, *listen, ctx.principal, slot)
                    .await
                    .map(Into::into);
            }
        };
    }
}

/// A 2025-11-25 request: to the session's object (a new one for `initialize`), with the
/// caller's principal; its answer (JSON or a stream) goes back as it comes.
async fn legacy(
    env: &Env,
    request: HttpRequest,
    session: server::LegacySession,
    principal: &str,
) -> worker::Result<Response> {
    let (session_id, cors) = match session {
        server::LegacySession::Refused(response) => return to_worker_response(response),
        server::LegacySession::New(cors) => (new_task_id()?, cors),
        server::LegacySession::Existing(id, cors) => (id, cors),
    };
    let headers = worker::Headers::new();
    for name in ["content-type", "accept", "last-event-id"] {
        if let Some(value) = request.headers.get(name) {
            headers.set(name, &value)?;
        }
    }
    headers.set(crate::legacy::SESSION_HEADER, &session_id)?;
    headers.set(PRINCIPAL_HEADER, principal)?;
    let mut init = RequestInit::new();
    init.with_method(Method::from(request.method.clone()))
        .with_headers(headers);
    if !request.body.is_empty() {
        init.with_body(Some(
            js_sys::Uint8Array::from(request.body.as_slice()).into(),
        ));
    }
    let stub = env
        .durable_object(SESSIONS_BINDING)?
        .get_by_name(&session_id)?;
    let response = stub
        .fetch_with_request(Request::new_with_init(OBJECT_URL, &init)?)
        .await?;
    // A subrequest's headers are immutable: copy them, adding CORS.
    let headers = worker::Headers::new();
    for (name, value) in response.headers().entries() {
        headers.append(&name, &value)?;
    }
    for (name, value) in cors.apply(HttpResponse::empty(200)).headers {
        headers.append(name, &value)?;
    }
    Ok(response.with_headers(headers))
}

/// Draws the task id, takes a place in the principal's task quota (429 naming the limit
/// when full), has the task's object store the record, and answers with its reply.
pub(crate) async fn create_task(
    server: &Server,
    env: &Env,
    principal: &str,
    request_id: crate::jsonrpc::RequestId,
    mut record: Box<crate::tasks::record::TaskRecord>,
    cors: &server::Cors,
    origin: &str,
) -> HttpResponse {
    record.task_id = match new_task_id() {
        Ok(id) => id,
        Err(e) => return server.object_unreachable(&request_id, &e.to_string(), cors),
    };
    match store_new_task(server, env, principal, record).await {
        Err(refused) => server.refuse(Some(&request_id), &refused, cors, origin),
        Ok(Ok((status, body))) => server.object_response(&request_id, status, &body, cors),
        Ok(Err(why)) => server.object_unreachable(&request_id, &why, cors),
    }
}

/// Enters a new task (its id drawn) in its principal's ledger and has the task's object
/// store it, for both eras: `Err` when a quota refuses it, else the object's reply
/// (status, body) or why the object could not be reached. A task that was not stored
/// gives its quota place back.
pub(crate) async fn store_new_task(
    server: &Server,
    env: &Env,
    principal: &str,
    record: Box<crate::tasks::record::TaskRecord>,
) -> Result<Result<(u16, Vec<u8>), String>, McpError> {
    let task_id = record.task_id.clone();
    let until_ms = record.expires_at_ms();
    let create = ObjectRequest::Create { record };
    if !server.config.quotas.counts_tasks() {
        // Nothing to refuse: the ledger only indexes the task (tasks/list), so both
        // objects are asked at once and creation waits for one round trip, not two.
        let (indexed, reply) = futures_util::future::join(
            acquire_task(server, env, principal, &task_id, until_ms),
            call_object(env, &create, principal),
        )
        .await;
        if let Err(error) = indexed {
            // The task exists and runs; only its listing is missing. Said, not hidden.
            worker::console_warn!("task {task_id} is not in its owner's index: {error:?}");
        }
        return Ok(reply);
    }
    // A quota decides whether the task may exist: the ledger answers first.
    acquire_task(server, env, principal, &task_id, until_ms).await?;
    let reply = call_object(env, &create, principal).await;
    if !matches!(reply, Ok((status, _)) if status == RESULT_STATUS) {
        release_task(server, env, principal, task_id).await;
    }
    Ok(reply)
}

/// Counts a new task against the principal's quotas (`QUOTA_TASKS_PER_MINUTE`,
/// `QUOTA_LIVE_TASKS`) and indexes it; the error says which limit is full.
async fn acquire_task(
    server: &Server,
    env: &Env,
    principal: &str,
    task_id: &str,
    until_ms: Option<u64>,
) -> Result<(), McpError> {
    let acquire = LedgerRequest::AcquireTask {
        task_id: task_id.to_owned(),
        until_ms,
        quotas: server.config.quotas,
    };
    match principal_object::ledger(env, principal, &acquire).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(exceeded)) => Err(exceeded.to_error()),
        Err(why) => Err(McpError::Internal(format!(
            "quota ledger unavailable: {why}"
        ))),
    }
}

/// Gives back the place of a task that was not created (best effort: the ledger entry
/// expires with the task's TTL anyway).
async fn release_task(server: &Server, env: &Env, principal: &str, task_id: String) {
    if server.config.quotas.counts_tasks() {
        let release = LedgerRequest::ReleaseTask { task_id };
        // Best effort by design: the entry's deadline is the fallback.
        let _ = principal_object::ledger(env, principal, &release).await;
    }
}

fn refuse(
    server: &Server,
    request: &HttpRequest,
    id: Option<&crate::jsonrpc::RequestId>,
    error: &McpError,
    origin: &str,
) -> worker::Result<web_sys::Response> {
    let cors = server.cors_for(request);
    to_response(server.refuse(id, error, &cors, origin))
}

/// Tells a task's owner's ledger that the task ended (best effort: the entry's deadline,
/// the task's expiry, is the fallback).
pub(crate) async fn task_ended(env: &Env, owner: &str, task_id: &str) {
    let release = LedgerRequest::ReleaseTask {
        task_id: task_id.to_owned(),
    };
    if let Err(why) = principal_object::ledger(env, owner, &release).await {
        worker::console_warn!("could not release task {task_id} from its quota: {why}");
    }
}

fn respond_object(
    server: &Server,
    request_id: &crate::jsonrpc::RequestId,
    reply: Result<(u16, Vec<u8>), String>,
    cors: &server::Cors,
) -> worker::Result<web_sys::Response> {
    let response = match reply {
        Ok((status, body)) => server.object_response(request_id, status, &body, cors),
        Err(why) => server.object_unreachable(request_id, &why, cors),
    };
    to_response(response)
}

/// Sends one request to the TaskObject named by its task id; returns the reply as sent
/// (status, body): see `tasks::protocol`.
pub(crate) async fn call_object(
    env: &Env,
    request: &ObjectRequest,
    principal: &str,
) -> Result<(u16, Vec<u8>), String> {
    let stub = env
        .durable_object(TASKS_BINDING)
        .and_then(|namespace| namespace.get_by_name(request.task_id()))
        .map_err(|e| e.to_string())?;
    let body = serde_json::to_string(request).map_err(|e| e.to_string())?;
    let headers = [
        (PRINCIPAL_HEADER, principal),
        ("content-type", "application/json"),
    ];
    let mut response = post_to_object(&stub, OBJECT_URL, &headers, body).await?;
    let body = response_bytes(&mut response)
        .await
        .map_err(|e| e.to_string())?;
    Ok((response.status_code(), body))
}

/// POSTs `body` with `headers` to a Durable Object (the objects' requests among
/// themselves: tasks, ledgers, subscription registries).
pub(crate) async fn post_to_object(
    stub: &worker::Stub,
    url: &str,
    headers: &[(&str, &str)],
    body: String,
) -> Result<Response, String> {
    let sent = worker::Headers::new();
    for (name, value) in headers {
        sent.set(name, value).map_err(|e| e.to_string())?;
    }
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_headers(sent)
        .with_body(Some(body.into()));
    let request = Request::new_with_init(url, &init).map_err(|e| e.to_string())?;
    stub.fetch_with_request(request)
        .await
        .map_err(|e| e.to_string())
}

/// An object's decoded request body (JSON); the error says why it is not one.
pub(crate) async fn request_json<T: serde::de::DeserializeOwned>(
    req: &mut Request,
) -> Result<T, String> {
    let body = req.bytes().await.map_err(|e| e.to_string())?;
    serde_json::from_slice(&body).map_err(|e| e.to_string())
}

/// A response's whole body in one `arrayBuffer()`: `worker::Response::bytes` reads a
/// streamed body (every subrequest's) chunk by chunk through a stream reader, several
/// wasm-boundary crossings and promises per chunk.
pub(crate) async fn response_bytes(response: &mut Response) -> worker::Result<Vec<u8>> {
    let worker::ResponseBody::Stream(stream) = response.body() else {
        return response.bytes().await;
    };
    let whole = web_sys::Response::new_with_opt_readable_stream(Some(stream))?;
    let buffer = worker::wasm_bindgen_futures::JsFuture::from(whole.array_buffer()?).await?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The request's headers in one crossing of the wasm boundary: `Array.from(headers)`
/// joined into one string, "name,value" per line (a header name never holds a comma,
/// and a value never a line break), instead of several crossings per header.
fn request_headers(req: &Request) -> Headers {
    let pairs = js_sys::Array::from(req.inner().headers().as_ref());
    let joined = String::from(pairs.join("\n"));
    let mut headers = Headers::new();
    for line in joined.split('\n') {
        if let Some((name, value)) = line.split_once(',') {
            headers.push(name, value);
        }
    }
    headers
}

fn to_headers(pairs: &[(&'static str, String)]) -> worker::Result<worker::Headers> {
    let headers = worker::Headers::new();
    for (name, value) in pairs {
        headers.append(name, value)?;
    }
    Ok(headers)
}

/// The core's response as the runtime's own, built directly (`worker::Response` would
/// add a conversion with its own copy of the body).
fn to_response(response: HttpResponse) -> worker::Result<web_sys::Response> {
    let headers = web_sys::Headers::new()?;
    for (name, value) in &response.headers {
        headers.append(name, value)?;
    }
    let init = web_sys::ResponseInit::new();
    init.set_status(response.status);
    init.set_headers(&headers);
    let built = if response.body.is_empty() {
        web_sys::Response::new_with_opt_str_and_init(None, &init)
    } else {
        let body = js_sys::Uint8Array::from(response.body.as_slice());
        web_sys::Response::new_with_opt_buffer_source_and_init(Some(&body), &init)
    };
    Ok(built?)
}

/// The core's response as a `worker::Response`, for the Durable Objects' handlers.
fn to_worker_response(response: HttpResponse) -> worker::Result<Response> {
    let headers = to_headers(&response.headers)?;
    let built = if response.body.is_empty() {
        Response::empty()?
    } else {
        Response::from_bytes(response.body)?
    };
    Ok(built.with_status(response.status).with_headers(headers))
}
