//! Reading an upstream's answer to one POST: a JSON body, or a `text/event-stream` whose
//! `message` events carry JSON-RPC messages (streamable-http "Sending Messages"; events
//! split by [`crate::http::sse::SseParser`]). Read as it arrives ([`Reader`]) while a call
//! runs, so progress and the upstream's own requests (2025-11-25 `elicitation/create` on
//! the call's stream) are relayed before the response.
//! A priming event (SEP-1699: an id and empty data) carries no message.

use crate::http::sse::SseParser;
use crate::jsonrpc::{ErrorCode, ErrorObject, RequestId};
use serde_json::{Map, Value};

/// One JSON-RPC message of an upstream's answer, as far as the gateway's request goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// Progress, log messages, list changes.
    Notification(String, Map<String, Value>),
    /// A request the upstream sends the gateway (`elicitation/create`, `ping`, …).
    Request {
        id: RequestId,
        method: String,
        params: Map<String, Value>,
    },
    /// The response to the gateway's request (`result` or `error`).
    Response(Result<Value, ErrorObject>),
}

/// Why an answer is not an MCP answer at all.
pub fn malformed(why: impl Into<String>) -> ErrorObject {
    ErrorObject {
        code: ErrorCode::INTERNAL_ERROR,
        message: why.into(),
        data: None,
    }
}

/// An answer's body read piece by piece, for the response to request `id`.
#[derive(Debug)]
pub struct Reader {
    id: u64,
    /// `None`: a JSON body, kept whole until its end.
    events: Option<SseParser>,
    json: Vec<u8>,
}

impl Reader {
    /// A reader of a body of content type `content_type`.
    pub fn new(content_type: &str, id: u64) -> Result<Reader, ErrorObject> {
        let events = if content_type.starts_with("text/event-stream") {
            Some(SseParser::default())
        } else if content_type.starts_with("application/json") {
            None
        } else {
            return Err(malformed(format!(
                "the upstream answered with content type {content_type:?}, neither JSON nor an event stream"
            )));
        };
        Ok(Reader {
            id,
            events,
            json: Vec::new(),
        })
    }

    /// Feeds a piece of the body: the messages it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<Message>, ErrorObject> {
        match &mut self.events {
            Some(parser) => {
                let payloads = parser.push(chunk);
                self.messages(payloads)
            }
            None => {
                self.json.extend_from_slice(chunk);
                Ok(Vec::new())
            }
        }
    }

    /// The end of the body: the messages it completed.
    pub fn finish(&mut self) -> Result<Vec<Message>, ErrorObject> {
        match &mut self.events {
            Some(parser) => {
                let last = parser.finish();
                self.messages(last.into_iter().collect())
            }
            None => {
                let message = serde_json::from_slice::<Value>(&self.json)
                    .map_err(|e| malformed(format!("the upstream's answer is not JSON: {e}")))?;
                Ok(vec![classify(message, self.id)?])
            }
        }
    }

    fn messages(&self, payloads: Vec<String>) -> Result<Vec<Message>, ErrorObject> {
        let mut out = Vec::with_capacity(payloads.len());
        for data in payloads.iter().filter(|d| !d.trim().is_empty()) {
            let message = serde_json::from_str::<Value>(data).map_err(|e| {
                malformed(format!("the upstream sent an event that is not JSON: {e}"))
            })?;
            out.push(classify(message, self.id)?);
        }
        Ok(out)
    }
}

/// What one JSON-RPC message is, checked: JSON-RPC 2.0, and a response answers `id`.
fn classify(message: Value, id: u64) -> Result<Message, ErrorObject> {
    let Value::Object(mut message) = message else {
        return Err(malformed(
            "the upstream sent a message that is not a JSON object",
        ));
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(malformed(
            "the upstream sent a message without \"jsonrpc\": \"2.0\"",
        ));
    }
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let params = |message: &mut Map<String, Value>| match message.remove("params") {
        Some(Value::Object(params)) => params,
        _ => Map::new(),
    };
    match (message.get("id"), method) {
        (Some(got), Some(method)) => {
            let id = crate::jsonrpc::request_id(got).ok_or_else(|| {
                malformed(format!(
                    "the upstream sent a request whose id {got} is neither a string nor an integer"
                ))
            })?;
            Ok(Message::Request {
                id,
                method,
                params: params(&mut message),
            })
        }
        (None, Some(method)) => Ok(Message::Notification(method, params(&mut message))),
        (Some(got), None) if got.as_u64() == Some(id) => {
            match (message.remove("result"), message.remove("error")) {
                (Some(result), None) => Ok(Message::Response(Ok(result))),
                (None, Some(error)) => Ok(Message::Response(Err(serde_json::from_value::<
                    ErrorObject,
                >(error)
                .map_err(|e| malformed(format!("the upstream sent a malformed error: {e}")))?))),
                _ => Err(malformed(
                    "the upstream sent a response with neither or both of result and error",
                )),
            }
        }
        (Some(got), None) => Err(malformed(format!(
            "the upstream answered request {got} where {id} was asked"
        ))),
        (None, None) => Err(malformed(
            "the upstream sent a message with no id and no method",
        )),
    }
}
