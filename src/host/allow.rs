//! Which hosts a tool may reach: a small allow-list, decided before any connection.
//!
//! # Format
//!
//! ```text
//! FETCH_ALLOWED_HOSTS = "api.example.com, 127.0.0.1:*, localhost:8080"
//!   host        that host on the scheme's default port (80 for http, 443 for https)
//!   host:port   that host on that port
//!   host:*      that host on any port
//!   (empty)     nothing may be fetched
//! ```

use super::HostError;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct AllowList(Vec<(String, Port)>);

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
            if host.is_empty() {
                return Err(format!("empty host in allowed host {entry:?}"));
            }
            entries.push((host, port));
        }
        Ok(AllowList(entries))
    }

    /// `Ok` if `url` is http(s) on an allowed host and port; else [`HostError::Refused`]
    /// naming the host.
    pub fn check(&self, url: &str) -> Result<(), HostError> {
        let parsed = url::Url::parse(url)
            .map_err(|e| HostError::Refused(format!("{url:?} is not a valid URL ({e})")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(HostError::Refused(format!(
                "only http and https URLs may be fetched, not {}:",
                parsed.scheme()
            )));
        }
        let host = match parsed.host() {
            Some(url::Host::Ipv6(ip)) => format!("[{ip}]"),
            Some(h) => h.to_string().to_ascii_lowercase(),
            None => return Err(HostError::Refused(format!("{url:?} has no host"))),
        };
        let port = parsed.port();
        let allowed = self.0.iter().any(|(h, p)| {
            *h == host
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
