//! One hold of an upstream's standing stream ([`hold`]): a session opened as for a listing
//! (`Session::discover`), the stream it offers ([`Session::listen`]), read until the
//! deadline, each `notifications/tools/list_changed` counted as it comes.

use super::super::client::{Bounds, Session};
use super::super::sse::{Message, Reader};
use super::super::{Settings, Upstream};
use crate::gateway::client::Reply;
use crate::host::{Host, HostError};
use crate::jsonrpc::{ErrorCode, ErrorObject};
use std::future::Future;

/// How a hold ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Held {
    /// It lasted until its deadline: hold again at once.
    Deadline,
    /// The upstream ended the stream.
    Ended,
    /// No stream, or a broken one (why, for the log).
    Failed(String),
}

/// Holds `upstream`'s stream for `timeout_ms` at most, calling `on_change` at each
/// `notifications/tools/list_changed` (a failing `on_change` ends the hold). The upstream
/// is reached as every request to it is: through the outbound policy, bounded by
/// `UPSTREAM_MAX_BYTES` in all; its session is closed at the end.
pub async fn hold<F, Fut>(
    host: &Host,
    upstream: &Upstream,
    settings: &Settings,
    timeout_ms: u64,
    on_change: F,
) -> Held
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    let bounds = Bounds {
        timeout_ms: settings.call_timeout_ms.min(30_000),
        max_bytes: settings.max_bytes,
    };
    let mut session = match Session::discover(host, upstream, bounds).await {
        Ok(session) => session,
        Err(e) => return Held::Failed(e.to_string()),
    };
    let stream = Bounds {
        timeout_ms,
        max_bytes: settings.max_bytes,
    };
    let held = match session.listen(stream).await {
        Ok((answer, id)) => read(&session, answer, id, bounds, on_change).await,
        Err(e) => Held::Failed(e.to_string()),
    };
    session.close(bounds).await;
    held
}

async fn read<F, Fut>(
    session: &Session,
    mut answer: crate::host::Streaming,
    id: u64,
    bounds: Bounds,
    on_change: F,
) -> Held
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    let content_type = answer.header("content-type").unwrap_or_default().to_owned();
    let mut reader = match Reader::new(&content_type, id) {
        Ok(reader) => reader,
        Err(e) => return Held::Failed(e.message),
    };
    loop {
        let piece = match answer.next_chunk().await {
            Ok(piece) => piece,
            Err(HostError::Timeout { .. }) => return Held::Deadline,
            Err(e) => return Held::Failed(e.to_string()),
        };
        let messages = match &piece {
            Some(piece) => reader.push(piece),
            None => reader.finish(),
        };
        let messages = match messages {
            Ok(messages) => messages,
            Err(e) => return Held::Failed(e.message),
        };
        for message in messages {
            match message {
                Message::Notification(method, _)
                    if method == "notifications/tools/list_changed" =>
                {
                    if let Err(e) = on_change().await {
                        return Held::Failed(e);
                    }
                }
                // A 2026-07-28 upstream that does not offer them says so in its
                // acknowledgement (basic/patterns/subscriptions, "Acknowledgment").
                Message::Notification(method, params)
                    if method == "notifications/subscriptions/acknowledged"
                        && params
                            .get("notifications")
                            .and_then(|n| n.get("toolsListChanged"))
                            != Some(&serde_json::Value::Bool(true)) =>
                {
                    return Held::Failed(
                        "its subscriptions/listen does not offer toolsListChanged".into(),
                    );
                }
                Message::Notification(..) => {}
                // A `ping` is answered (2025-11-25 basic/utilities/ping); nothing else is
                // asked on a stream that only listens.
                Message::Request { id, method, .. } => {
                    let reply = match method.as_str() {
                        "ping" => Reply::Result(serde_json::Value::Object(Default::default())),
                        other => Reply::Error(ErrorObject {
                            code: ErrorCode::METHOD_NOT_FOUND,
                            message: format!("the gateway only listens on this stream ({other})"),
                            data: None,
                        }),
                    };
                    if let Err(e) = session.reply(id, reply, bounds).await {
                        return Held::Failed(e.to_string());
                    }
                }
                // A `subscriptions/listen`'s graceful end, or its error.
                Message::Response(Ok(_)) => return Held::Ended,
                Message::Response(Err(e)) => return Held::Failed(e.message),
            }
        }
        if piece.is_none() {
            return Held::Ended;
        }
    }
}
