//! Who subscribed to a resource (2025-11-25 `resources/subscribe`): one object per URI in
//! the sessions' namespace, named `resource:{uri}` (never a session's name: those are 32
//! hex digits, and the Worker routes nothing else here), keeping the ids of the sessions
//! subscribed to it. `resources/subscribe` adds a session, `unsubscribe` and `DELETE`
//! remove it (at most `legacy::subscribers::MAX_SUBSCRIBERS` sessions; the object's storage
//! is deleted when the last one leaves); `Host::resource_updated` announces a change: the registry tells each session,
//! which sends `notifications/resources/updated` on its open GET streams.
//!
//! # Format
//!
//! ```text
//! POST https://task-object/op   x-mcp-tasks-registry: add | remove | announce | updated
//! {"uri": "...", "session": "3f0c…"}          (session: for add and remove)
//! ```

use super::SessionRunner;
use crate::cloudflare::SESSIONS_BINDING;
use crate::cloudflare::bench::{self, SESSION};
use crate::cloudflare::js_api::{storage_get_strings, storage_put_strings};
use crate::error::McpError;
use crate::legacy::subscribers::{self, Write};
use crate::pairs::SortedSet;
use crate::tasks::protocol::OBJECT_URL;
use serde::{Deserialize, Serialize};
use worker::{Env, Request, Response, Result};

/// The internal header naming a registry operation (the Worker never forwards it).
pub const REGISTRY_HEADER: &str = "x-mcp-tasks-registry";
const SUBSCRIBERS_KEY: &str = "subscribers";

#[derive(Serialize, Deserialize)]
struct Message {
    uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    session: Option<String>,
}

async fn send(
    env: &Env,
    object: &str,
    op: &str,
    message: &Message,
) -> std::result::Result<(), Refusal> {
    let body = serde_json::to_string(message).map_err(|e| e.to_string())?;
    let stub = env
        .durable_object(SESSIONS_BINDING)
        .and_then(|ns| ns.get_by_name(object))
        .map_err(|e| e.to_string())?;
    let mut response =
        crate::cloudflare::post_to_object(&stub, OBJECT_URL, &[(REGISTRY_HEADER, op)], body)
            .await?;
    match response.status_code() {
        200..=299 => Ok(()),
        FULL => {
            let body = crate::cloudflare::response_bytes(&mut response)
                .await
                .map_err(|e| e.to_string())?;
            Err(Refusal::Full(
                String::from_utf8(body).map_err(|e| e.to_string())?,
            ))
        }
        status => Err(format!("the subscription registry answered HTTP {status}").into()),
    }
}

/// The status a registry answers when its set is full (the body says so).
const FULL: u16 = 409;

/// Why a registry operation did not happen.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The resource has [`subscribers::MAX_SUBSCRIBERS`] already.
    Full(String),
    Unavailable(String),
}

impl From<String> for Refusal {
    fn from(why: String) -> Refusal {
        Refusal::Unavailable(why)
    }
}

impl From<Refusal> for McpError {
    fn from(refusal: Refusal) -> McpError {
        match refusal {
            Refusal::Full(why) => McpError::InvalidParams(why),
            Refusal::Unavailable(why) => {
                McpError::Internal(format!("the subscription registry is unavailable: {why}"))
            }
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Full(why) | Refusal::Unavailable(why) => f.write_str(why),
        }
    }
}

fn registry(uri: &str) -> String {
    format!("resource:{uri}")
}

/// Records that `session` subscribed to `uri` (`subscribed`), or no longer listens.
pub(crate) async fn set(
    env: &Env,
    uri: &str,
    session: &str,
    subscribed: bool,
) -> std::result::Result<(), Refusal> {
    let message = Message {
        uri: uri.to_owned(),
        session: Some(session.to_owned()),
    };
    let op = if subscribed { "add" } else { "remove" };
    send(env, &registry(uri), op, &message).await
}

/// Tells every session subscribed to `uri` that it changed.
pub(crate) async fn announce(env: &Env, uri: &str) -> std::result::Result<(), Refusal> {
    let message = Message {
        uri: uri.to_owned(),
        session: None,
    };
    send(env, &registry(uri), "announce", &message).await
}

/// A registry operation, or a session being told of an update.
pub(super) async fn handle(runner: &SessionRunner, op: &str, mut req: Request) -> Result<Response> {
    let message: Message = match crate::cloudflare::request_json(&mut req).await {
        Ok(message) => message,
        Err(e) => return Response::error(format!("bad registry message: {e}"), 400),
    };
    let storage = runner.state.storage();
    bench::rows_read(SESSION, 1);
    let mut subscribers = SortedSet::new();
    storage_get_strings(&storage, SUBSCRIBERS_KEY, &mut subscribers).await?;
    match (op, message.session.as_deref()) {
        (op @ ("add" | "remove"), Some(session)) => {
            match subscribers::change(subscribers, &message.uri, session, op == "add") {
                Ok(Write::Nothing) => {}
                Ok(Write::Store(set)) => {
                    bench::rows_written(SESSION, 1);
                    storage_put_strings(&storage, SUBSCRIBERS_KEY, &set).await?
                }
                Ok(Write::Delete) => {
                    bench::before_delete_all(SESSION, &storage).await;
                    storage.delete_all().await?
                }
                Err(full) => return Response::error(full.to_wire().message, FULL),
            }
        }
        ("announce", None) => {
            for session in &subscribers {
                // A session that ended no longer answers for the URI: nothing to tell it.
                if let Err(why) = send(&runner.env, session, "updated", &message).await {
                    worker::console_warn!("resources/updated for {}: {why}", message.uri);
                }
            }
        }
        ("updated", None) => runner.resource_updated(&message.uri).await?,
        _ => return Response::error(format!("unknown registry operation {op:?}"), 400),
    }
    Response::empty()
}
