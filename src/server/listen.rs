//! `subscriptions/listen` for task status (ext-tasks "Task Status Notifications";
//! basic/patterns/subscriptions), and a gateway's tool list changes (`toolsListChanged`,
//! acknowledged only where the server tells of them: docs/gateway.md). The response is an
//! SSE stream:
//!
//! # Format
//!
//! ```text
//! data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged",
//!        "params":{"notifications":{"taskIds":["…"]},"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}
//! data: {"jsonrpc":"2.0","method":"notifications/tasks","params":{…DetailedTask…,"_meta":{…subscriptionId…}}}
//! data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{…subscriptionId…}}}
//! :                                                     keep-alive comment
//! data: {"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","_meta":{…subscriptionId…}}}
//! ```
//!
//! The acknowledgement comes first and lists the task ids the server agreed to watch
//! (those that exist and belong to the caller). Each notification carries the full
//! `DetailedTask`, exactly what `tasks/get` returns. The stream ends with a
//! `SubscriptionsListenResult` once every watched task is terminal, and only then: a
//! stream that ends for any other reason (an object that stays unreachable, the
//! stream's renewal) just closes, so the client reconnects. The task objects push their
//! changes (`tasks::watch`); [`super::fanin`] decides what the stream sends.

use super::{Action, Context, Envelope, Server};
use crate::error::McpError;
use crate::jsonrpc::{self, OneEntry, Request, RequestId};
use crate::mcp::meta::{Capability, KEY_SUBSCRIPTION_ID, RequestMeta};
use crate::mcp::params::{self, ListenParams};
use crate::tasks::id;
use serde::Serialize;
use serde_json::Value;

/// At most this many tasks per stream (one socket each: see [`super::fanin`] for the
/// subrequest budget this keeps).
pub const MAX_TASKS: usize = 100;
/// Send a keep-alive comment after this long without a message.
pub const KEEPALIVE_MS: u64 = 15_000;

/// Socket reopens allowed per task per stream (`LISTEN_RECONNECTS`).
pub const RECONNECTS: u32 = 3;
/// A stream ends (without the result, so the client reopens it) after this long
/// (`LISTEN_MAX_MS`).
pub const MAX_STREAM_MS: u64 = 15 * 60_000;

/// Limits of one stream (from the server's configuration).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamLimits {
    pub reconnects: u32,
    pub max_stream_ms: u64,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            reconnects: RECONNECTS,
            max_stream_ms: MAX_STREAM_MS,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Listen {
    pub request_id: RequestId,
    pub envelope: Envelope,
    /// Requested task ids that have the server's id format (others cannot exist).
    pub task_ids: Vec<String>,
    /// Reconnect budget and lifetime of the stream.
    pub limits: StreamLimits,
    /// `toolsListChanged` accepted (a gateway that tells of changes): the tool list's
    /// [`tools_generation`] at the request, and how often to look again
    /// (`UPSTREAM_WATCH_CHECK_MS`).
    pub tools: Option<ToolsWatch>,
}

/// What a stream that tells of tool list changes compares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolsWatch {
    pub generation: u64,
    pub every_ms: u64,
}

