//! A held call's stream, as the step relays it (docs/gateway.md "Eras and questions").

use crate::gateway::client::{self, Reply};
use crate::host::BoxFuture;
use crate::jsonrpc::{ErrorCode, ErrorObject};
use crate::tools::{Call, ToolError};
use serde::Serialize;
use serde_json::{Map, Value};

/// The step's side of a call's stream: upstream progress is the call's (a task's, as it
/// comes), its log messages the call's (`notifications/message` to a 2025-11-25 session
/// that set a level), and the upstream's own requests are the caller's questions, asked while the
/// call is held (`Call::ask_now`; a step in the Worker cannot: the call is handed over).
pub(super) struct Relay<'a>(pub &'a Call);

/// The key a question the upstream asks mid-call has among the task's input requests.
const ASKED_KEY: &str = "upstream";

impl client::Relay for Relay<'_> {
    fn notified(&self, method: &str, params: &Map<String, Value>) {
        match method {
            "notifications/progress" => {
                if let Some(progress) = params.get("progress").and_then(Value::as_f64) {
                    let total = params.get("total").and_then(Value::as_f64);
                    let message = params.get("message").and_then(Value::as_str);
                    self.0.progress(progress, total, message);
                }
            }
            "notifications/message" => {
                if let (Some(level), Some(data)) = (
                    params.get("level").and_then(Value::as_str),
                    params.get("data"),
                ) {
                    self.0.log(level, data.clone());
                }
            }
            _ => {}
        }
    }

    fn asked<'a>(&'a self, method: &'a str, params: Map<String, Value>) -> BoxFuture<'a, Reply> {
        Box::pin(async move {
            match method {
                "ping" => Reply::Result(client::no_params()),
                "elicitation/create" | "sampling/createMessage" | "roots/list" => {
                    if !self.0.can_ask_now() {
                        return Reply::Handover;
                    }
                    let mut requests = Map::new();
                    requests.insert(
                        ASKED_KEY.into(),
                        crate::jsonrpc::payload(&Asked { method, params }),
                    );
                    match self.0.ask_now(requests).await {
                        Ok(mut answers) => match answers.remove(ASKED_KEY) {
                            Some(answer) => Reply::Result(answer),
                            None => Reply::Error(internal("the question went unanswered")),
                        },
                        Err(ToolError::Rpc(error)) => Reply::Error(error),
                        Err(other) => Reply::Error(internal(&format!("{other:?}"))),
                    }
                }
                _ => Reply::Error(ErrorObject {
                    code: ErrorCode::METHOD_NOT_FOUND,
                    message: format!("the gateway does not answer {method}"),
                    data: None,
                }),
            }
        })
    }
}

fn internal(message: &str) -> ErrorObject {
    ErrorObject {
        code: ErrorCode::INTERNAL_ERROR,
        message: message.into(),
        data: None,
    }
}

/// An upstream's question, as an input request of the call.
#[derive(Serialize)]
struct Asked<'a> {
    method: &'a str,
    params: Map<String, Value>,
}
