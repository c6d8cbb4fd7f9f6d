//! What a deployment says about its upstreams: `UPSTREAMS` (a JSON array) and the
//! `UPSTREAM_*` bounds (docs/gateway.md "Configuration").
//!
//! # Format
//!
//! ```text
//! UPSTREAMS = [{"name": "reports",                     1–32 of a-z 0-9 _ -, unique
//!               "url": "https://reports.example/mcp",   https (http on loopback only), or
//!               "binding": "REPORTS", "path": "/mcp",   a service binding (another Worker of
//!                                                       the account; path default /mcp)
//!               "prefix": "reports_",                   optional, put before every tool name
//!               "token": "REPORTS_TOKEN",               optional: the secret sent upstream
//!               "header": "x-api-key",                  optional: sent raw in this header
//!                                                       (default: Authorization: Bearer …)
//!               "tools": ["render", "export"],          optional allow-list (upstream names)
//!               "exclude": ["delete_all"],              optional deny-list
//!               "version": "2025-11-25"}]               optional: the revision spoken to
//!                                                       it (default: 2026-07-28 where its
//!                                                       server/discover offers it)
//! ```

use super::client::{MODERN, Sessions, VERSION};
use crate::host::AllowList;
use crate::uri::Uri;
use crate::vars::{ConfigError, number};
use serde::Deserialize;
use std::rc::Rc;

/// One upstream MCP server (see the module docs).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Upstream {
    pub name: String,
    /// Its endpoint (for a service binding: a URL naming the binding and `path`, see
    /// [`Upstream::endpoint`]).
    #[serde(default)]
    pub url: String,
    /// A service binding (`[[services]]` in wrangler.toml) instead of a URL.
    #[serde(default)]
    pub binding: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub prefix: String,
    /// The name of the secret (not its value) sent upstream.
    #[serde(default)]
    pub token: Option<String>,
    #[serde(default)]
    pub header: Option<String>,
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    #[serde(default)]
    pub exclude: Vec<String>,
    /// The protocol revision spoken to it, where the operator chooses: `2025-11-25` for a
    /// server whose tools ask mid-call in the way only that revision carries (a Python SDK
    /// 2.x tool's `ctx.elicit`); `None`, 2026-07-28 where its `server/discover` offers it.
    #[serde(default)]
    pub version: Option<String>,
    /// [`Upstream::allow_list`], worked out on first use (each call's session asks).
    #[serde(skip)]
    allow: Worked,
}

/// What an upstream's configuration implies, worked out once: not configuration, so every
/// two compare equal.
#[derive(Debug, Clone, Default)]
struct Worked(std::cell::OnceCell<AllowList>);

impl PartialEq for Worked {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Upstream {
    /// Whether the upstream's tool `name` (its own name, unprefixed) is offered.
    pub fn offers(&self, name: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|t| t.iter().any(|n| n == name))
            && !self.exclude.iter().any(|n| n == name)
    }

    /// The URL its requests name: its `url`, or for a service binding
    /// `https://<binding>.binding<path>` (the binding answers whatever the host).
    pub fn endpoint(&self) -> String {
        match &self.binding {
            Some(binding) => format!(
                "https://{}.binding{}",
                binding.to_ascii_lowercase(),
                self.path.as_deref().unwrap_or("/mcp")
            ),
            None => self.url.clone(),
        }
    }

    /// The hosts its requests may reach: its own URL's, and no other (no redirects are
    /// followed to an upstream's calls). A service binding is no host: nothing.
    pub fn allow_list(&self) -> &AllowList {
        self.allow.0.get_or_init(|| self.own_host())
    }

    fn own_host(&self) -> AllowList {
        if self.binding.is_some() {
            return AllowList::default();
        }
        // Checked by `Settings::with_vars`; an `Upstream` built by hand with a bad URL
        // reaches nothing.
        let Ok(url) = Uri::parse(&self.url) else {
            return AllowList::default();
        };
        let host = match url.port() {
            Some(port) => format!("{}:{port}", url.host_str()),
            None => url.host_str().to_owned(),
        };
        AllowList::parse(&host).unwrap_or_default()
    }

    fn check(&self) -> Result<(), String> {
        let name_ok = |n: &str, max: usize| {
            !n.is_empty()
                && n.len() <= max
                && n.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
        };
        if !name_ok(&self.name, 32) || self.name.contains('.') {
            return Err(format!(
                "an upstream's name is 1 to 32 of a-z A-Z 0-9 _ -, not {:?}",
                self.name
            ));
        }
        if !self.prefix.is_empty() && !name_ok(&self.prefix, 64) {
            return Err(format!(
                "upstream {}: the prefix must be tool-name characters (A-Z a-z 0-9 _ - .), not {:?}",
                self.name, self.prefix
            ));
        }
        if let Some(version) = &self.version
            && version != VERSION
            && version != MODERN
        {
            return Err(format!(
                "upstream {}: \"version\" is {VERSION:?} or {MODERN:?}, not {version:?}",
                self.name
            ));
        }
        if let Some(binding) = &self.binding {
            let named = !binding.is_empty()
                && binding
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !named || !self.url.is_empty() {
                return Err(format!(
                    "upstream {}: a binding is a binding's name (A-Z a-z 0-9 _), given instead of a url",
                    self.name
                ));
            }
            if self.path.as_deref().is_some_and(|p| !p.starts_with('/')) {
                return Err(format!(
                    "upstream {}: the path must start with /",
                    self.name
                ));
            }
            return self.check_token();
        }
        if self.path.is_some() {
            return Err(format!(
                "upstream {}: \"path\" goes with \"binding\"; put it in the url",
                self.name
            ));
        }
        let url = Uri::parse(&self.url)
            .map_err(|e| format!("upstream {}: url {:?}: {e}", self.name, self.url))?;
        let loopback = url.host().is_some_and(|host| host.is_loopback());
        if !(url.scheme() == "https" || (url.scheme() == "http" && loopback)) {
            return Err(format!(
                "upstream {}: the url must be https (http only on loopback, for development), not {:?}",
                self.name, self.url
            ));
        }
        if url.has_credentials() {
            return Err(format!(
                "upstream {}: put credentials in a secret named by \"token\", not in the url",
                self.name
            ));
        }
        self.check_token()
    }