/// A fingerprint of the server's tool list (its bytes as listed, FNV-1a): a gateway's
/// changes when an upstream's does.
pub fn tools_generation(server: &Server) -> u64 {
    server
        .lists
        .tools
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

pub fn open(
    server: &Server,
    rpc: &Request,
    meta: &RequestMeta,
    _ctx: &Context,
    envelope: &Envelope,
) -> Result<Action, McpError> {
    let filter = params::parse::<ListenParams>(&rpc.params)?.notifications;
    let mut task_ids = Vec::new();
    if let Some(ids) = filter.task_ids {
        if !meta.capabilities.has(Capability::TasksExtension) {
            return Err(Capability::TasksExtension
                .missing("task status notifications are part of the Tasks extension"));
        }
        for id in ids {
            if id::is_valid(&id) && !task_ids.contains(&id) {
                task_ids.push(id);
            }
        }
        if task_ids.len() > MAX_TASKS {
            return Err(McpError::InvalidParams(format!(
                "at most {MAX_TASKS} taskIds per subscription"
            )));
        }
    }
    let tools = (filter.tools_list_changed && server.tells_tool_changes()).then(|| ToolsWatch {
        generation: tools_generation(server),
        every_ms: tool_checks_ms(server),
    });
    Ok(Action::Listen(Box::new(Listen {
        request_id: rpc.id.clone(),
        envelope: envelope.clone(),
        task_ids,
        tools,
        limits: StreamLimits {
            reconnects: server.config.listen_reconnects,
            max_stream_ms: server.config.listen_max_ms,
        },
    })))
}

#[cfg(feature = "gateway")]
fn tool_checks_ms(server: &Server) -> u64 {
    server.config.gateway.watch_check_ms
}

#[cfg(not(feature = "gateway"))]
fn tool_checks_ms(_: &Server) -> u64 {
    0
}

fn frame(message: &Value) -> Vec<u8> {
    format!("data: {message}\n\n").into_bytes()
}

/// `_meta` of the stream's messages: `{KEY_SUBSCRIPTION_ID: the listen request's id}`.
type SubscriptionMeta<'a> = OneEntry<'a, &'a RequestId>;

/// `notifications/subscriptions/acknowledged`'s params.
#[derive(Serialize)]
struct Acknowledged<'a> {
    #[serde(rename = "_meta")]
    meta: SubscriptionMeta<'a>,
    notifications: AcceptedNotifications<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AcceptedNotifications<'a> {
    task_ids: &'a [String],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    tools_list_changed: bool,
}

/// `notifications/tools/list_changed`'s params on a stream: its subscription.
#[derive(Serialize)]
struct SubscriptionParams<'a> {
    #[serde(rename = "_meta")]
    meta: SubscriptionMeta<'a>,
}

/// `SubscriptionsListenResult`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListenResult<'a> {
    #[serde(rename = "_meta")]
    meta: SubscriptionMeta<'a>,
    result_type: &'static str,
}

impl Listen {
    fn meta(&self) -> SubscriptionMeta<'_> {
        OneEntry(KEY_SUBSCRIPTION_ID, &self.request_id)
    }

    /// The first message: which of the requested notifications the server will send.
    /// Tool list changes are offered by a gateway that tells of them; resource and other
    /// list notifications are not (those lists are static).
    pub fn ack(&self, accepted: &[String]) -> Vec<u8> {
        let params = Acknowledged {
            meta: self.meta(),
            notifications: AcceptedNotifications {
                task_ids: accepted,
                tools_list_changed: self.tools.is_some(),
            },
        };
        frame(&jsonrpc::notification(
            "notifications/subscriptions/acknowledged",
            jsonrpc::payload(&params),
        ))
    }

    /// A `notifications/tasks` message for a `tasks/get` result: its `_meta` (this
    /// server's facts about the task) with the subscription's id added.
    pub fn task(&self, get_result: &Value) -> Vec<u8> {
        let mut params = get_result.clone();
        if let Some(object) = params.as_object_mut() {
            object.remove("resultType");
            match object.get_mut("_meta") {
                Some(Value::Object(meta)) => {
                    meta.insert(
                        KEY_SUBSCRIPTION_ID.into(),
                        jsonrpc::payload(&self.request_id),
                    );
                }
                _ => {
                    object.insert("_meta".into(), jsonrpc::payload(&self.meta()));
                }
            }
        }
        frame(&jsonrpc::notification("notifications/tasks", params))
    }

    /// `notifications/tools/list_changed`, on this subscription.
    pub fn tools_changed(&self) -> Vec<u8> {
        let params = jsonrpc::payload(&SubscriptionParams { meta: self.meta() });
        frame(&jsonrpc::notification(
            "notifications/tools/list_changed",
            params,
        ))
    }

    /// The graceful end of the stream (`SubscriptionsListenResult`).
    pub fn closed(&self) -> Vec<u8> {
        let result = jsonrpc::payload(&ListenResult {
            meta: self.meta(),
            result_type: "complete",
        });
        let mut frame = b"data: ".to_vec();
        frame.extend_from_slice(&self.envelope.result_body(&self.request_id, &result));
        frame.extend_from_slice(b"\n\n");
        frame
    }

    pub fn keepalive() -> &'static [u8] {
        b":\n\n"
    }
}

/// Whether a `tasks/get` result is terminal.
pub fn is_terminal(get_result: &Value) -> bool {
    crate::tasks::task::StatusKind::of_task(get_result).is_some_and(|kind| kind.is_terminal())
}
