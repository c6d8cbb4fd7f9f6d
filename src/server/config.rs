//! Server configuration, read from the Worker's environment (`[vars]` in wrangler.toml,
//! `--var` on `wrangler dev`, secrets in production). Every variable is optional and has
//! a documented default; a malformed value is an error at start-up, not a silent default.

use crate::auth::{self, AuthConfig};
use crate::host::Policy;
use crate::quota::Quotas;
use crate::uri::Uri;
use crate::vars::{ConfigError, flag, limit, number};

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub server_name: String,
    pub server_version: String,
    /// Origins allowed to call `/mcp` from a browser (exact origins, or
    /// `scheme://host:*` for any port). Requests without `Origin` are not browsers and pass.
    pub allowed_origins: Vec<String>,
    pub max_body_bytes: usize,
    /// Default task TTL; `None` is unlimited.
    pub task_ttl_ms: Option<u64>,
    /// Upper bound for any task TTL; `None` is unlimited.
    pub task_max_ttl_ms: Option<u64>,
    pub poll_interval_ms: u64,
    /// HMAC key for MRTR `requestState`. Without it, tools that ask for input fail with a
    /// clear internal error rather than trusting unsigned state.
    pub request_state_secret: Option<Vec<u8>>,
    pub request_state_ttl_ms: u64,
    /// How long a call of a client without the Tasks extension may take: an inline run
    /// of a tool that never detaches, or the wait on a job (`server::jobs`).
    pub inline_budget_ms: u64,
    /// Whether a client without the Tasks extension gets a job (`server::jobs`) when a
    /// tool needs more than one step (`DETACH_JOBS`, default on); off, it gets only what
    /// the specification gives it (-32021).
    pub detach_jobs: bool,
    /// Whether the conformance fixture tools are offered.
    pub fixtures: bool,
    /// The largest tool result (serialized JSON) a task keeps; larger ones fail the task.
    pub max_result_bytes: usize,
    /// Attempts at one task step before the task fails (an attempt is lost when the
    /// instance crashes, is evicted or redeployed mid-step).
    pub step_max_attempts: u32,
    /// How long one step may run before its attempt is presumed lost.
    pub step_lease_ms: u64,
    /// Whether 2025-11-25 clients (`initialize`, sessions) are served; off, they are told
    /// which versions this server speaks.
    pub legacy_sessions: bool,
    /// Socket reopens allowed per watched task per `subscriptions/listen` stream
    /// (`LISTEN_RECONNECTS`); past them the stream ends without its result.
    pub listen_reconnects: u32,
    /// How long a `subscriptions/listen` stream lives before it ends without its result,
    /// so the client reopens it (`LISTEN_MAX_MS`).
    pub listen_max_ms: u64,
    /// Who may call: OAuth issuer, API keys, anonymous access (`crate::auth`).
    pub auth: AuthConfig,
    /// Per-principal limits (`crate::quota`).
    pub quotas: Quotas,
    /// What tools may reach (`FETCH_*`, `crate::host::policy`).
    pub outbound: Policy,
    /// How long a 2025-11-25 session lives without a request before it is deleted.
    pub session_idle_ms: u64,
    /// What the adapters log (`LOG_LEVEL`, `LOG_PAYLOADS`; `crate::ops::log`).
    pub log: crate::ops::log::LogSettings,
    /// The upstream MCP servers whose tools this one offers (`UPSTREAMS`, `UPSTREAM_*`;
    /// `crate::gateway`).
    #[cfg(feature = "gateway")]
    pub gateway: crate::gateway::Settings,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            server_name: "mcp-tasks-edge".into(),
            server_version: env!("CARGO_PKG_VERSION").into(),
            allowed_origins: vec![
                "http://localhost:*".into(),
                "http://127.0.0.1:*".into(),
                "http://[::1]:*".into(),
            ],
            max_body_bytes: 1024 * 1024,
            task_ttl_ms: Some(3_600_000),
            task_max_ttl_ms: Some(86_400_000),
            poll_interval_ms: 1000,
            request_state_secret: None,
            request_state_ttl_ms: 600_000,
            inline_budget_ms: 30_000,
            detach_jobs: true,
            fixtures: false,
            max_result_bytes: 10 * 1024 * 1024,
            step_max_attempts: 3,
            step_lease_ms: 60_000,
            legacy_sessions: true,
            listen_reconnects: crate::server::listen::RECONNECTS,
            listen_max_ms: crate::server::listen::MAX_STREAM_MS,
            auth: AuthConfig {
                jwks_min_refetch_ms: 30_000,
                ..AuthConfig::default()
            },
            quotas: Quotas::default(),
            outbound: Policy::default(),
            session_idle_ms: 3_600_000,
            log: crate::ops::log::LogSettings::default(),
            #[cfg(feature = "gateway")]
            gateway: crate::gateway::Settings::default(),
        }
    }
}

