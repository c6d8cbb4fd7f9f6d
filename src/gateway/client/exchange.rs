//! One request to an upstream and its answer, read as it arrives: the response, the
//! notifications before it, and the upstream's own requests meanwhile, answered through a
//! [`Relay`] before the rest is read (streamable-http "Sending Messages": a server may send
//! requests and notifications on a POST's stream before its response).

use super::{Bounds, Session, UpstreamError};
use crate::gateway::sse::{self, Message};
use crate::host::{BoxFuture, Outbound, Streaming};
use crate::jsonrpc::{self, ErrorObject, RequestId};
use serde::Serialize;
use serde_json::{Map, Value};
use std::time::Duration;

/// What hears an upstream's notifications and answers its own requests (2025-11-25
/// `elicitation/create`, say) while a call's answer is read (`super::step`).
pub trait Relay {
    fn notified(&self, method: &str, params: &Map<String, Value>);
    fn asked<'a>(&'a self, method: &'a str, params: Map<String, Value>) -> BoxFuture<'a, Reply>;
}

/// The gateway's answer to a request an upstream sent it.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Result(Value),
    Error(ErrorObject),
    /// It cannot be answered here (a step in the Worker cannot ask): the call is dropped
    /// ([`UpstreamError::Handover`]).
    Handover,
}

impl Session {
    /// Sends `method` and reads its response: the result, or why there is none.
    pub async fn request(
        &mut self,
        method: &str,
        params: Value,
        bounds: Bounds,
    ) -> Result<Value, UpstreamError> {
        let (result, _) = self
            .round_trip(method, params, bounds, Vec::new(), None)
            .await?;
        Ok(result)
    }

    /// A call (`tools/call`) with `Mcp-Param-*` headers (2026-07-28, a tool's
    /// `x-mcp-header` arguments), its answer read as it arrives: each notification and
    /// each request the upstream sends meanwhile goes to `relay`, which answers the
    /// requests (the answer is sent back upstream before the rest is read).
    pub async fn call(
        &mut self,
        params: Value,
        bounds: Bounds,
        headers: Vec<(String, String)>,
        relay: &dyn Relay,
    ) -> Result<Value, UpstreamError> {
        let (result, _) = self
            .round_trip("tools/call", params, bounds, headers, Some(relay))
            .await?;
        Ok(result)
    }

    /// One request and its answer, read as it arrives: the result (an object) and the
    /// `Mcp-Session-Id` given. Without a `relay`, what comes before the response is read
    /// past: a notification goes nowhere, a request goes unanswered (the upstream decides
    /// what no answer means).
    pub(super) async fn round_trip(
        &mut self,
        method: &str,
        mut params: Value,
        bounds: Bounds,
        mut headers: Vec<(String, String)>,
        relay: Option<&dyn Relay>,
    ) -> Result<(Value, Option<String>), UpstreamError> {
        self.next_id += 1;
        let id = self.next_id;
        if self.is_modern() {
            headers.extend(self.routing(method, &mut params));
        }
        let message = jsonrpc::client_request(id, method, params);
        let mut answer = self.open_answer(message, bounds, headers).await?;
        let session = answer.header("mcp-session-id").map(str::to_owned);
        let content_type = answer.header("content-type").unwrap_or_default();
        let mut reader =
            sse::Reader::new(content_type, id).map_err(|e| UpstreamError::Malformed(e.message))?;
        loop {
            let piece = answer.next_chunk().await.map_err(UpstreamError::Host)?;
            let messages = match &piece {
                Some(piece) => reader.push(piece),
                None => reader.finish(),
            }
            .map_err(|e| UpstreamError::Malformed(e.message))?;
            for message in messages {
                match (message, relay) {
                    (Message::Response(response), _) => {
                        return Ok((result_of(method, response)?, session));
                    }
                    (Message::Notification(name, params), Some(relay)) => {
                        relay.notified(&name, &params)
                    }
                    (Message::Request { id, method, params }, Some(relay)) => {
                        let reply = relay.asked(&method, params).await;
                        self.reply(id, reply, bounds).await?;
                    }
                    (_, None) => {}
                }
            }
            if piece.is_none() {
                return Err(UpstreamError::Malformed(format!(
                    "its answer to {method} ended without a response"
                )));
            }
        }
    }

    /// Opens the stream on which the upstream tells of changes, read within `bounds` (the
    /// timeout covers the whole stream), and the id its response would answer: at
    /// 2026-07-28 a `subscriptions/listen` asking for `toolsListChanged` (basic/patterns/
    /// subscriptions); at 2025-11-25 the session's GET stream (basic/transports,
    /// "Listening for Messages from the Server"), which no response ends.
    pub async fn listen(&mut self, bounds: Bounds) -> Result<(Streaming, u64), UpstreamError> {
        if self.is_modern() {
            self.next_id += 1;
            let mut params = jsonrpc::payload(&ListenParams {
                notifications: Notifications {
                    tools_list_changed: true,
                },
            });
            let headers = self.routing("subscriptions/listen", &mut params);
            let message = jsonrpc::client_request(self.next_id, "subscriptions/listen", params);
            let answer = self.open_answer(message, bounds, headers).await?;
            return Ok((answer, self.next_id));
        }
        let mut request = Outbound::new("GET", self.upstream.endpoint())
            .header("accept", "text/event-stream")
            .header("mcp-protocol-version", &self.version)
            .no_redirects()
            .timeout(Duration::from_millis(bounds.timeout_ms))
            .max_bytes(bounds.max_bytes);
        if let Some(id) = &self.id {
            request = request.header("mcp-session-id", id);
        }
        let answer = self.open_request(self.authorized(request)).await?;
        Ok((answer, 0))
    }

    /// Sends the gateway's answer to the upstream's request `id`.
    pub(crate) async fn reply(
        &self,
        id: RequestId,
        reply: Reply,
        bounds: Bounds,
    ) -> Result<(), UpstreamError> {
        let message = match reply {
            Reply::Result(result) => jsonrpc::result_message(&id, result),
            Reply::Error(error) => jsonrpc::error_message(&id, &error),
            Reply::Handover => return Err(UpstreamError::Handover),
        };
        let quick = Bounds {
            timeout_ms: bounds.timeout_ms.min(30_000),
            ..bounds
        };
        self.send(message, quick).await.map(|_| ())
    }
}

/// The result of `method` in its `response`: an object, or why there is none.
fn result_of(method: &str, response: Result<Value, ErrorObject>) -> Result<Value, UpstreamError> {
    match response {
        Ok(result @ Value::Object(_)) => Ok(result),
        Ok(_) => Err(UpstreamError::Malformed(format!(
            "its {method} result is not an object"
        ))),
        Err(error) => Err(UpstreamError::Rpc(error)),
    }
}

/// `subscriptions/listen`'s params: the notifications asked for.
#[derive(Serialize)]
struct ListenParams {
    notifications: Notifications,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Notifications {
    tools_list_changed: bool,
}
