//! The headers between the Worker and a 2025-11-25 session's object: what the Worker
//! forwards of a client's request with what it decided ([`Heads::forward`]), and what the
//! object reads back ([`Heads::read`]).

use super::SESSION_HEADER;
use super::plan::Incoming;
use crate::http::Headers;
use crate::tasks::protocol::{PRINCIPAL_HEADER, REQUEST_ID_HEADER};

/// What the session object reads off the headers of the Worker's request: the session
/// id and principal the Worker set, the client's `Last-Event-ID` and `Accept`, and the
/// Worker's request id (`trace`) for the log lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Heads {
    pub session_id: String,
    pub principal: String,
    pub last_event_id: Option<String>,
    pub accept: Option<String>,
    pub trace: Option<String>,
}

impl Heads {
    pub fn read(headers: &Headers) -> Heads {
        Heads {
            session_id: headers.get(SESSION_HEADER).unwrap_or_default(),
            principal: headers.get(PRINCIPAL_HEADER).unwrap_or_default(),
            last_event_id: headers.get("last-event-id"),
            accept: headers.get("accept"),
            trace: headers.get(REQUEST_ID_HEADER),
        }
    }

    /// The headers the Worker sends the session object with a client's request: the
    /// client's `Content-Type`, `Accept` and `Last-Event-ID` (nothing else of its own; one
    /// whose value is not made of field-value characters is not carried, as the runtime
    /// could not send it), and the session id, principal and request id the Worker decided:
    /// what [`Heads::read`] reads back.
    pub fn forward(
        client: &Headers,
        session_id: &str,
        principal: &str,
        trace: &str,
    ) -> Vec<(&'static str, String)> {
        let mut out: Vec<(&'static str, String)> = ["content-type", "accept", "last-event-id"]
            .into_iter()
            .filter_map(|name| client.get(name).map(|value| (name, value)))
            .filter(|(_, value)| crate::http::is_valid_field_value(value))
            .collect();
        out.push((SESSION_HEADER, session_id.to_owned()));
        out.push((PRINCIPAL_HEADER, principal.to_owned()));
        out.push((REQUEST_ID_HEADER, trace.to_owned()));
        out
    }

    /// The request as the planner sees it.
    pub fn incoming<'a>(&'a self, method: &'a str, body: &'a [u8]) -> Incoming<'a> {
        Incoming {
            method,
            session_id: &self.session_id,
            principal: &self.principal,
            last_event_id: self.last_event_id.as_deref(),
            accept: self.accept.as_deref(),
            body,
        }
    }
}
