//! Plain HTTP values the pure core reads and produces. The adapters translate their
//! platform's request/response types into these and back; nothing here does I/O.

pub mod channel;
pub mod sse;

/// Request headers with lower-cased names (RFC 9110: names are case-insensitive).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Headers(Vec<(String, String)>);

impl Headers {
    pub fn new() -> Self {
        Headers(Vec::new())
    }

    /// Headers of (name, value) pairs, the names lower-cased here (in place: no copy when
    /// they already are, as a runtime gives them).
    pub fn from_pairs(mut pairs: Vec<(String, String)>) -> Self {
        for (name, _) in &mut pairs {
            name.make_ascii_lowercase();
        }
        Headers(pairs)
    }

    /// Adds a header; the name is lower-cased here so lookups never have to.
    pub fn push(&mut self, name: &str, value: &str) {
        self.0.push((name.to_ascii_lowercase(), value.to_owned()));
    }

    /// The value of `name` (any case), or `None`. Repeated headers are joined with ", "
    /// as the Fetch API does, so both adapters see the same thing.
    pub fn get(&self, name: &str) -> Option<String> {
        let mut values = self
            .0
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str());
        let first = values.next()?;
        let mut joined = first.to_owned();
        for v in values {
            joined.push_str(", ");
            joined.push_str(v);
        }
        Some(joined)
    }

    /// The declared `Content-Length`, if present and a number.
    pub fn content_length(&self) -> Option<usize> {
        self.get("content-length")
            .and_then(|v| trim_ows(&v).parse::<usize>().ok())
    }
}

