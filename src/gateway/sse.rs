//! Reading an upstream's answer to one POST: a JSON body, or a `text/event-stream` whose
//! events carry JSON-RPC messages (streamable-http "Sending Messages"). What the gateway
//! takes from it: the response to its request, and the notifications before it.
//!
//! # Format
//!
//! ```text
//! event: message                       (optional; other event types are skipped)
//! id: 7                                (optional)
//! data: {"jsonrpc":"2.0","method":"notifications/progress","params":{…}}
//!                                      (a blank line ends an event; data lines join with \n)
//! data: {"jsonrpc":"2.0","id":2,"result":{…}}
//! ```

use crate::jsonrpc::{ErrorCode, ErrorObject};
use serde_json::{Map, Value};

/// What one POST brought back, as far as the gateway's request goes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Exchange {
    /// The response to the request (`result` or `error`), if it came.
    pub response: Option<Result<Value, ErrorObject>>,
    /// Notifications that came before it (progress, messages, list changes), in order.
    pub notifications: Vec<(String, Map<String, Value>)>,
}

/// Why an answer is not an MCP answer at all.
pub fn malformed(why: impl Into<String>) -> ErrorObject {
    ErrorObject {
        code: ErrorCode::INTERNAL_ERROR,
        message: why.into(),
        data: None,
    }
}

/// Reads `body` (of content type `content_type`) for the response to request `id`.
pub fn read(content_type: &str, body: &[u8], id: u64) -> Result<Exchange, ErrorObject> {
    let mut exchange = Exchange::default();
    if content_type.starts_with("text/event-stream") {
        let text = std::str::from_utf8(body)
            .map_err(|_| malformed("the upstream's event stream is not UTF-8"))?;
        // A priming event (SEP-1699: an id and empty data) carries no message.
        for data in events(text).into_iter().filter(|d| !d.trim().is_empty()) {
            let message = serde_json::from_str::<Value>(&data).map_err(|e| {
                malformed(format!("the upstream sent an event that is not JSON: {e}"))
            })?;
            take(&mut exchange, message, id)?;
            if exchange.response.is_some() {
                break;
            }
        }
    } else if content_type.starts_with("application/json") {
        let message = serde_json::from_slice::<Value>(body)
            .map_err(|e| malformed(format!("the upstream's answer is not JSON: {e}")))?;
        take(&mut exchange, message, id)?;
    } else {
        return Err(malformed(format!(
            "the upstream answered with content type {content_type:?}, neither JSON nor an event stream"
        )));
    }
    Ok(exchange)
}

/// The data of each `message` event of `text` (a final event without its blank line
/// counts: the stream ended there).
fn events(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut data, mut kind) = (None::<String>, None::<String>);
    let mut flush = |data: &mut Option<String>, kind: &mut Option<String>| {
        if let Some(d) = data.take()
            && kind.as_deref().is_none_or(|k| k == "message")
        {
            out.push(d);
        }
        *kind = None;
    };
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            flush(&mut data, &mut kind);
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(value.to_owned()),
            },
            "event" => kind = Some(value.to_owned()),
            _ => {}
        }
    }
    flush(&mut data, &mut kind);
    out
}

/// Files one JSON-RPC message into `exchange`.
fn take(exchange: &mut Exchange, message: Value, id: u64) -> Result<(), ErrorObject> {
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
    match (message.get("id"), method) {
        // A request the upstream sends the gateway (it answers none: it read the whole
        // answer first, and declares no client capability to a 2025-11-25 upstream).
        (Some(_), Some(_)) => {}
        (None, Some(method)) => {
            let params = match message.remove("params") {
                Some(Value::Object(params)) => params,
                _ => Map::new(),
            };
            exchange.notifications.push((method, params));
        }
        (Some(got), None) if got.as_u64() == Some(id) => {
            exchange.response = Some(match (message.remove("result"), message.remove("error")) {
                (Some(result), None) => Ok(result),
                (None, Some(error)) => Err(serde_json::from_value::<ErrorObject>(error)
                    .map_err(|e| malformed(format!("the upstream sent a malformed error: {e}")))?),
                _ => {
                    return Err(malformed(
                        "the upstream sent a response with neither or both of result and error",
                    ));
                }
            });
        }
        (Some(got), None) => {
            return Err(malformed(format!(
                "the upstream answered request {got} where {id} was asked"
            )));
        }
        (None, None) => {
            return Err(malformed(
                "the upstream sent a message with no id and no method",
            ));
        }
    }
    Ok(())
}
