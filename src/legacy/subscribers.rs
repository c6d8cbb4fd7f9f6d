//! Who subscribed to one resource (2025-11-25 `resources/subscribe`): the subscription
//! registry object's protocol ([`RegistryRequest`], answered as any object answers,
//! `tasks::protocol::ObjectReply`) and its runner ([`run`]), generic over the storage and
//! sinks of [`RegistryPlatform`]. The object (`cloudflare::registry_object`) only
//! carries I/O. Per `add` or `remove`: load the set, decide ([`change`]), write once; a set
//! is bounded by [`MAX_SUBSCRIBERS`], and the object's storage is deleted when its last
//! subscriber leaves, so a URI nobody listens to costs nothing. Per `announce`: tell each
//! subscribed session, which sends `notifications/resources/updated` on its GET streams,
//! [`TELL_AT_ONCE`] sessions at a time.
//!
//! A gateway's sessions are subscribed, at `initialize`, to one more name, [`TOOLS_LISTED`]
//! (no resource's: it is not a URI): the watcher of an upstream announces it when the
//! upstream's tool list changed (`objects::upstream`), and each session then sends
//! `notifications/tools/list_changed` instead.

use crate::concurrent::join_all;
use crate::error::McpError;
use crate::pairs::SortedSet;
use crate::tasks::calls::{self, Call, Calls, Class};
use crate::tasks::protocol::{OBJECT_URL, ObjectError, ObjectReply};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The name a gateway's sessions are subscribed to for `notifications/tools/list_changed`:
/// not a URI (a URI begins with its scheme's letter), so no resource is ever named so, and
/// `resources/subscribe` refuses it.
pub const TOOLS_LISTED: &str = ":tools/list_changed";

/// Sessions that may subscribe to one resource at once (each id is 32 hex digits: the
/// stored set stays far below a storage value's limit).
pub const MAX_SUBSCRIBERS: usize = 10_000;

/// Sessions told of an update at once: one at a time, the last of a full set
/// ([`MAX_SUBSCRIBERS`]) would hear of it as many object round trips after the first; all
/// at once would hold thousands of requests open in one invocation. (Cloudflare may hold
/// some of these until others are answered: its limit of simultaneous outgoing connections
/// queues requests past it, it does not fail them.)
pub const TELL_AT_ONCE: usize = 32;

/// The internal header naming a registry operation (the Worker never forwards it).
pub const REGISTRY_HEADER: &str = "x-mcp-tasks-registry";

/// What the registry object writes.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// Nothing changed.
    Nothing,
    /// Store this set.
    Store(SortedSet<String>),
    /// Nobody is subscribed any more: delete the object's storage.
    Delete,
}

/// The write that subscribing `session` to `uri` (`subscribed`), or unsubscribing it, makes
/// to `subscribers`; a full set refuses a new session with an error naming the URI.
pub fn change(
    mut subscribers: SortedSet<String>,
    uri: &str,
    session: &str,
    subscribed: bool,
) -> Result<Write, McpError> {
    if subscribed {
        if subscribers.contains(session) {
            return Ok(Write::Nothing);
        }
        if subscribers.len() >= MAX_SUBSCRIBERS {
            return Err(McpError::InvalidParams(format!(
                "At most {MAX_SUBSCRIBERS} sessions may subscribe to {uri} at once; try again later"
            )));
        }
        subscribers.insert(session.to_owned());
        return Ok(Write::Store(subscribers));
    }
    let removed = subscribers.remove(session);
    Ok(if subscribers.is_empty() {
        Write::Delete
    } else if removed {
        Write::Store(subscribers)
    } else {
        Write::Nothing
    })
}

/// A request to a resource's registry object (`add`, `remove`, `announce`), or from it to
/// a subscribed session's object (`updated`).
#[derive(Debug, Clone, PartialEq)]
pub enum RegistryRequest {
    Add {
        uri: String,
        session: String,
    },
    Remove {
        uri: String,
        session: String,
    },
    /// `uri` changed: tell every session subscribed to it.
    Announce {
        uri: String,
    },
    /// (To a session.) `uri` changed.
    Updated {
        uri: String,
    },
}

/// A request on the wire: the operation in a header, this as the body.
#[derive(Serialize, Deserialize)]
struct Body {
    uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    session: Option<String>,
}

impl RegistryRequest {
    /// The operation's name, sent in the object request's header.
    pub fn op(&self) -> &'static str {
        match self {
            RegistryRequest::Add { .. } => "add",
            RegistryRequest::Remove { .. } => "remove",
            RegistryRequest::Announce { .. } => "announce",
            RegistryRequest::Updated { .. } => "updated",
        }
    }

    /// The resource the request is about.
    pub fn uri(&self) -> &str {
        match self {
            RegistryRequest::Add { uri, .. }
            | RegistryRequest::Remove { uri, .. }
            | RegistryRequest::Announce { uri }
            | RegistryRequest::Updated { uri } => uri,
        }
    }

    /// The body sent with [`RegistryRequest::op`].
    pub fn body(&self) -> String {
        let (uri, session) = match self {
            RegistryRequest::Add { uri, session } | RegistryRequest::Remove { uri, session } => {
                (uri, Some(session.clone()))
            }
            RegistryRequest::Announce { uri } | RegistryRequest::Updated { uri } => (uri, None),
        };
        let body = Body {
            uri: uri.clone(),
            session,
        };
        serde_json::to_string(&body).expect("a struct of strings serializes")
    }

    /// The request `op` and `body` make, or why they make none.
    pub fn decode(op: &str, body: &[u8]) -> Result<RegistryRequest, McpError> {
        let Body { uri, session } = crate::jsonrpc::read(body)
            .map_err(|e| McpError::InvalidRequest(format!("bad registry message: {e}")))?;
        Ok(match (op, session) {
            ("add", Some(session)) => RegistryRequest::Add { uri, session },
            ("remove", Some(session)) => RegistryRequest::Remove { uri, session },
            ("announce", None) => RegistryRequest::Announce { uri },
            ("updated", None) => RegistryRequest::Updated { uri },
            (op, session) => {
                return Err(McpError::InvalidRequest(format!(
                    "unknown registry operation {op:?} (with a session: {})",
                    session.is_some()
                )));
            }
        })
    }
}

