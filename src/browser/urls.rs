//! The little of URLs the client needs, in plain Rust: split an absolute `http(s)` URL,
//! read and write query parameters, form-encode a body. The `url` crate would do it all,
//! but its Unicode (IDNA) tables more than double the gzipped wasm (measured: 103 KB →
//! 233 KB), and the URLs here come from the browser (`location.href`, `new URL`) or from
//! metadata documents, already in their serialized ASCII form.

use std::net::Ipv4Addr;

/// An absolute URL, split (`scheme://authority/path?query#fragment`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts<'a> {
    /// Lowercase.
    pub scheme: String,
    /// `host[:port]`, without userinfo.
    pub authority: &'a str,
    /// Starts with `/` (`/` when the URL has no path).
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub fragment: Option<&'a str>,
}

/// Splits `url`; `None` unless it is `scheme://authority…` with a non-empty authority.
pub fn split(url: &str) -> Option<Parts<'_>> {
    let (scheme, rest) = url.split_once("://")?;
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return None;
    }
    let (rest, fragment) = match rest.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (rest, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    if authority.is_empty() || authority.contains(|c: char| c.is_whitespace() || c == '\\') {
        return None;
    }
    Some(Parts {
        scheme: scheme.to_ascii_lowercase(),
        authority,
        path,
        query,
        fragment,
    })
}

impl Parts<'_> {
    /// `scheme://host[:port]`, lowercase.
    pub fn origin(&self) -> String {
        format!("{}://{}", self.scheme, self.authority.to_ascii_lowercase())
    }

    /// The host without the port (IPv6 keeps its brackets).
    pub fn host(&self) -> &str {
        if self.authority.starts_with('[') {
            return self
                .authority
                .split_inclusive(']')
                .next()
                .unwrap_or(self.authority);
        }
        self.authority.split(':').next().unwrap_or(self.authority)
    }

    /// `localhost`, 127.0.0.0/8 or `[::1]`.
    pub fn is_loopback(&self) -> bool {
        let host = self.host();
        if host.eq_ignore_ascii_case("localhost") {
            return true;
        }
        // Browsers and metadata write IPv6 loopback compressed; the IPv6 parser is 2 KB.
        if host.starts_with('[') {
            return host == "[::1]";
        }
        host.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
    }

    /// The value of query parameter `name` (form-decoded), if present.
    pub fn param(&self, name: &str) -> Option<String> {
        params(self.query?).find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

/// The form-decoded pairs of a query string.
pub fn params(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query.split('&').filter(|p| !p.is_empty()).map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (decode(k), decode(v))
    })
}

/// `application/x-www-form-urlencoded` decoding (`+` is a space; bad escapes stay).
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                match (
                    bytes.get(i + 1).and_then(|b| hex(*b)),
                    bytes.get(i + 2).and_then(|b| hex(*b)),
                ) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 2;
                    }
                    _ => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `application/x-www-form-urlencoded` encoding of one name or value (WHATWG URL: only
/// ASCII alphanumerics and `*-._` stay; a space is `+`).
fn encode(text: &str, out: &mut String) {
    for b in text.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
}

/// A form body (or query) of `pairs`.
pub fn form(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (i, (name, value)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        encode(name, &mut out);
        out.push('=');
        encode(value, &mut out);
    }
    out
}

/// `url` with `pairs` appended to its query (before any fragment).
pub fn with_params(url: &str, pairs: &[(&str, &str)]) -> String {
    let (base, fragment) = match url.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (url, None),
    };
    let separator = match base.split_once('?') {
        None => "?",
        Some((_, "")) => "",
        Some(_) => "&",
    };
    let mut out = format!("{base}{separator}{}", form(pairs));
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// `url` without the query parameters named in `names` (the rest kept as written).
pub fn without_params(url: &str, names: &[&str]) -> String {
    let (base, fragment) = match url.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (url, None),
    };
    let (path, query) = base.split_once('?').unwrap_or((base, ""));
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| !names.contains(&decode(p.split('=').next().unwrap_or("")).as_str()))
        .collect();
    let mut out = path.to_owned();
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}
