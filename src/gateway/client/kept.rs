//! 2025-11-25 sessions kept between the inline calls of one isolate (`gateway::step`, the
//! Worker's calls of repeatable tools). Without them each such call costs four requests
//! upstream: `initialize`, `notifications/initialized`, the call, and the session's DELETE.
//! With them it costs one, once the isolate opened its session.
//! - **Per caller.** A session is kept per upstream, per caller (the principal) and per
//!   capabilities its calls declare (what the caller can be asked): what an upstream keeps
//!   in a session (a tool may set state there) never reaches another caller. Concurrent
//!   calls of one caller share it, each with a block of request ids of its own: the
//!   upstream routes answers by id within a session. A call without a caller of its own (an
//!   anonymous one: anonymous callers are strangers to each other) gets a session for
//!   itself alone, closed after the call.
//! - **Idle.** One unused for longer than [`IDLE_MS`] is closed rather than reused (the
//!   upstream may have forgotten it).
//! - **Ended.** One that ended upstream (HTTP 404) is forgotten, and the call, which it never
//!   ran, is made on a new one (MCP 2025-11-25 transports, "Session Management": on a 404
//!   the client MUST start a new session).
//! - **Bounded.** At most [`MAX_KEPT`] are kept; the least recently used is closed first.
//!
//! A task object's calls never use them: a held call's session is stored in its checkpoint
//! and closed when the call ends, and a cancel closes it.

use super::{Bounds, Session, UpstreamError};
use crate::gateway::Upstream;
use crate::host::Host;
use serde_json::{Map, Value};
use std::cell::RefCell;

/// How long an unused session is reused.
pub const IDLE_MS: u64 = 5 * 60_000;
/// The most sessions an isolate keeps.
pub const MAX_KEPT: usize = 16;
/// The request ids each call takes from a kept session.
const ID_BLOCK: u64 = 1_000;

/// The sessions an isolate keeps (see the module docs). Part of the gateway's settings,
/// which an isolate keeps for its life; not configuration, so every two compare equal.
#[derive(Default)]
pub struct Sessions(RefCell<Vec<Kept>>);

struct Kept {
    upstream: Upstream,
    principal: Option<String>,
    declared: Value,
    id: String,
    version: String,
    capabilities: Map<String, Value>,
    next_id: u64,
    used_at_ms: u64,
}

impl Kept {
    fn serves(&self, upstream: &Upstream, principal: Option<&str>, declared: &Value) -> bool {
        self.upstream.name == upstream.name
            && self.principal.as_deref() == principal
            && &self.declared == declared
    }

    /// Closes it: it will not be used again.
    async fn close(self, host: &Host, bounds: Bounds) {
        if let Ok(session) = Session::resume(host, &self.upstream, Some(self.id), &self.version) {
            session.close(bounds).await;
        }
    }
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sessions({} kept)", self.0.borrow().len())
    }
}

impl PartialEq for Sessions {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Sessions {
    /// A session of `principal` with `upstream` in its era `version` declaring `declared`
    /// (see [`Session::start`]): at 2025-11-25 the kept one if there is one, else one
    /// opened now. Kept sessions gone idle are closed first.
    pub async fn start(
        &self,
        host: &Host,
        upstream: &Upstream,
        principal: Option<&str>,
        version: &str,
        bounds: Bounds,
        declared: Value,
    ) -> Result<Session, UpstreamError> {
        let now = host.now_ms();
        let idle: Vec<Kept> = self
            .0
            .borrow_mut()
            .extract_if(.., |k| now.saturating_sub(k.used_at_ms) > IDLE_MS)
            .collect();
        for old in idle {
            old.close(host, bounds).await;
        }
        if principal.is_none() {
            return Session::start(host, upstream, version, bounds, declared).await;
        }
        let found = self
            .0
            .borrow_mut()
            .iter_mut()
            .find(|k| k.serves(upstream, principal, &declared))
            .map(|k| {
                k.used_at_ms = now;
                k.next_id += ID_BLOCK;
                let first_id = k.next_id - ID_BLOCK;
                (
                    k.id.clone(),
                    k.version.clone(),
                    k.capabilities.clone(),
                    first_id,
                )
            });
        let Some((id, version, capabilities, first_id)) = found else {
            return Session::start(host, upstream, version, bounds, declared).await;
        };
        let mut session = Session::resume(host, upstream, Some(id), &version)?;
        session.capabilities = capabilities;
        session.declared = declared;
        session.skip_to(first_id + 1);
        Ok(session)
    }

    /// Keeps `session` for `principal`'s next calls (one with a session id, at 2025-11-25).
    /// When one is kept already for the same upstream, caller and capabilities, `session` is
    /// closed instead; past [`MAX_KEPT`], the least recently used kept one is.
    pub async fn keep(&self, session: Session, principal: Option<&str>, bounds: Bounds) {
        let Some(id) = session.id.clone().filter(|_| !session.is_modern()) else {
            return;
        };
        if principal.is_none() {
            return session.close(bounds).await;
        }
        let now = session.host.now_ms();
        let evicted = {
            let mut kept = self.0.borrow_mut();
            match kept
                .iter_mut()
                .find(|k| k.serves(&session.upstream, principal, &session.declared))
            {
                Some(k) if k.id == id => {
                    k.used_at_ms = now;
                    return;
                }
                Some(_) => None,
                None => {
                    kept.push(Kept {
                        upstream: session.upstream.clone(),
                        principal: principal.map(str::to_owned),
                        declared: session.declared.clone(),
                        id,
                        version: session.version.clone(),
                        capabilities: session.capabilities.clone(),
                        next_id: session.next_id,
                        used_at_ms: now,
                    });
                    if kept.len() <= MAX_KEPT {
                        return;
                    }
                    let oldest = (0..kept.len()).min_by_key(|&i| kept[i].used_at_ms);
                    oldest.map(|i| kept.remove(i))
                }
            }
        };
        match evicted {
            Some(old) => old.close(&session.host, bounds).await,
            None => session.close(bounds).await,
        }
    }

    /// Forgets `session` if it is kept (it ended upstream).
    pub fn forget(&self, session: &Session) {
        if let Some(id) = &session.id {
            self.0.borrow_mut().retain(|k| &k.id != id);
        }
    }
}