/// What a registry object (or a session told of an update) needs of its platform.
// Futures here are never sent between threads (wasm and the tests' executor are single
// threaded), so the `Send` bound `async fn` in a public trait cannot state is not needed.
#[allow(async_fn_in_trait)]
pub trait RegistryPlatform {
    /// The subscribed sessions stored (empty when none).
    async fn subscribers(&mut self) -> Result<SortedSet<String>, String>;
    /// Performs `write` ([`Write::Store`] or [`Write::Delete`]; never [`Write::Nothing`]).
    async fn write(&mut self, write: Write) -> Result<(), String>;
    /// Sends [`RegistryRequest::Updated`] to the session object `session` (several run at
    /// once: [`TELL_AT_ONCE`]).
    async fn tell(&self, session: &str, uri: &str) -> Result<(), String>;
    /// (A session.) Sends `notifications/resources/updated` for `uri` on the session's
    /// open streams, if it is subscribed to it.
    async fn updated(&mut self, uri: &str) -> Result<(), String>;
    /// A session that could not be told (it may have ended): for the log.
    fn untold(&mut self, session: &str, uri: &str, why: &str);
}

/// One [`RegistryRequest`]: a full set refuses an `add` ([`change`]'s error); a storage
/// failure is an internal error. A session that cannot be told of an update is logged
/// and skipped: the others are still told, [`TELL_AT_ONCE`] at a time.
pub async fn run<P: RegistryPlatform>(p: &mut P, request: RegistryRequest) -> Result<(), McpError> {
    let storage = |why: String| McpError::Internal(format!("subscription registry: {why}"));
    let (uri, session, subscribed) = match request {
        RegistryRequest::Add { uri, session } => (uri, session, true),
        RegistryRequest::Remove { uri, session } => (uri, session, false),
        RegistryRequest::Announce { uri } => {
            let subscribers = p.subscribers().await.map_err(storage)?;
            for batch in subscribers.as_slice().chunks(TELL_AT_ONCE) {
                let told = join_all(batch.iter().map(|session| p.tell(session, &uri))).await;
                for (session, told) in batch.iter().zip(told) {
                    if let Err(why) = told {
                        p.untold(session, &uri, &why);
                    }
                }
            }
            return Ok(());
        }
        RegistryRequest::Updated { uri } => return p.updated(&uri).await.map_err(storage),
    };
    let subscribers = p.subscribers().await.map_err(storage)?;
    match change(subscribers, &uri, &session, subscribed)? {
        Write::Nothing => Ok(()),
        write => p.write(write).await.map_err(storage),
    }
}

/// One registry request as it arrived (`op`, the JSON `body`), answered as every object
/// answers (`tasks::protocol::ObjectReply`): an empty result, or the error (a full
/// set's -32602 reaches the client as it is).
pub async fn serve<P: RegistryPlatform>(p: &mut P, op: &str, body: &[u8]) -> ObjectReply {
    let done = match RegistryRequest::decode(op, body) {
        Ok(request) => run(p, request).await,
        Err(refused) => Err(refused),
    };
    match done {
        Ok(()) => ObjectReply::Result(Value::Object(Map::new())),
        Err(error) => ObjectReply::Error(error.to_wire()),
    }
}

fn unavailable(why: impl std::fmt::Display) -> McpError {
    McpError::Internal(format!("the subscription registry is unavailable: {why}"))
}

/// Sends `request` to the object `object` (a resource's registry, or a session for
/// `updated`): the sessions' class holds both.
pub async fn send(
    calls: &impl Calls,
    object: &str,
    request: &RegistryRequest,
) -> Result<(), McpError> {
    let call = Call {
        class: Class::Sessions,
        name: object,
        url: OBJECT_URL,
        headers: &[(REGISTRY_HEADER, request.op())],
        body: request.body(),
    };
    match calls::outcome(calls, call).await {
        Ok(_) => Ok(()),
        Err(ObjectError::Refused(error)) => Err(McpError::Wire(error)),
        Err(ObjectError::Unreachable(why)) => Err(unavailable(why)),
    }
}

/// Records that `session` subscribed to `uri` (`subscribed`), or no longer listens, in
/// the registry of `uri`.
pub async fn set(
    calls: &impl Calls,
    uri: &str,
    session: &str,
    subscribed: bool,
) -> Result<(), McpError> {
    let (uri, session) = (uri.to_owned(), session.to_owned());
    let registry = registry(&uri);
    let request = if subscribed {
        RegistryRequest::Add { uri, session }
    } else {
        RegistryRequest::Remove { uri, session }
    };
    send(calls, &registry, &request).await
}

/// Tells every session subscribed to `uri` that it changed.
pub async fn announce(calls: &impl Calls, uri: &str) -> Result<(), McpError> {
    let request = RegistryRequest::Announce {
        uri: uri.to_owned(),
    };
    send(calls, &registry(uri), &request).await
}

/// The registry object of `uri`, in the sessions' class (never a session's name: those are
/// 32 hex digits).
fn registry(uri: &str) -> String {
    format!("resource:{uri}")
}
