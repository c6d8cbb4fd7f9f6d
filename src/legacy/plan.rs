//! What the session object does with one HTTP request, decided here (pure) so the object
//! only loads the session, performs the decision's I/O and stores.
//!
//! Every request names a session and carries the caller's principal. A session that does
//! not exist, has ended, or belongs to another principal gets the same answer, 404 (the
//! 2025-11-25 transport's "session not found"), so a session id reveals nothing and grants
//! nothing: no other principal can re-initialize, read, replay, answer for or end it.
//!
//! ```text
//! DELETE                    → End                 (the owner's: 204, storage deleted)
//! GET [Last-Event-ID]       → OpenStream          (the owner's notifications, or a replay;
//!                                                  406 if its Accept refuses text/event-stream)
//! POST {"id":…,"result":…}  → Deliver             (an answer to one of our requests)
//! POST notifications/cancelled → Cancel      (a call of this session in flight; 202)
//! POST notification         → Accepted (202)
//! POST initialize           → Initialize          (only on a fresh id the Worker drew)
//! POST ping / setLevel / subscribe / tools/list / tasks/* / tools/call … → see [`Decision`]
//! ```

use super::results::{legacy_tools, needs_task};
use super::session::{Session, initialize};
use super::subscribers::TOOLS_LISTED;
use super::tasks::{task_params, task_record};
use crate::error::{McpError, legacy_status};
use crate::jsonrpc::{self, ErrorObject, Message, Request, RequestId};
use crate::mcp::params::{self, CursorParams, SetLevelParams, TaskIdParams, UriParams};
use crate::server::{Context, Server};
use crate::tasks::id;
use crate::tasks::record::TaskRecord;
use serde_json::{Map, Value};

/// Resources one session may subscribe to at once.
pub const MAX_SUBSCRIPTIONS: usize = 100;

/// The HTTP request as the session object sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Incoming<'a> {
    pub method: &'a str,
    /// The session the Worker routed to (drawn by the Worker for `initialize`).
    pub session_id: &'a str,
    /// The caller as the Worker authenticated it.
    pub principal: &'a str,
    pub last_event_id: Option<&'a str>,
    /// The request's `Accept` header, if it has one.
    pub accept: Option<&'a str>,
    pub body: &'a [u8],
}

impl Incoming<'_> {
    /// Whether the client takes a `text/event-stream` answer (RFC 9110 `Accept`, as
    /// [`crate::http::accepts`] reads it; none: yes).
    pub fn accepts_event_stream(&self) -> bool {
        let mut headers = crate::http::Headers::new();
        if let Some(accept) = self.accept {
            headers.push("accept", accept);
        }
        crate::http::accepts(&headers, crate::http::EVENT_STREAM)
    }
}

/// What to do, and what to answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// 404: no such session for this caller.
    NotFound,
    /// Answer with this status and JSON body at once.
    Reply { status: u16, body: Vec<u8> },
    /// 202: a notification, or an answer nothing waits for any more.
    Accepted,
    /// 202: `notifications/cancelled` for the owner's call `request_id`: if it is still in
    /// flight on this object, it is cancelled (a job it started and whose handle was not
    /// answered yet is cancelled too: `server::jobs::abandoned`).
    Cancel { request_id: RequestId },
    /// A new session: take its place in the opener's ledger (`QUOTA_SESSIONS`), store it,
    /// set its idle alarm, answer `result` with the `Mcp-Session-Id` header.
    Initialize {
        id: RequestId,
        session: Box<Session>,
        result: Value,
    },
    /// DELETE: close its streams, unsubscribe, release its ledger place, delete it.
    End(Box<Session>),
    /// GET: a notification stream, or the replay of a response stream after
    /// `Last-Event-ID`.
    OpenStream { last_event_id: Option<String> },
    /// The client's answer to the server→client request `request_id`.
    Deliver {
        request_id: String,
        answer: Result<Value, ErrorObject>,
    },
    /// Store the changed session, answer `{}`.
    Store {
        id: RequestId,
        session: Box<Session>,
    },
    /// `resources/subscribe` (`subscribed`) or `unsubscribe`: tell the URI's registry,
    /// then store the session and answer `{}`.
    Subscribe {
        id: RequestId,
        session: Box<Session>,
        uri: String,
        subscribed: bool,
    },
    /// A legacy `tasks/*` request on the task objects.
    Task { id: RequestId, op: TaskOp },
    /// A task-augmented `tools/call`: create the task, answer `CreateTaskResult`.
    CreateTask {
        id: RequestId,
        record: Box<TaskRecord>,
    },
    /// Everything else: the modern handlers, with the session's capabilities.
    Modern(Request),
}

/// The legacy task operations.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskOp {
    Get(String),
    Cancel(String),
    /// Block until the task ends, asking the client for its input on the way.
    Result(String),
    List(Option<String>),
}