    fn check_token(&self) -> Result<(), String> {
        if self.header.is_some() && self.token.is_none() {
            return Err(format!(
                "upstream {}: \"header\" names where the token goes, so \"token\" is needed too",
                self.name
            ));
        }
        Ok(())
    }
}

/// The gateway's settings: its upstreams and the bounds of their use.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub upstreams: Vec<Upstream>,
    /// How long a fetched tool list is used before it is fetched again.
    pub list_ttl_ms: u64,
    /// How often an isolate asks the watchers of the upstreams that declare
    /// `tools.listChanged` whether they heard a change (`gateway::watch`); 0: never.
    pub watch_check_ms: u64,
    /// The most tools one upstream may list (more: the listing is refused, not cut).
    pub max_tools: usize,
    /// The most bytes of one upstream answer read (a list, a result).
    pub max_bytes: usize,
    /// How long one held upstream call may take (an alarm runs at most 15 minutes).
    pub call_timeout_ms: u64,
    /// How long the Worker waits on a repeatable tool's call before the task object
    /// takes it over (and calls again).
    pub inline_ms: u64,
    /// Whether clients without the Tasks extension get jobs (`DETACH_JOBS`, set with the
    /// server's configuration).
    pub jobs: bool,
    /// The 2025-11-25 sessions this isolate keeps between inline calls (not configuration:
    /// shared by every copy of these settings).
    pub sessions: Rc<Sessions>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            upstreams: Vec::new(),
            list_ttl_ms: 60_000,
            watch_check_ms: 1_000,
            max_tools: 500,
            max_bytes: 4 * 1024 * 1024,
            call_timeout_ms: 600_000,
            inline_ms: 5_000,
            jobs: true,
            sessions: Rc::default(),
        }
    }
}

impl Settings {
    /// These settings with the variables `get` finds applied; `Err` names the bad one.
    pub fn with_vars(
        mut self,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Settings, ConfigError> {
        if let Some(v) = get("UPSTREAMS") {
            self.upstreams =
                parse(&v).map_err(|e| ConfigError::new("UPSTREAMS", format!("UPSTREAMS: {e}")))?;
        }
        if let Some(v) = get("UPSTREAM_LIST_TTL_MS") {
            self.list_ttl_ms = number("UPSTREAM_LIST_TTL_MS", &v)?;
        }
        if let Some(v) = get("UPSTREAM_WATCH_CHECK_MS") {
            self.watch_check_ms = number("UPSTREAM_WATCH_CHECK_MS", &v)?;
        }
        if let Some(v) = get("UPSTREAM_MAX_TOOLS") {
            self.max_tools = number::<u64>("UPSTREAM_MAX_TOOLS", &v)?.clamp(1, 10_000) as usize;
        }
        if let Some(v) = get("UPSTREAM_MAX_BYTES") {
            self.max_bytes = number::<u64>("UPSTREAM_MAX_BYTES", &v)?.max(1024) as usize;
        }
        if let Some(v) = get("UPSTREAM_CALL_TIMEOUT_MS") {
            // An alarm handler runs at most 15 minutes on Cloudflare.
            self.call_timeout_ms =
                number::<u64>("UPSTREAM_CALL_TIMEOUT_MS", &v)?.clamp(1_000, 840_000);
        }
        if let Some(v) = get("UPSTREAM_INLINE_MS") {
            self.inline_ms = number("UPSTREAM_INLINE_MS", &v)?;
        }
        Ok(self)
    }

    pub fn upstream(&self, name: &str) -> Option<&Upstream> {
        self.upstreams.iter().find(|u| u.name == name)
    }
}

/// `UPSTREAMS`: a JSON array of upstreams, each checked; names unique.
pub fn parse(value: &str) -> Result<Vec<Upstream>, String> {
    if value.trim().is_empty() {
        return Ok(Vec::new());
    }
    let upstreams: Vec<Upstream> =
        serde_json::from_str(value).map_err(|e| format!("not a JSON array of upstreams: {e}"))?;
    for (i, upstream) in upstreams.iter().enumerate() {
        upstream.check()?;
        if upstreams[..i].iter().any(|u| u.name == upstream.name) {
            return Err(format!(
                "the upstream name {:?} is used twice",
                upstream.name
            ));
        }
    }
    Ok(upstreams)
}
