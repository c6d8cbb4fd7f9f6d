//! The Cloudflare adapter: the Worker's fetch entry and the task Durable Object. It
//! translates `worker` types to the core's plain HTTP values, performs the I/O an
//! [`Action`] asks for, and nothing else.
//!
//! A server author's crate owns the few lines the platform needs in the final wasm and
//! delegates to this module (see the README, "Build your own server"):
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

mod host;
mod listen;
mod progress;
mod session_object;
mod sse;
mod task_object;

pub use host::{WorkerHost, env};
pub use session_object::SessionRunner;
pub use task_object::TaskRunner;

use crate::http::{Headers, HttpRequest, HttpResponse};
use crate::server::{self, Action, Context, Server};
use crate::tasks::id;
use crate::tasks::protocol::{OBJECT_URL, ObjectRequest, PRINCIPAL_HEADER};
use crate::tools::Progress;
use std::cell::OnceCell;
use std::rc::Rc;
use worker::{Date, Env, Method, Request, RequestInit, Response};

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

/// The Worker's fetch handler: MCP at `/mcp`. `build` defines the server (it runs once
/// per isolate).
pub async fn fetch(mut req: Request, env: Env, build: fn() -> Server) -> worker::Result<Response> {
    let server = server(&env, build)?;
    let mut headers = Headers::new();
    for (name, value) in req.headers().entries() {
        headers.push(&name, &value);
    }
    let declared_too_large = headers
        .content_length()
        .is_some_and(|n| n > server.config.max_body_bytes);
    // A body declared too large is not read; the core answers 413 from the header.
    let body = if declared_too_large || req.method() != Method::Post {
        Vec::new()
    } else {
        req.bytes().await?
    };
    let request = HttpRequest {
        method: req.method().to_string(),
        path: req.path(),
        headers,
        body,
    };
    let ctx = Context {
        principal: server::principal(&request),
        now_ms: now_ms(),
    };
    if let Some(session) = server.legacy_session(&request) {
        return legacy(&env, request, session, &ctx.principal).await;
    }
    let mut action = server.handle(&request, &ctx);
    loop {
        action = match action {
            Action::Respond(response) => return to_response(response),
            Action::Run(run) if run.progress_token.is_some() => {
                return progress::stream(server, env, *run, ctx).await;
            }
            Action::Run(run) => {
                let host = WorkerHost::host(env.clone());
                server
                    .run(*run, &ctx, &host, &Progress::default(), None)
                    .await
            }
            Action::Read(read) => server.read(*read, &WorkerHost::host(env.clone())).await,
            Action::CreateTask {
                request_id,
                record,
                cors,
            } => {
                let response =
                    create_task(&server, &env, &ctx.principal, request_id, record, &cors).await;
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
            Action::Listen(listen) => return listen::stream(env, *listen, ctx.principal).await,
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
        server::LegacySession::Refused(response) => return to_response(response),
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

/// Draws the task id, has the task's object store the record, and answers with its reply.
async fn create_task(
    server: &Server,
    env: &Env,
    principal: &str,
    request_id: crate::jsonrpc::RequestId,
    mut record: Box<crate::tasks::record::TaskRecord>,
    cors: &server::Cors,
) -> HttpResponse {
    let reply = match new_task_id() {
        Ok(id) => {
            record.task_id = id;
            call_object(env, &ObjectRequest::Create { record }, principal).await
        }
        Err(e) => Err(e.to_string()),
    };
    match reply {
        Ok((status, body)) => server.object_response(&request_id, status, &body, cors),
        Err(why) => server.object_unreachable(&request_id, &why, cors),
    }
}

fn respond_object(
    server: &Server,
    request_id: &crate::jsonrpc::RequestId,
    reply: Result<(u16, Vec<u8>), String>,
    cors: &server::Cors,
) -> worker::Result<Response> {
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
    let namespace = env
        .durable_object(TASKS_BINDING)
        .map_err(|e| e.to_string())?;
    let stub = namespace
        .get_by_name(request.task_id())
        .map_err(|e| e.to_string())?;
    let headers = worker::Headers::new();
    headers
        .set(PRINCIPAL_HEADER, principal)
        .map_err(|e| e.to_string())?;
    headers
        .set("content-type", "application/json")
        .map_err(|e| e.to_string())?;
    let body = serde_json::to_string(request).map_err(|e| e.to_string())?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_headers(headers)
        .with_body(Some(body.into()));
    let object_request = Request::new_with_init(OBJECT_URL, &init).map_err(|e| e.to_string())?;
    let mut response = stub
        .fetch_with_request(object_request)
        .await
        .map_err(|e| e.to_string())?;
    let body = response.bytes().await.map_err(|e| e.to_string())?;
    Ok((response.status_code(), body))
}

fn to_headers(pairs: &[(&'static str, String)]) -> worker::Result<worker::Headers> {
    let headers = worker::Headers::new();
    for (name, value) in pairs {
        headers.append(name, value)?;
    }
    Ok(headers)
}

fn to_response(response: HttpResponse) -> worker::Result<Response> {
    let headers = to_headers(&response.headers)?;
    let built = if response.body.is_empty() {
        Response::empty()?
    } else {
        Response::from_bytes(response.body)?
    };
    Ok(built.with_status(response.status).with_headers(headers))
}
