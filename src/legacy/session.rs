//! What a 2025-11-25 session is: who opened it, what it negotiated, and how long it lives.

use super::subscribers::TOOLS_LISTED;
use super::{LEGACY_VERSIONS, MODERN};
use crate::auth::anonymous::{ANY_SESSION, is_session, session_principal};
use crate::error::McpError;
use crate::jsonrpc::{Empty, OneEntry, payload};
use crate::mcp::Implementation;
use crate::mcp::meta::{ClientCapabilities, RequestMeta};
use crate::mcp::params::{self, InitializeParams, LoggingLevel};
use crate::pairs::SortedSet;
use crate::server::Server;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a session keeps (in its Durable Object's storage).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub id: String,
    /// The principal the session belongs to (`auth::anonymous::session_principal` of the
    /// caller that opened it); a request of any other principal gets "not found", exactly
    /// as for a session that does not exist.
    pub principal: String,
    /// The caller as authenticated when it opened the session: the ledger that counts
    /// the session among its principal's (`QUOTA_SESSIONS`).
    #[serde(default)]
    pub opened_by: String,
    pub protocol_version: String,
    pub capabilities: Map<String, Value>,
    #[serde(default)]
    pub client_info: Value,
    /// `logging/setLevel`; `None` sends every level.
    #[serde(default)]
    pub log_level: Option<LoggingLevel>,
    #[serde(default)]
    pub subscriptions: SortedSet<String>,
    pub created_at_ms: u64,
    /// The last request seen (kept coarsely: see [`Session::touched`]).
    pub last_seen_ms: u64,
    /// Until when the session's place in its ledger holds (renewed as it is used).
    #[serde(default)]
    pub held_until_ms: u64,
    /// Other anonymous sessions' tasks this anonymous session reached by their ids
    /// ([`Session::reach`]), at most [`MAX_REACHED`]: its `tasks/list` lists them too.
    #[serde(default, skip_serializing_if = "SortedSet::is_empty")]
    pub reached: SortedSet<String>,
}

/// Other sessions' tasks one anonymous session may reach by their ids at once; past it,
/// another session's task is "not found" until one of them ends.
pub const MAX_REACHED: usize = 32;

/// How a session reaches a task named by its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach<'a> {
    /// As this principal, and no other.
    As(&'a str),
    /// As its own principal first; if that is "not found", as [`ANY_SESSION`], and if that
    /// finds it, the session records it ([`Session::reached`]) before answering.
    OwnThenAny(&'a str),
}

impl Session {
    /// The `_meta` view the modern handlers take.
    pub fn meta(&self) -> RequestMeta {
        RequestMeta {
            protocol_version: MODERN.to_owned(),
            capabilities: ClientCapabilities(self.capabilities.clone()),
            client_info: Some(self.client_info.clone()),
        }
    }

    /// Whether a message at `level` goes out (unknown names count as `info`).
    pub fn logs(&self, level: &str) -> bool {
        let level =
            serde_json::from_value(Value::String(level.to_owned())).unwrap_or(LoggingLevel::Info);
        self.log_level.is_none_or(|min| level >= min)
    }

    /// Whether `caller` (as the Worker authenticated it) is this session's principal.
    pub fn belongs_to(&self, caller: &str) -> bool {
        self.principal == session_principal(caller, &self.id)
    }

    /// How this session reaches task `task_id`. An anonymous task's id is its key in
    /// both eras: an anonymous session reaches another anonymous session's task by its id,
    /// and lists it from then on, since what `tasks/get` can read `tasks/list` must list
    /// (2025-11-25 tasks "Task Listing" 4). Every other session reaches its own tasks only.
    pub fn reach(&self, task_id: &str) -> Reach<'_> {
        if self.reached.contains(task_id) {
            Reach::As(ANY_SESSION)
        } else if is_session(&self.principal) && self.reached.len() < MAX_REACHED {
            Reach::OwnThenAny(&self.principal)
        } else {
            Reach::As(&self.principal)
        }
    }

    /// The principal a task this session reached before is reached as: [`ANY_SESSION`]
    /// for another session's, else the session's own.
    pub fn principal_for(&self, task_id: &str) -> &str {
        match self.reach(task_id) {
            Reach::As(principal) | Reach::OwnThenAny(principal) => principal,
        }
    }

    /// Records that this session reached another session's task `task_id`, if there is
    /// room ([`MAX_REACHED`]); whether the session changed.
    pub fn record_reached(&mut self, task_id: &str) -> bool {
        self.reached.len() < MAX_REACHED && self.reached.insert(task_id.to_owned())
    }

    /// When the session expires if nothing more arrives.
    pub fn expires_at_ms(&self, idle_ms: u64) -> u64 {
        self.last_seen_ms.saturating_add(idle_ms)
    }

    /// The session seen again at `now_ms`, when that is worth a write: `last_seen_ms` is
    /// kept to within an eighth of the idle time (so a busy session is not rewritten on
    /// every request), and `renew` says the ledger place must be renewed too (less than
    /// half the idle time left).
    pub fn touched(&self, now_ms: u64, idle_ms: u64) -> Option<(Session, bool)> {
        if now_ms.saturating_sub(self.last_seen_ms) < idle_ms / 8 {
            return None;
        }
        let mut session = self.clone();
        session.last_seen_ms = now_ms;
        let renew = self.held_until_ms.saturating_sub(now_ms) < idle_ms / 2;
        if renew {
            session.held_until_ms = now_ms.saturating_add(idle_ms);
        }
        Some((session, renew))
    }
}

