//! Deployment variables (`[vars]`, `--var`, secrets): the one error a malformed value
//! makes, and the parsers the configurations share (`server::Config`, `host::Policy`,
//! `ops::log::LogSettings`, the gateway's `Settings`).

use crate::error::McpError;
use std::fmt;

/// A deployment variable this server cannot use. `variable` is what every caller is told
/// ([`McpError::Misconfigured`]: the name to fix); `reason` goes to the operator's log
/// only, as it may quote the value (a key, a secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub variable: &'static str,
    pub reason: String,
}

impl ConfigError {
    /// `reason` is the whole sentence, the variable's name first (`"OAUTH_ISSUER must be …"`).
    pub fn new(variable: &'static str, reason: impl Into<String>) -> ConfigError {
        ConfigError {
            variable,
            reason: reason.into(),
        }
    }

    /// The refusal every request gets while the deployment is misconfigured.
    pub fn refusal(&self) -> McpError {
        McpError::Misconfigured {
            what: self.variable.to_owned(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

/// A non-negative integer.
pub fn number<T: std::str::FromStr>(name: &'static str, value: &str) -> Result<T, ConfigError> {
    value.trim().parse().map_err(|_| {
        ConfigError::new(
            name,
            format!("{name} must be a non-negative integer, got {value:?}"),
        )
    })
}

/// `true`/`1` or `false`/`0`/empty.
pub fn flag(name: &'static str, value: &str) -> Result<bool, ConfigError> {
    match value.trim() {
        "true" | "1" => Ok(true),
        "false" | "0" | "" => Ok(false),
        other => Err(ConfigError::new(
            name,
            format!("{name} must be true or false, got {other:?}"),
        )),
    }
}

/// A number that may be `unlimited` (`None`).
pub fn limit(name: &'static str, value: &str) -> Result<Option<u64>, ConfigError> {
    if value.trim().eq_ignore_ascii_case("unlimited") {
        Ok(None)
    } else {
        number(name, value).map(Some)
    }
}
