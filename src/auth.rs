//! Who is calling: the server as an OAuth 2.1 resource server (MCP "Authorization"),
//! API keys for machine clients, and anonymous access for development. Pure: the
//! adapter supplies the time, fetches the issuer's keys and checks JWT signatures with
//! the runtime's WebCrypto; everything else is decided here.
//!
//! Order for `POST /mcp`: no `Authorization` → anonymous when allowed, else 401 (with a
//! "how to configure" message when nothing is configured); a bearer token whose SHA-256
//! is a configured API key → that key's principal; a JWT when `OAUTH_ISSUER` is set →
//! [`Outcome::Jwt`] (the adapter verifies the signature, then [`AuthConfig::grant`]);
//! anything else → 401 `invalid_token`. A presented token is never ignored, even when
//! anonymous access is allowed.

pub mod anonymous;
pub mod jwt;
pub mod keys;

pub use crate::http::challenge;

use crate::error::McpError;
use crate::http::Headers;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The principal of requests without credentials, when `ALLOW_ANONYMOUS=true`.
pub const ANONYMOUS: &str = "anonymous";

/// How an operator's principal starts: `admin:<name>` for a key of `ADMIN_KEYS`,
/// `admin:oauth:<hex>` for an OAuth token granting `OAUTH_ADMIN_SCOPE` (`crate::ops::admin`).
/// An operator is a principal of its own: its ordinary tasks are apart from anyone else's.
pub const OPERATOR_PREFIX: &str = "admin:";

/// The well-known paths of the Protected Resource Metadata (RFC 9728): the path-inserted
/// form for the `/mcp` resource, and the root form.
pub const PRM_PATHS: [&str; 2] = [
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-protected-resource",
];

/// One accepted API key: its name (the principal) and the SHA-256 of the key.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiKey {
    pub name: String,
    pub digest: [u8; 32],
}

/// Authentication settings (`OAUTH_*`, `API_KEYS`, `ALLOW_ANONYMOUS`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AuthConfig {
    /// `OAUTH_ISSUER`: the authorization server whose JWT access tokens are accepted.
    pub issuer: Option<String>,
    /// `OAUTH_AUDIENCE` (space- or comma-separated); empty: the server's canonical
    /// `/mcp` URL.
    pub audiences: Vec<String>,
    /// `OAUTH_REQUIRED_SCOPES` (space-separated): every one must be granted.
    pub required_scopes: Vec<String>,
    /// `API_KEYS`.
    pub api_keys: Vec<ApiKey>,
    /// `ADMIN_KEYS` (the format of `API_KEYS`): operators (`crate::ops::admin`).
    pub admin_keys: Vec<ApiKey>,
    /// `OAUTH_ADMIN_SCOPE`: a token granting this scope is an operator's.
    pub admin_scope: Option<String>,
    /// `ALLOW_ANONYMOUS`.
    pub allow_anonymous: bool,
    /// `OAUTH_JWKS_MIN_REFETCH_MS`: at most one JWKS refetch per this interval on an
    /// unknown `kid`.
    pub jwks_min_refetch_ms: u64,
}

/// What the request's credentials mean.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Authenticated (or anonymous, when allowed): the principal.
    Principal(String),
    /// A JWT to verify: the adapter checks its signature with the issuer's key, then
    /// calls [`AuthConfig::grant`].
    Jwt(Box<jwt::Token>),
    /// Refused: answer with this error.
    Refused(McpError),
}

/// The bearer token of `Authorization: Bearer <token>` (RFC 6750 section 2.1), if any.
/// `Err` when the header is present but not a bearer token.
pub fn bearer(headers: &Headers) -> Result<Option<String>, String> {
    let Some(value) = headers.get("authorization") else {
        return Ok(None);
    };
    let value = value.trim();
    match value.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => {
            let token = token.trim();
            if token.is_empty() || token.contains([' ', ',']) {
                Err("the Authorization header holds no single bearer token".into())
            } else {
                Ok(Some(token.to_owned()))
            }
        }
        _ => Err("the Authorization header is not a Bearer token".into()),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Constant-time equality of two digests.
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Parses `API_KEYS`: entries separated by commas or whitespace, each a lowercase
/// SHA-256 hex digest, optionally `name=digest`. An unnamed key's principal is its digest.
pub fn parse_api_keys(value: &str) -> Result<Vec<ApiKey>, String> {
    let mut keys = Vec::new();
    for entry in value
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|e| !e.is_empty())
    {
        let (name, digest) = match entry.split_once('=') {
            Some((name, digest)) => (name.to_owned(), digest),
            None => (entry.to_owned(), entry),
        };
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'@'))
        {
            return Err(format!(
                "API_KEYS: the name {name:?} must be letters, digits, '-', '_', '.' or '@'"
            ));
        }
        if digest.len() != 64
            || !digest
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(format!(
                "API_KEYS: {name:?} is not a lowercase SHA-256 hex digest (64 characters 0-9a-f; \
                 compute it with `printf %s \"$KEY\" | sha256sum`)"
            ));
        }
        let mut bytes = [0u8; 32];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&digest[2 * i..2 * i + 2], 16).expect("checked hex");
        }
        keys.push(ApiKey {
            name,
            digest: bytes,
        });
    }
    Ok(keys)
}

/// The protected resource metadata document (RFC 9728 section 2).
#[derive(Serialize)]
struct ResourceMetadata<'a> {
    resource: &'a str,
    bearer_methods_supported: &'static [&'static str],
    #[serde(skip_serializing_if = "Option::is_none")]
    authorization_servers: Option<[&'a str; 1]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scopes_supported: Option<&'a [String]>,
}