/// `initialize`: the negotiated version (the client's if this server speaks it, else the
/// newest it does), the result, and the new session, opened by `caller`.
pub fn initialize(
    server: &Server,
    params: &Map<String, Value>,
    id: &str,
    caller: &str,
    now_ms: u64,
) -> Result<(Value, Session), McpError> {
    let InitializeParams {
        protocol_version: requested,
        capabilities,
        client_info,
    } = params::parse(params)?;
    let version = LEGACY_VERSIONS
        .iter()
        .find(|v| **v == requested)
        .copied()
        .unwrap_or(LEGACY_VERSIONS[0]);
    let result = payload(&InitializeResult {
        protocol_version: version,
        capabilities: capabilities_of(server),
        server_info: Implementation {
            name: &server.config.server_name,
            version: &server.config.server_version,
        },
        instructions: server.instructions.as_deref(),
    });
    let mut subscriptions = SortedSet::new();
    if server.tells_tool_changes() {
        subscriptions.insert(TOOLS_LISTED.to_owned());
    }
    let session = Session {
        id: id.to_owned(),
        principal: session_principal(caller, id).into_owned(),
        opened_by: caller.to_owned(),
        protocol_version: version.to_owned(),
        capabilities,
        client_info,
        log_level: None,
        subscriptions,
        created_at_ms: now_ms,
        last_seen_ms: now_ms,
        held_until_ms: now_ms.saturating_add(server.config.session_idle_ms),
        reached: SortedSet::new(),
    };
    Ok((result, session))
}

/// `InitializeResult` (2025-11-25 lifecycle).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InitializeResult<'a> {
    protocol_version: &'a str,
    capabilities: Value,
    server_info: Implementation<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
}

/// 2025-11-25 `ServerCapabilities`, with legacy tasks.
#[derive(Serialize)]
struct LegacyCapabilities {
    tools: ListChanged,
    logging: Empty,
    tasks: TasksCapability,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompts: Option<ListChanged>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resources: Option<ResourcesCapability>,
    #[serde(skip_serializing_if = "Option::is_none")]
    completions: Option<Empty>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListChanged {
    list_changed: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResourcesCapability {
    subscribe: bool,
    list_changed: bool,
}

/// `{"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}`.
#[derive(Serialize)]
struct TasksCapability {
    list: Empty,
    cancel: Empty,
    requests: OneEntry<'static, OneEntry<'static, Empty>>,
}

/// The server's capabilities as a 2025-11-25 client reads them (with legacy tasks).
pub fn capabilities_of(server: &Server) -> Value {
    payload(&LegacyCapabilities {
        tools: ListChanged {
            list_changed: server.tells_tool_changes(),
        },
        logging: Empty {},
        tasks: TasksCapability {
            list: Empty {},
            cancel: Empty {},
            requests: OneEntry("tools", OneEntry("call", Empty {})),
        },
        prompts: (!server.catalog.prompts.is_empty()).then_some(ListChanged {
            list_changed: false,
        }),
        resources: server
            .catalog
            .has_resources()
            .then_some(ResourcesCapability {
                subscribe: true,
                list_changed: false,
            }),
        completions: server.catalog.has_completions().then_some(Empty {}),
    })
}