/// An answer inside the session: its HTTP status is the one rule of the era
/// ([`legacy_status`], as `legacy::object::answer`'s), so a JSON-RPC error goes with 200.
fn reply(id: Option<&RequestId>, outcome: Result<Value, McpError>) -> Decision {
    match outcome {
        Ok(result) => Decision::Reply {
            status: 200,
            body: jsonrpc::result_response(id.expect("results answer a request"), &result),
        },
        Err(e) => Decision::Reply {
            status: legacy_status(e.http_status()),
            body: jsonrpc::error_response(id, &e.to_wire()),
        },
    }
}

/// A refusal of the transport itself (a body that is not JSON-RPC, a method or an Accept
/// the session does not take): the status is the error's own ([`McpError::http_status`]).
fn refused(e: &McpError, id: Option<&RequestId>) -> Decision {
    Decision::Reply {
        status: e.http_status(),
        body: jsonrpc::error_response(id, &e.to_wire()),
    }
}

/// Decides what `incoming` means for `stored` (the session the object holds, if any).
pub fn plan(
    server: &Server,
    stored: Option<Session>,
    incoming: Incoming<'_>,
    now_ms: u64,
) -> Decision {
    let exists = stored.is_some();
    let owned = stored.filter(|s| s.belongs_to(incoming.principal));
    match incoming.method {
        "DELETE" => return owned.map_or(Decision::NotFound, |s| Decision::End(Box::new(s))),
        "GET" => {
            return match owned {
                None => Decision::NotFound,
                // A GET is answered with a stream or not at all (2025-11-25 transports
                // "Listening for Messages from the Server"): a client whose Accept refuses
                // it gets a 406 saying what to accept, never a body it did not ask for.
                Some(_) if !incoming.accepts_event_stream() => refused(
                    &McpError::NotAcceptable(
                        "a GET (the session's notification stream, or the replay of a response stream after Last-Event-ID)".into(),
                    ),
                    None,
                ),
                Some(_) => Decision::OpenStream {
                    last_event_id: incoming.last_event_id.map(str::to_owned),
                },
            };
        }
        "POST" => {}
        other => return refused(&McpError::MethodNotAllowed(other.to_owned()), None),
    }
    let value: Value = match serde_json::from_slice(incoming.body) {
        Ok(value) => value,
        Err(e) => return refused(&McpError::Parse(format!("Parse error: {e}")), None),
    };
    if value.get("method").is_none() && value.get("id").is_some() {
        return match owned {
            None => Decision::NotFound,
            Some(_) => deliver(&value),
        };
    }
    let message = match jsonrpc::parse_message(incoming.body) {
        Ok(message) => message,
        Err(e) => return refused(&McpError::Wire(e.error), e.id.as_ref()),
    };
    let rpc = match (message, &owned) {
        (Message::Notification(n), Some(_)) => return notified(&n),
        (Message::Notification(_), None) => return Decision::NotFound,
        (Message::Request(rpc), _) => rpc,
    };
    // Only a legacy `initialize` (the Worker routes those to an id it just drew, never to
    // the client's): one carrying modern `_meta` reached here by the client's session id,
    // and is just another request, so it can neither choose a session's id nor tell
    // whether one exists.
    if rpc.method == "initialize" && super::route::is_initialize(incoming.body) {
        // Never over an existing session: its owner is told, anyone else gets 404.
        if exists {
            if owned.is_none() {
                return Decision::NotFound;
            }
            let e = McpError::InvalidRequest("This session is already initialized".into());
            return reply(Some(&rpc.id), Err(e));
        }
        return match initialize(
            server,
            &rpc.params,
            incoming.session_id,
            incoming.principal,
            now_ms,
        ) {
            Ok((result, session)) => Decision::Initialize {
                id: rpc.id,
                session: Box::new(session),
                result,
            },
            Err(e) => reply(Some(&rpc.id), Err(e)),
        };
    }
    match owned {
        None => Decision::NotFound,
        Some(session) => request(server, session, rpc, now_ms),
    }
}

/// A notification in an existing session: only `notifications/cancelled` asks anything of
/// the server (basic/utilities/cancellation); one without a usable `requestId` is
/// ignored, as one for an unknown request is.
fn notified(notification: &jsonrpc::Notification) -> Decision {
    if notification.method != "notifications/cancelled" {
        return Decision::Accepted;
    }
    match notification
        .params
        .get("requestId")
        .and_then(jsonrpc::request_id)
    {
        Some(request_id) => Decision::Cancel { request_id },
        None => Decision::Accepted,
    }
}