/// How a variable of [`SETTINGS`] is read, and where its value goes.
enum Setting {
    Number(fn(&mut Config, u64)),
    /// A number, or `unlimited` (`None`).
    Limit(fn(&mut Config, Option<u64>)),
    Flag(fn(&mut Config, bool)),
}

/// The variables that are one number, limit or flag each (the others are read one by
/// one in [`Config::with_vars`]); bounds are applied as they are set.
const SETTINGS: [(&str, Setting); 21] = [
    (
        "MAX_BODY_BYTES",
        Setting::Number(|c, v| c.max_body_bytes = v as usize),
    ),
    ("TASK_TTL_MS", Setting::Limit(|c, v| c.task_ttl_ms = v)),
    (
        "TASK_MAX_TTL_MS",
        Setting::Limit(|c, v| c.task_max_ttl_ms = v),
    ),
    (
        "TASK_POLL_INTERVAL_MS",
        Setting::Number(|c, v| c.poll_interval_ms = v.max(1)),
    ),
    (
        "REQUEST_STATE_TTL_MS",
        Setting::Number(|c, v| c.request_state_ttl_ms = v),
    ),
    (
        "INLINE_BUDGET_MS",
        Setting::Number(|c, v| c.inline_budget_ms = v),
    ),
    ("DETACH_JOBS", Setting::Flag(|c, v| c.detach_jobs = v)),
    (
        "MAX_RESULT_BYTES",
        Setting::Number(|c, v| c.max_result_bytes = v as usize),
    ),
    (
        "STEP_MAX_ATTEMPTS",
        Setting::Number(|c, v| c.step_max_attempts = v.clamp(1, 100) as u32),
    ),
    (
        "STEP_LEASE_MS",
        Setting::Number(|c, v| c.step_lease_ms = v.max(1000)),
    ),
    (
        "LISTEN_RECONNECTS",
        Setting::Number(|c, v| c.listen_reconnects = v.min(10) as u32),
    ),
    (
        "LISTEN_MAX_MS",
        Setting::Number(|c, v| c.listen_max_ms = v.clamp(1_000, 3_600_000)),
    ),
    ("CONFORMANCE_FIXTURES", Setting::Flag(|c, v| c.fixtures = v)),
    (
        "LEGACY_SESSIONS",
        Setting::Flag(|c, v| c.legacy_sessions = v),
    ),
    (
        "OAUTH_JWKS_MIN_REFETCH_MS",
        Setting::Number(|c, v| c.auth.jwks_min_refetch_ms = v),
    ),
    (
        "ALLOW_ANONYMOUS",
        Setting::Flag(|c, v| c.auth.allow_anonymous = v),
    ),
    (
        "QUOTA_TASKS_PER_MINUTE",
        Setting::Limit(|c, v| c.quotas.tasks_per_minute = v),
    ),
    (
        "QUOTA_LIVE_TASKS",
        Setting::Limit(|c, v| c.quotas.live_tasks = v),
    ),
    (
        "QUOTA_LISTEN_STREAMS",
        Setting::Limit(|c, v| c.quotas.listen_streams = v),
    ),
    (
        "QUOTA_SESSIONS",
        Setting::Limit(|c, v| c.quotas.sessions = v),
    ),
    (
        "SESSION_IDLE_MS",
        Setting::Number(|c, v| c.session_idle_ms = v.max(1_000)),
    ),
];

