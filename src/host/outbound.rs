//! Outbound HTTP requests and their answers, as plain values.

use super::HostError;
use crate::uri::Uri;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::time::Duration;

/// An HTTP request a tool sends: `get(url)`, `post(url).json(&body)?`, …
#[derive(Debug, Clone, PartialEq)]
pub struct Outbound {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The whole exchange (every redirect and the body included); `None`: the policy's
    /// (`FETCH_TIMEOUT_MS`).
    pub timeout_ms: Option<u64>,
    /// Answers with a longer body fail with [`HostError::TooLarge`]; `None`: the
    /// policy's (`FETCH_MAX_BYTES`).
    pub max_bytes: Option<usize>,
    /// Whether redirects are followed (each hop checked by the policy); `false` returns
    /// the 3xx answer itself.
    pub follow_redirects: bool,
}

/// A `GET` request.
pub fn get(url: impl Into<String>) -> Outbound {
    Outbound::new("GET", url)
}

/// A `POST` request (add a body with [`Outbound::json`] or [`Outbound::body`]).
pub fn post(url: impl Into<String>) -> Outbound {
    Outbound::new("POST", url)
}

impl Outbound {
    pub fn new(method: &str, url: impl Into<String>) -> Self {
        Outbound {
            method: method.to_ascii_uppercase(),
            url: url.into(),
            headers: Vec::new(),
            body: Vec::new(),
            timeout_ms: None,
            max_bytes: None,
            follow_redirects: true,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers
            .push((name.to_ascii_lowercase(), value.to_owned()));
        self
    }

    /// Whether the runtime can send this request as it is: its method an HTTP token, each
    /// header's name a token and its value made of field-value characters (RFC 9110 §9.1,
    /// §5.1, §5.5). `Refused` names the first that is not, before anything is sent.
    pub fn check(&self) -> Result<(), HostError> {
        if !crate::http::is_token(&self.method) {
            return Err(HostError::Refused(format!(
                "invalid method {:?}",
                self.method
            )));
        }
        self.headers
            .iter()
            .try_for_each(|(name, value)| crate::http::check_field(name, value))
            .map_err(HostError::Refused)
    }

    /// `Authorization: Bearer <token>`.
    pub fn bearer(self, token: &str) -> Self {
        self.header("authorization", &format!("Bearer {token}"))
    }

    /// A JSON body with `Content-Type: application/json`.
    pub fn json<T: Serialize + ?Sized>(self, body: &T) -> Self {
        // Serializing a `Serialize` value to JSON fails only for maps with non-string
        // keys; the body is then `null`, which the receiving API rejects visibly.
        let bytes = serde_json::to_vec(body).unwrap_or_else(|_| b"null".to_vec());
        self.header("content-type", "application/json").body(bytes)
    }

    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    /// The most the whole exchange may take (redirects and body included).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout_ms = Some(timeout.as_millis().min(u64::MAX as u128) as u64);
        self
    }

    /// The most of the answer's body that is read.
    pub fn max_bytes(mut self, max: usize) -> Self {
        self.max_bytes = Some(max);
        self
    }

    /// Returns a redirect answer as it is instead of following it.
    pub fn no_redirects(mut self) -> Self {
        self.follow_redirects = false;
        self
    }
}

/// The answer to an [`Outbound`] request.
#[derive(Debug, Clone, PartialEq)]
pub struct Inbound {
    pub status: u16,
    /// Lower-cased names.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The URL that answered (the last one, after redirects).
    pub url: String,
}

impl Inbound {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body as UTF-8 text.
    pub fn text(&self) -> Result<String, HostError> {
        String::from_utf8(self.body.clone())
            .map_err(|_| HostError::Decode(format!("the answer from {} is not UTF-8", self.url)))
    }

    /// The body as JSON.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, HostError> {
        crate::jsonrpc::read(&self.body).map_err(|e| {
            HostError::Decode(format!(
                "the answer from {} is not the expected JSON: {e}",
                self.url
            ))
        })
    }

    /// The `Location` header resolved against the URL that answered.
    pub fn location(&self) -> Result<String, HostError> {
        let location = self.header("location").ok_or_else(|| {
            HostError::Decode(format!("{} answered without a Location header", self.url))
        })?;
        resolve(&self.url, location)
    }
}

/// The first value of header `name` (any case) among an answer's `headers`.
pub(super) fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// `reference` resolved against `base` (RFC 3986 §5).
pub fn resolve(base: &str, reference: &str) -> Result<String, HostError> {
    let base = Uri::parse(base).map_err(|e| HostError::Decode(format!("bad URL {base:?}: {e}")))?;
    base.join(reference)
        .map(|uri| uri.as_str().to_owned())
        .map_err(|e| HostError::Decode(format!("bad URL reference {reference:?}: {e}")))
}
