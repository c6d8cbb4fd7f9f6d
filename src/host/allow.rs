//! Which hosts a tool may reach: a small allow-list, decided before any connection.
//!
//! # Format
//!
//! ```text
//! FETCH_ALLOWED_HOSTS = "api.example.com, 127.0.0.1:*, localhost:8080"
//!   host        that host on the scheme's default port (80 for http, 443 for https)
//!   host:port   that host on that port
//!   host:*      that host on any port
//!   *.domain    any host under domain (not domain itself), with a port as above
//!   *           any public host: not localhost, nor a loopback, private, link-local,
//!               shared or unspecified IP address (names are not resolved: a Worker's
//!               fetch does not reach private networks anyway)
//!   (empty)     nothing may be fetched
//! ```

use super::HostError;
use crate::uri::{Host, Uri};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct AllowList(Vec<(Pattern, Port)>);

#[derive(Debug, Clone, PartialEq)]
enum Pattern {
    Exact(String),
    /// `*.domain`: stored as `.domain`.
    Under(String),
    AnyPublic,
}

impl Pattern {
    fn matches(&self, host: &Host<'_>, shown: &str) -> bool {
        match self {
            Pattern::Exact(h) => h == shown,
            Pattern::Under(suffix) => {
                matches!(host, Host::Domain(_)) && shown.ends_with(suffix.as_str())
            }
            Pattern::AnyPublic => is_public(host),
        }
    }
}

/// Whether `host` may be a public address (see the module docs for `*`).
fn is_public(host: &Host<'_>) -> bool {
    match host {
        Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d != "localhost" && !d.ends_with(".localhost")
        }
        Host::Ipv4(ip) => {
            let [a, b, ..] = ip.octets();
            !(ip.is_loopback()
                || ip.is_private()
                || ip.is_link_local()
                || ip.is_unspecified()
                || ip.is_broadcast()
                || ip.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b)))
        }
        Host::Ipv6(ip) => {
            let first = ip.segments()[0];
            let mapped = ip.to_ipv4_mapped();
            !(ip.is_loopback()
                || ip.is_unspecified()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || mapped.is_some_and(|v4| !is_public(&Host::Ipv4(v4))))
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Port {
    Default,
    Exact(u16),
    Any,
}

impl AllowList {
    /// Parses the format above; an entry with a bad port is an error naming it.
    pub fn parse(spec: &str) -> Result<AllowList, String> {
        let mut entries = Vec::new();
        for entry in spec.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let entry = entry.to_ascii_lowercase();
            // `[::1]:8080` keeps its brackets: the port follows `]:`.
            let (host, port) = match entry.strip_prefix('[') {
                Some(rest) => match rest.split_once(']') {
                    Some((ip, tail)) => (format!("[{ip}]"), tail.strip_prefix(':')),
                    None => return Err(format!("unclosed [ in allowed host {entry:?}")),
                },
                None => match entry.rsplit_once(':') {
                    Some((h, p)) => (h.to_owned(), Some(p)),
                    None => (entry.clone(), None),
                },
            };
            let port = match port {
                None => Port::Default,
                Some("*") => Port::Any,
                Some(p) => Port::Exact(
                    p.parse()
                        .map_err(|_| format!("bad port in allowed host {entry:?}"))?,
                ),
            };
            let pattern = match host.as_str() {
                "" => return Err(format!("empty host in allowed host {entry:?}")),
                "*" => Pattern::AnyPublic,
                h => match h.strip_prefix("*.") {
                    Some("") => return Err(format!("empty domain in allowed host {entry:?}")),
                    Some(domain) if domain.contains('*') => {
                        return Err(format!("only a leading *. is allowed in {entry:?}"));
                    }
                    Some(domain) => Pattern::Under(format!(".{domain}")),
                    None if h.contains('*') => {
                        return Err(format!("only a leading *. is allowed in {entry:?}"));
                    }
                    None => Pattern::Exact(h.to_owned()),
                },
            };
            entries.push((pattern, port));
        }
        Ok(AllowList(entries))
    }

    /// Both lists' entries.
    pub fn union(&self, other: &AllowList) -> AllowList {
        let mut entries = self.0.clone();
        entries.extend(other.0.iter().cloned());
        AllowList(entries)
    }

    /// Whether nothing at all is allowed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok` if `url` is http(s) on an allowed host and port; else [`HostError::Refused`]
    /// naming the host.
    pub fn check(&self, url: &str) -> Result<(), HostError> {
        let parsed = Uri::parse(url)
            .map_err(|e| HostError::Refused(format!("{url:?} is not a valid URL ({e})")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(HostError::Refused(format!(
                "only http and https URLs may be fetched, not {}:",
                parsed.scheme()
            )));
        }
        let Some(parsed_host) = parsed.host() else {
            return Err(HostError::Refused(format!("{url:?} has no host")));
        };
        let host = parsed.host_str().to_ascii_lowercase();
        let port = parsed.port();
        let allowed = self.0.iter().any(|(pattern, p)| {
            pattern.matches(&parsed_host, &host)
                && match p {
                    Port::Any => true,
                    Port::Default => port.is_none(),
                    Port::Exact(n) => parsed.port_or_known_default() == Some(*n),
                }
        });
        if allowed {
            Ok(())
        } else {
            let shown = match port {
                Some(p) => format!("{host}:{p}"),
                None => host,
            };
            Err(HostError::Refused(format!(
                "the host {shown} is not in FETCH_ALLOWED_HOSTS"
            )))
        }
    }
}