/// A list separated by whitespace or commas.
fn words(value: &str) -> Vec<String> {
    value
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether `v` may be an issuer: https, or http on a loopback host (development and
/// tests); keys fetched in clear from anywhere else could be replaced on the way.
fn issuer_url(v: &str) -> bool {
    let Ok(url) = Uri::parse(v) else {
        return false;
    };
    let Some(host) = url.host() else {
        return false;
    };
    url.scheme() == "https" || (url.scheme() == "http" && host.is_loopback())
}

/// The shortest interval at which the server itself reads a task it follows (a job's wait
/// past its socket's reconnects, a 2025-11-25 `tasks/result`), whatever
/// `TASK_POLL_INTERVAL_MS` says to clients.
pub const SERVER_POLL_FLOOR_MS: u64 = 100;

impl Config {
    /// How often the server itself reads a task it follows: `TASK_POLL_INTERVAL_MS`, at
    /// least [`SERVER_POLL_FLOOR_MS`].
    pub fn server_poll_ms(&self) -> u64 {
        self.poll_interval_ms.max(SERVER_POLL_FLOOR_MS)
    }

    /// Builds the configuration from a variable lookup, over the defaults.
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        Config::default().with_vars(get)
    }

    /// This configuration with the variables that `get` finds applied over it.
    pub fn with_vars(self, get: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let mut c = self;
        for (name, setting) in &SETTINGS {
            let Some(v) = get(name) else { continue };
            match setting {
                Setting::Number(set) => set(&mut c, number(name, &v)?),
                Setting::Limit(set) => set(&mut c, limit(name, &v)?),
                Setting::Flag(set) => set(&mut c, flag(name, &v)?),
            }
        }
        if let Some(v) = get("SERVER_NAME") {
            c.server_name = v;
        }
        if let Some(v) = get("ALLOWED_ORIGINS") {
            c.allowed_origins = v
                .split(',')
                .map(|o| o.trim().to_owned())
                .filter(|o| !o.is_empty())
                .collect();
        }
        if let Some(v) = get("REQUEST_STATE_SECRET") {
            if v.len() < 16 {
                return Err(ConfigError::new(
                    "REQUEST_STATE_SECRET",
                    "REQUEST_STATE_SECRET must be at least 16 characters",
                ));
            }
            c.request_state_secret = Some(v.into_bytes());
        }
        if let Some(v) = get("OAUTH_ISSUER") {
            let v = v.trim();
            c.auth.issuer = if v.is_empty() {
                None
            } else if issuer_url(v) {
                Some(v.to_owned())
            } else {
                return Err(ConfigError::new(
                    "OAUTH_ISSUER",
                    format!(
                        "OAUTH_ISSUER must be an https URL (http only on loopback, for development), got {v:?}"
                    ),
                ));
            };
        }
        if let Some(v) = get("OAUTH_AUDIENCE") {
            c.auth.audiences = words(&v);
        }
        if let Some(v) = get("OAUTH_REQUIRED_SCOPES") {
            c.auth.required_scopes = words(&v);
        }
        if let Some(v) = get("API_KEYS") {
            c.auth.api_keys =
                auth::parse_api_keys(&v).map_err(|e| ConfigError::new("API_KEYS", e))?;
        }
        if let Some(v) = get("ADMIN_KEYS") {
            c.auth.admin_keys = auth::parse_api_keys(&v)
                .map_err(|e| ConfigError::new("ADMIN_KEYS", e.replace("API_KEYS", "ADMIN_KEYS")))?;
        }
        if let Some(v) = get("OAUTH_ADMIN_SCOPE") {
            let v = v.trim();
            c.auth.admin_scope = match words(v).as_slice() {
                [] => None,
                [scope] => Some(scope.clone()),
                _ => {
                    return Err(ConfigError::new(
                        "OAUTH_ADMIN_SCOPE",
                        format!("OAUTH_ADMIN_SCOPE must be one scope, got {v:?}"),
                    ));
                }
            };
        }
        if let Some(key) = c
            .auth
            .admin_keys
            .iter()
            .find(|a| c.auth.api_keys.iter().any(|k| k.digest == a.digest))
        {
            return Err(ConfigError::new(
                "ADMIN_KEYS",
                format!(
                    "ADMIN_KEYS: the key {:?} is also in API_KEYS; an operator key must be a key of its own",
                    key.name
                ),
            ));
        }
        c.outbound = c.outbound.with_vars(&get)?;
        c.log = c.log.with_vars(&get)?;
        #[cfg(feature = "gateway")]
        {
            c.gateway = c.gateway.with_vars(&get)?;
            c.gateway.jobs = c.detach_jobs;
        }
        // Said, not ignored: a deployment that lists upstreams expects their tools.
        #[cfg(not(feature = "gateway"))]
        if get("UPSTREAMS").is_some_and(|v| !v.trim().is_empty()) {
            return Err(ConfigError::new(
                "UPSTREAMS",
                "UPSTREAMS: this build has no gateway (the `gateway` feature of mcp-tasks-edge is off; docs/gateway.md)",
            ));
        }
        Ok(c)
    }

    /// The TTL for a new task: the tool's wish or the default, capped by the maximum.
    pub fn task_ttl(&self, tool_ttl_ms: Option<u64>) -> Option<u64> {
        let wanted = tool_ttl_ms.or(self.task_ttl_ms);
        match (wanted, self.task_max_ttl_ms) {
            (Some(w), Some(max)) => Some(w.min(max)),
            (None, max) => max,
            (w, None) => w,
        }
    }

    /// Whether a browser at `origin` may call the server. An origin is ASCII (RFC 6454
    /// §6.2): one that is not is never allowed, even by `*`, since it is echoed in
    /// `Access-Control-Allow-Origin`.
    pub fn origin_allowed(&self, origin: &str) -> bool {
        if !crate::http::is_valid_field_value(origin) {
            return false;
        }
        self.allowed_origins.iter().any(|allowed| {
            if allowed == "*" {
                return true;
            }
            match allowed.strip_suffix(":*") {
                // `http://localhost:*`: the origin without a port, or with any numeric port.
                Some(base) => {
                    origin == base
                        || origin
                            .strip_prefix(base)
                            .and_then(|rest| rest.strip_prefix(':'))
                            .is_some_and(|port| {
                                !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
                            })
                }
                None => origin == allowed,
            }
        })
    }
}
