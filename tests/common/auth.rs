//! What the authentication tests share (tests/auth.rs, tests/auth_jwt.rs): the issuer and
//! resource they name, configurations from variables, API key digests, and unsigned JWTs
//! with good claims.

use super::NOW;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use mcp_tasks_edge::auth::AuthConfig;
use mcp_tasks_edge::server::Config;
use mcp_tasks_edge::vars::ConfigError;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

pub const ISSUER: &str = "https://issuer.example";
pub const RESOURCE: &str = "https://mcp.example/mcp";

pub fn digest(key: &str) -> String {
    Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
    Config::from_vars(|name| {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
    })
}

pub fn auth_with(vars: &[(&str, &str)]) -> AuthConfig {
    config(vars).unwrap().auth
}

pub fn jwt(header: Value, claims: Value) -> String {
    format!(
        "{}.{}.{}",
        B64.encode(header.to_string()),
        B64.encode(claims.to_string()),
        B64.encode([7u8; 64])
    )
}

pub fn claims() -> Value {
    let now = NOW / 1000;
    json!({ "iss": ISSUER, "sub": "alice", "aud": RESOURCE, "exp": now + 600, "iat": now, "scope": "mcp:tools extra" })
}