impl<const N: usize> From<[(&str, &str); N]> for Headers {
    fn from(pairs: [(&str, &str); N]) -> Self {
        let mut headers = Headers::new();
        for (n, v) in pairs {
            headers.push(n, v);
        }
        headers
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub method: String,
    /// The URL path, e.g. `/mcp`.
    pub path: String,
    pub headers: Headers,
    pub body: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl HttpResponse {
    pub fn json(status: u16, body: Vec<u8>) -> Self {
        HttpResponse {
            status,
            headers: vec![("content-type", "application/json".to_owned())],
            body,
        }
    }

    /// The head of a 200 server-sent-events stream (streamable-http): not cached, and
    /// not buffered by a proxy in between (`x-accel-buffering`), so each event leaves at
    /// once; its body is streamed by the adapter.
    pub fn event_stream() -> Self {
        HttpResponse {
            status: 200,
            headers: vec![
                ("content-type", EVENT_STREAM.to_owned()),
                ("cache-control", "no-cache".to_owned()),
                ("x-accel-buffering", "no".to_owned()),
            ],
            body: Vec::new(),
        }
    }

    pub fn empty(status: u16) -> Self {
        HttpResponse {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The media type of a server-sent-events response.
pub const EVENT_STREAM: &str = "text/event-stream";

/// Whether a request's `Accept` names `media_type` itself and does not refuse it: a
/// client that said it reads that type, not one that takes anything (`*/*`, or no
/// `Accept`), for answers it would not otherwise expect (a job's wait as a stream).
pub fn names(headers: &Headers, media_type: &str) -> bool {
    let listed = headers.get("accept").is_some_and(|accept| {
        accept
            .split(',')
            .filter_map(|range| range.split(';').next())
            .any(|name| trim_ows(name).eq_ignore_ascii_case(media_type))
    });
    listed && accepts(headers, media_type)
}

/// Whether a request's `Accept` lets the server answer with `media_type` (RFC 9110
/// §12.5.1): the most specific matching range decides (`type/subtype` over `type/*`
/// over `*/*`), `q=0` refuses, no matching range refuses, and a request without
/// `Accept` (or an empty one) takes anything.
///
/// # Format
///
/// ```text
/// Accept: application/json, text/event-stream     text/event-stream: yes
/// Accept: application/json                        text/event-stream: no
/// Accept: */*;q=0.1, text/event-stream;q=0        text/event-stream: no
/// (absent)                                        anything: yes
/// ```
pub fn accepts(headers: &Headers, media_type: &str) -> bool {
    let Some(accept) = headers.get("accept") else {
        return true;
    };
    if trim_ows(&accept).is_empty() {
        return true;
    }
    let (kind, _) = media_type.split_once('/').unwrap_or((media_type, ""));
    // (specificity, q) of the best-matching range so far.
    let mut best: Option<(u8, bool)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let name = trim_ows(parts.next().unwrap_or_default()).to_ascii_lowercase();
        let specificity = if name.eq_ignore_ascii_case(media_type) {
            3
        } else if name == format!("{kind}/*") {
            2
        } else if name == "*/*" {
            1
        } else {
            continue;
        };
        let refused = parts.any(|p| {
            let p = trim_ows(p);
            p.split_once('=').is_some_and(|(k, v)| {
                trim_ows(k).eq_ignore_ascii_case("q")
                    // `f64`, the float the JSON reader parses already (an `f32` parser
                    // would be a second one in the Worker).
                    && trim_ows(v).parse::<f64>().is_ok_and(|q| q <= 0.0)
            })
        });
        if best.is_none_or(|(s, _)| specificity > s) {
            best = Some((specificity, !refused));
        }
    }
    best.is_some_and(|(_, acceptable)| acceptable)
}

/// The origin (`scheme://host[:port]`) and the path of an absolute URL as a runtime
/// serializes it (WHATWG URL §4.5: a special scheme's path always begins with `/`, a
/// default port is left out, `?` and `#` within the path are percent-encoded), read off the
/// string instead of parsing it again. `None` for anything else (another scheme, userinfo,
/// no path), which the caller parses in full.
pub fn origin_and_path(url: &str) -> Option<(&str, &str)> {
    let scheme = url.find("://")?;
    if !matches!(&url[..scheme], "http" | "https") {
        return None;
    }
    let after = scheme + 3;
    let path_start = after + url[after..].find(['/', '?', '#'])?;
    if url[after..path_start].contains('@') || url.as_bytes()[path_start] != b'/' {
        return None;
    }
    let rest = &url[path_start..];
    let path = &rest[..rest.find(['?', '#']).unwrap_or(rest.len())];
    Some((&url[..path_start], path))
}

/// A request's origin and path: [`origin_and_path`] where it reads them, the full parse
/// (`uri::Uri`) where it declines; why not, if the URL is not one.
pub fn split_url(url: &str) -> Result<(String, String), String> {
    if let Some((origin, path)) = origin_and_path(url) {
        return Ok((origin.to_owned(), path.to_owned()));
    }
    let parsed = crate::uri::Uri::parse(url).map_err(|e| e.to_string())?;
    Ok((parsed.serialized_origin(), parsed.path().to_owned()))
}

/// OWS around a field value is not part of it (RFC 9110 §5.5).
pub fn trim_ows(value: &str) -> &str {
    value.trim_matches(|c| c == ' ' || c == '\t')
}

/// RFC 9110 §5.5 field-value characters: VCHAR, SP, HTAB (obs-text is refused).
pub fn is_valid_field_value(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b == b'\t' || b == b' ' || (0x21..=0x7e).contains(&b))
}

/// An HTTP token (RFC 9110 §5.6.2): what a field name is.
pub fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Header fields as one string of "name,value" lines, the form in which the Worker hands
/// them to the runtime in one piece (src/cloudflare/wire.js) and reads them back
/// ([`from_lines`]). A name that is not a token, or a value that is not made of field-value
/// characters, is refused (the runtime's `Headers` would throw on it), so that no name
/// holds a comma and no value a line break: the lines always read back as given.
pub fn lines<'a>(fields: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<String, String> {
    let mut lines = String::new();
    for (name, value) in fields {
        push_line(&mut lines, name, value)?;
    }
    Ok(lines)
}

/// Whether a header field can be sent as it is: its name a token, its value made of
/// field-value characters (what [`lines`] requires of each field).
pub fn check_field(name: &str, value: &str) -> Result<(), String> {
    if !is_token(name) {
        return Err(format!("invalid header name {name:?}"));
    }
    if !is_valid_field_value(value) {
        return Err(format!("invalid value of header {name}"));
    }
    Ok(())
}

/// One line of [`lines`] (not generic: one copy in the Worker, whatever the fields' shape).
fn push_line(lines: &mut String, name: &str, value: &str) -> Result<(), String> {
    check_field(name, value)?;
    if !lines.is_empty() {
        lines.push('\n');
    }
    lines.extend([name, ",", value]);
    Ok(())
}

/// The fields of [`lines`] (or of the runtime's headers joined the same way), in order.
pub fn from_lines(lines: &str) -> Vec<(String, String)> {
    lines
        .split('\n')
        .filter_map(|line| line.split_once(','))
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect()
}

/// A quoted-string for an auth-param (RFC 9110 section 5.6.4): printable ASCII without
/// `"` and `\`.
fn quoted(value: &str) -> String {
    let clean: String = value
        .chars()
        .map(|c| {
            if c == '"' || c == '\\' || !(' '..='~').contains(&c) {
                '\''
            } else {
                c
            }
        })
        .collect();
    format!("\"{clean}\"")
}

/// The `WWW-Authenticate` value of a 401 or 403 (RFC 6750 section 3, RFC 9728 section
/// 5.1): `Bearer resource_metadata="…"`, then `error`, `scope` and `error_description`
/// when they apply.
pub fn challenge(
    metadata_url: &str,
    error: Option<&str>,
    scope: Option<&str>,
    description: Option<&str>,
) -> String {
    let mut params = vec![format!("resource_metadata={}", quoted(metadata_url))];
    if let Some(error) = error {
        params.push(format!("error={}", quoted(error)));
    }
    if let Some(scope) = scope.filter(|s| !s.is_empty()) {
        params.push(format!("scope={}", quoted(scope)));
    }
    if let Some(description) = description {
        params.push(format!("error_description={}", quoted(description)));
    }
    format!("Bearer {}", params.join(", "))
}