/// A request in an existing session.
fn request(server: &Server, mut session: Session, rpc: Request, now_ms: u64) -> Decision {
    let id = rpc.id.clone();
    let answer = |outcome| reply(Some(&id), outcome);
    match rpc.method.as_str() {
        "ping" => answer(Ok(Value::Object(Map::new()))),
        "logging/setLevel" => match params::parse::<SetLevelParams>(&rpc.params) {
            Ok(p) => {
                session.log_level = Some(p.level);
                Decision::Store {
                    id,
                    session: Box::new(session),
                }
            }
            Err(e) => answer(Err(e)),
        },
        "resources/subscribe" | "resources/unsubscribe" => {
            let subscribed = rpc.method == "resources/subscribe";
            match subscription(server, &mut session, &rpc.params, subscribed) {
                Ok(uri) => Decision::Subscribe {
                    id,
                    session: Box::new(session),
                    uri,
                    subscribed,
                },
                Err(e) => answer(Err(e)),
            }
        }
        "tools/list" => answer(Ok(legacy_tools(server, &session.meta()))),
        // 2026-07-28 methods, not part of this era.
        "server/discover" | "subscriptions/listen" | "tasks/update" => {
            answer(Err(McpError::MethodNotFound(rpc.method.clone())))
        }
        "tasks/get" | "tasks/cancel" | "tasks/result" | "tasks/list" => {
            match task_op(&rpc.method, &rpc.params) {
                Ok(op) => Decision::Task { id, op },
                Err(e) => answer(Err(e)),
            }
        }
        "tools/call" => match task_params(&rpc.params) {
            Err(e) => answer(Err(e)),
            Ok(Some(ttl)) => {
                let ctx = Context {
                    principal: session.principal.clone(),
                    now_ms,
                };
                match task_record(server, &rpc.params, &session.meta(), &ctx, ttl) {
                    Ok(record) => Decision::CreateTask {
                        id,
                        record: Box::new(record),
                    },
                    Err(e) => answer(Err(e)),
                }
            }
            Ok(None) => match needs_task(server, &rpc.params) {
                Some(e) => answer(Err(e)),
                None => Decision::Modern(rpc),
            },
        },
        _ => Decision::Modern(rpc),
    }
}

/// `resources/subscribe`: only to a resource the server has (or one of its templates
/// matches), at most [`MAX_SUBSCRIPTIONS`] per session; `unsubscribe` of anything is fine.
fn subscription(
    server: &Server,
    session: &mut Session,
    params: &Map<String, Value>,
    subscribed: bool,
) -> Result<String, McpError> {
    let uri = params::parse::<UriParams>(params)?.uri;
    // (Reserved for a gateway's sessions; no other build ever announces it.)
    if cfg!(feature = "gateway") && uri == TOOLS_LISTED {
        return Err(McpError::InvalidParams(format!(
            "{uri:?} is not a resource's URI"
        )));
    }
    if !subscribed {
        session.subscriptions.remove(&uri);
        return Ok(uri);
    }
    server.catalog.resolve(&uri)?;
    if !session.subscriptions.contains(&uri) && session.subscriptions.len() >= MAX_SUBSCRIPTIONS {
        return Err(McpError::InvalidParams(format!(
            "A session may subscribe to at most {MAX_SUBSCRIPTIONS} resources; unsubscribe from one first"
        )));
    }
    session.subscriptions.insert(uri.clone());
    Ok(uri)
}

fn task_op(method: &str, params: &Map<String, Value>) -> Result<TaskOp, McpError> {
    if method == "tasks/list" {
        return Ok(TaskOp::List(params::parse::<CursorParams>(params)?.cursor));
    }
    let task_id = params::parse::<TaskIdParams>(params)?.task_id;
    if !id::is_valid(&task_id) {
        return Err(McpError::TaskNotFound);
    }
    Ok(match method {
        "tasks/get" => TaskOp::Get(task_id),
        "tasks/cancel" => TaskOp::Cancel(task_id),
        _ => TaskOp::Result(task_id),
    })
}

/// A client's answer to a server→client request (a JSON-RPC response).
fn deliver(message: &Value) -> Decision {
    let request_id = match &message["id"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let answer = match message.get("error") {
        Some(error) => Err(
            crate::jsonrpc::from_value(error.clone()).unwrap_or(ErrorObject {
                code: jsonrpc::ErrorCode::INTERNAL_ERROR,
                message: format!("the client answered with a malformed error: {error}"),
                data: None,
            }),
        ),
        None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
    };
    Decision::Deliver { request_id, answer }
}

/// What the session's alarm does at `now_ms`: `None` when the session has been idle for
/// `idle_ms` (end it), else when to look again.
pub fn alarm(session: &Session, now_ms: u64, idle_ms: u64) -> Option<u64> {
    let expires = session.expires_at_ms(idle_ms);
    (now_ms < expires).then_some(expires)
}