/// The principal of a JWT's subject: issuer and subject, hashed so that any characters
/// they hold fit a header and a Durable Object name.
pub fn oauth_principal(issuer: &str, subject: &str) -> String {
    let mut h = Sha256::new();
    h.update(issuer.as_bytes());
    h.update([0]);
    h.update(subject.as_bytes());
    format!("oauth:{}", hex(&h.finalize()))
}

impl AuthConfig {
    /// Whether any credential is configured.
    pub fn configured(&self) -> bool {
        self.issuer.is_some() || !self.api_keys.is_empty() || !self.admin_keys.is_empty()
    }

    /// Whether operators can authenticate at all (else the operator methods do not exist).
    pub fn has_operators(&self) -> bool {
        !self.admin_keys.is_empty() || (self.issuer.is_some() && self.admin_scope.is_some())
    }

    /// The audiences a token must name: `OAUTH_AUDIENCE`, else the resource URL.
    pub fn audiences(&self, resource: &str) -> Vec<String> {
        if self.audiences.is_empty() {
            vec![resource.to_owned()]
        } else {
            self.audiences.clone()
        }
    }

    /// Decides what the request's headers mean (see the module docs).
    pub fn authenticate(&self, headers: &Headers) -> Outcome {
        let token = match bearer(headers) {
            Ok(Some(token)) => token,
            Ok(None) if self.allow_anonymous => return Outcome::Principal(ANONYMOUS.into()),
            Ok(None) if !self.configured() => {
                return Outcome::Refused(McpError::Unauthorized {
                    error: None,
                    message: "This server accepts no requests yet: it has no credentials configured. \
                        Set OAUTH_ISSUER (an OAuth 2.1 authorization server issuing JWT access tokens) \
                        or API_KEYS (SHA-256 digests of accepted keys), or ALLOW_ANONYMOUS=true for \
                        development."
                        .into(),
                });
            }
            Ok(None) => {
                return Outcome::Refused(McpError::Unauthorized {
                    error: None,
                    message: "Authentication required: send Authorization: Bearer <token>".into(),
                });
            }
            Err(why) => return Outcome::Refused(invalid_token(why)),
        };
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        // Every key is compared, so the time taken does not say which one matched.
        let mut matched = None;
        for key in &self.api_keys {
            if same(&key.digest, &digest) && matched.is_none() {
                matched = Some(format!("key:{}", key.name));
            }
        }
        for key in &self.admin_keys {
            if same(&key.digest, &digest) && matched.is_none() {
                matched = Some(format!("{OPERATOR_PREFIX}{}", key.name));
            }
        }
        if let Some(principal) = matched {
            return Outcome::Principal(principal);
        }
        if self.issuer.is_some() && jwt::looks_like_jwt(&token) {
            return match jwt::parse(&token) {
                Ok(token) => Outcome::Jwt(Box::new(token)),
                Err(jwt::Invalid(why)) => Outcome::Refused(invalid_token(why)),
            };
        }
        Outcome::Refused(invalid_token(if self.issuer.is_some() {
            "the bearer token is neither an accepted API key nor a JWT access token"
        } else {
            "the bearer token is not an accepted API key"
        }))
    }

    /// After the adapter verified a token's signature: the claim rules and the scopes,
    /// then the principal.
    pub fn grant(
        &self,
        token: &jwt::Token,
        resource: &str,
        now_ms: u64,
    ) -> Result<String, McpError> {
        let issuer = self.issuer.as_deref().unwrap_or_default();
        let audiences = self.audiences(resource);
        let rules = jwt::ClaimRules {
            issuer,
            audiences: &audiences,
            now_ms,
        };
        let grant = jwt::check_claims(&token.claims, &rules)
            .map_err(|jwt::Invalid(why)| invalid_token(why))?;
        let missing: Vec<&String> = self
            .required_scopes
            .iter()
            .filter(|s| !grant.scopes.contains(s))
            .collect();
        if !missing.is_empty() {
            return Err(McpError::InsufficientScope {
                scope: self.required_scopes.join(" "),
                message: format!(
                    "The access token lacks the scope{} {} this server requires",
                    if missing.len() == 1 { "" } else { "s" },
                    missing
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            });
        }
        let principal = oauth_principal(&grant.issuer, &grant.subject);
        let operator = self
            .admin_scope
            .as_ref()
            .is_some_and(|scope| grant.scopes.contains(scope));
        Ok(if operator {
            format!("{OPERATOR_PREFIX}{principal}")
        } else {
            principal
        })
    }

    /// The Protected Resource Metadata document (RFC 9728 section 2) for `resource`.
    pub fn resource_metadata(&self, resource: &str) -> Value {
        crate::jsonrpc::payload(&ResourceMetadata {
            resource,
            bearer_methods_supported: &["header"],
            authorization_servers: self.issuer.as_deref().map(|issuer| [issuer]),
            scopes_supported: Some(self.required_scopes.as_slice()).filter(|s| !s.is_empty()),
        })
    }
}

/// 401 `invalid_token` with `why` as its description.
pub fn invalid_token(why: impl Into<String>) -> McpError {
    McpError::Unauthorized {
        error: Some("invalid_token"),
        message: format!("Invalid access token: {}", why.into()),
    }
}

/// The URL of the Protected Resource Metadata for the resource at `origin` + `/mcp`.
pub fn metadata_url(origin: &str) -> String {
    format!("{origin}{}", PRM_PATHS[0])
}
