//! URLs as the WHATWG URL Standard parses them (<https://url.spec.whatwg.org/>), the one
//! parser behind the outbound policy, the configured URLs and JSON Schema's `$id`/`$ref`.
//!
//! In a Worker or a page it is the runtime's own `URL` (a pure function the runtime already
//! has, like `JSON`), natively the `url` crate, which implements the same standard: the
//! Worker carries no URL parser of its own (the starter's Worker is 23.6 KiB smaller
//! gzipped without `url` and its IDNA code). One table of URLs, attacks on the outbound
//! policy included, runs through both (`tests/uri.rs` natively, `tests/browser/uri.rs` in
//! Chromium and Firefox); `tests/e2e/outbound.test.mjs` runs the policy under workerd.
//!
//! What a `Uri` keeps is what the standard serializes (`href`, `hostname`, `port`,
//! `pathname`), so both parsers fill it the same way and everything else is read off it.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

/// An absolute URL, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uri {
    href: String,
    /// WHATWG `hostname`: an IPv6 address in brackets, empty when there is none.
    hostname: String,
    /// The port when it is not the scheme's default.
    port: Option<u16>,
    path: String,
}

/// A URL's host, as the standard classifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host<'a> {
    Domain(&'a str),
    Ipv4(Ipv4Addr),
    Ipv6(Ipv6Addr),
}

impl Host<'_> {
    /// `localhost` or a loopback address: this machine, in any spelling the standard leaves.
    pub fn is_loopback(&self) -> bool {
        match self {
            Host::Domain(name) => *name == "localhost",
            Host::Ipv4(ip) => ip.is_loopback(),
            Host::Ipv6(ip) => ip.is_loopback(),
        }
    }
}

/// Not a URL (or, for [`Uri::join`], not a reference to one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriError;

impl fmt::Display for UriError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a valid URL")
    }
}

impl std::error::Error for UriError {}

/// The schemes the standard calls special, with their default ports (`file` has none).
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "ftp" => Some(21),
        _ => None,
    }
}

impl Uri {
    /// `input` parsed as an absolute URL.
    pub fn parse(input: &str) -> Result<Uri, UriError> {
        parse(input, None)
    }

    /// `reference` resolved against this URL (RFC 3986 §5, as the standard does it).
    pub fn join(&self, reference: &str) -> Result<Uri, UriError> {
        parse(reference, Some(&self.href))
    }

    pub fn as_str(&self) -> &str {
        &self.href
    }

    /// The scheme, without its `:`.
    pub fn scheme(&self) -> &str {
        // The serialization begins with the scheme and its `:` (URL Standard §4.5).
        self.href.split_once(':').map_or("", |(scheme, _)| scheme)
    }

    pub fn host(&self) -> Option<Host<'_>> {
        let name = self.hostname.as_str();
        if name.is_empty() {
            return None;
        }
        if let Some(ip) = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
            return ip.parse().ok().map(Host::Ipv6);
        }
        // A special scheme's host that ends in a number is an IPv4 address, serialized
        // dotted-decimal; any other host is a name, whatever it looks like.
        let special = default_port(self.scheme()).is_some() || self.scheme() == "file";
        match name.parse() {
            Ok(ip) if special => Some(Host::Ipv4(ip)),
            _ => Some(Host::Domain(name)),
        }
    }

    /// The host as the URL writes it (IPv6 in brackets); empty when there is none.
    pub fn host_str(&self) -> &str {
        &self.hostname
    }

    /// Whether the URL carries a username or a password. In the serialization an `@` of
    /// the authority ends the userinfo: one within it is percent-encoded, and a host has none.
    pub fn has_credentials(&self) -> bool {
        let Some((_, rest)) = self.href.split_once("://") else {
            return false;
        };
        rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())].contains('@')
    }

    /// The port, unless it is absent or the scheme's default.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    pub fn port_or_known_default(&self) -> Option<u16> {
        self.port.or_else(|| default_port(self.scheme()))
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    /// The fragment, without its `#` (`Some("")` for a bare `#`). The serialization's first
    /// `#` begins it: one anywhere before is percent-encoded.
    pub fn fragment(&self) -> Option<&str> {
        self.href.split_once('#').map(|(_, fragment)| fragment)
    }

    /// The same URL without its fragment.
    pub fn without_fragment(&self) -> Uri {
        let mut uri = self.clone();
        if let Some(at) = uri.href.find('#') {
            uri.href.truncate(at);
        }
        uri
    }

    /// `scheme://host[:port]` for the schemes whose origin is a tuple (http, https, ws, wss,
    /// ftp); `None` for the rest, whose origin is opaque and equal to no other.
    pub fn origin(&self) -> Option<String> {
        default_port(self.scheme())?;
        Some(match self.port {
            Some(port) => format!("{}://{}:{port}", self.scheme(), self.hostname),
            None => format!("{}://{}", self.scheme(), self.hostname),
        })
    }

    /// The origin's ASCII serialization (HTML "Serializing origins"): [`Uri::origin`], or
    /// `null` for an opaque one.
    pub fn serialized_origin(&self) -> String {
        self.origin().unwrap_or_else(|| "null".to_owned())
    }

    /// Whether both have the same tuple origin (RFC 6454: never for opaque ones).
    pub fn same_origin(&self, other: &Uri) -> bool {
        self.origin()
            .is_some_and(|origin| other.origin() == Some(origin))
    }
}

impl fmt::Display for Uri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.href)
    }
}

#[cfg(not(all(
    target_arch = "wasm32",
    any(feature = "cloudflare", feature = "browser")
)))]
fn parse(input: &str, base: Option<&str>) -> Result<Uri, UriError> {
    let url = match base {
        Some(base) => url::Url::parse(base).and_then(|base| base.join(input)),
        None => url::Url::parse(input),
    }
    .map_err(|_| UriError)?;
    Ok(Uri {
        hostname: url.host_str().unwrap_or_default().to_owned(),
        port: url.port(),
        path: url.path().to_owned(),
        href: String::from(url),
    })
}

#[cfg(all(
    target_arch = "wasm32",
    any(feature = "cloudflare", feature = "browser")
))]
fn parse(input: &str, base: Option<&str>) -> Result<Uri, UriError> {
    let parts = runtime::parse(input, base).ok_or(UriError)?;
    // A serialized URL has no line feed (the parser removes them), so it separates.
    let mut parts = parts.split('\n');
    let (Some(href), Some(hostname), Some(port), Some(path)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(UriError);
    };
    Ok(Uri {
        href: href.to_owned(),
        hostname: hostname.to_owned(),
        port: port.parse().ok(),
        path: path.to_owned(),
    })
}

#[cfg(all(
    target_arch = "wasm32",
    any(feature = "cloudflare", feature = "browser")
))]
mod runtime {
    use wasm_bindgen::prelude::wasm_bindgen;

    #[wasm_bindgen(inline_js = "export function parse(input, base) {
  try {
    const u = new URL(input, base);
    return [u.href, u.hostname, u.port, u.pathname].join('\\n');
  } catch {
    return undefined;
  }
}")]
    extern "C" {
        /// `href`, `hostname`, `port` and `pathname` of `new URL(input, base)`, one per
        /// line; `None` when it throws.
        pub(super) fn parse(input: &str, base: Option<&str>) -> Option<String>;
    }
}
