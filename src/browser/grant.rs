//! The grant of a sign-in, in plain Rust (the flow is drawn in `oauth.rs`): the PKCE
//! pair, the authorization request, its callback, the token requests and their answers.

use super::error::ClientError;
use super::oauth::{AuthorizationServer, SignInDetails, failure, text};
use super::urls;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A token this close to its expiry is refreshed before it is sent.
pub const REFRESH_MARGIN_MS: f64 = 30_000.0;

/// Random bytes as an unpadded base64url string (PKCE verifier: 32 bytes → 43 chars,
/// RFC 7636 section 4.1; `state`).
pub fn random_string(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// `code_challenge` for `verifier`: BASE64URL(SHA256(verifier)) (RFC 7636 section 4.2).
pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// An authorization in flight: what the callback and the code exchange need. Kept in
/// memory for a popup, in `sessionStorage` across a redirect.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pending {
    pub server: AuthorizationServer,
    pub client_id: String,
    pub redirect_uri: String,
    pub resource: String,
    pub scope: Option<String>,
    pub state: String,
    pub verifier: String,
}

impl Pending {
    pub fn to_json(&self) -> Value {
        crate::jsonrpc::payload(self)
    }

    pub fn from_json(doc: &Value) -> Option<Self> {
        Some(Pending {
            server: AuthorizationServer::from_json(doc.get("server")?)?,
            client_id: text(doc, "client_id")?,
            redirect_uri: text(doc, "redirect_uri")?,
            resource: text(doc, "resource")?,
            scope: text(doc, "scope"),
            state: text(doc, "state")?,
            verifier: text(doc, "verifier")?,
        })
    }

    /// The authorization request URL (RFC 6749 section 4.1.1 with PKCE and `resource`).
    pub fn authorization_url(&self) -> String {
        let challenge = s256(&self.verifier);
        let mut pairs = vec![
            ("response_type", "code"),
            ("client_id", self.client_id.as_str()),
            ("redirect_uri", self.redirect_uri.as_str()),
            ("state", self.state.as_str()),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("resource", self.resource.as_str()),
        ];
        if let Some(scope) = &self.scope {
            pairs.push(("scope", scope));
        }
        urls::with_params(&self.server.authorization_endpoint, &pairs)
    }

    /// Whether `href` is this authorization's callback: the redirect URI's origin carrying
    /// our `state` (128 random bits of this sign-in). The path is not compared: hosts
    /// rewrite it (Workers static assets redirect `/signed-in.html` to `/signed-in`).
    pub fn is_callback(&self, href: &str) -> bool {
        let (Some(at), Some(redirect)) = (urls::split(href), urls::split(&self.redirect_uri))
        else {
            return false;
        };
        at.origin() == redirect.origin()
            && at.param("state").as_deref() == Some(self.state.as_str())
    }

    /// The code of callback `href` (RFC 6749 section 4.1.2), or the refusal it reports.
    /// `iss`, when present, must be our issuer (RFC 9207: mix-up defence).
    pub fn read_callback(&self, href: &str) -> Result<String, ClientError> {
        let at = urls::split(href).ok_or_else(|| {
            failure(
                "authorization",
                "the callback is not a URL",
                SignInDetails::default(),
            )
        })?;
        if at.param("state").as_deref() != Some(self.state.as_str()) {
            return Err(failure(
                "authorization",
                "the callback's state does not match this sign-in",
                SignInDetails::default(),
            ));
        }
        if let Some(iss) = at.param("iss")
            && iss != self.server.issuer
        {
            return Err(failure(
                "authorization",
                format!(
                    "the callback comes from issuer {iss:?}, not {}",
                    self.server.issuer
                ),
                SignInDetails {
                    issuer: Some(&self.server.issuer),
                    ..SignInDetails::default()
                },
            ));
        }
        if let Some(error) = at.param("error") {
            let description = at.param("error_description");
            return Err(failure(
                "authorization",
                format!(
                    "the authorization server {} answered {error}{}",
                    self.server.issuer,
                    description
                        .as_deref()
                        .map(|d| format!(": {d}"))
                        .unwrap_or_default()
                ),
                SignInDetails {
                    error: Some(&error),
                    error_description: Some(description.as_deref()),
                    ..SignInDetails::default()
                },
            ));
        }
        at.param("code").ok_or_else(|| {
            failure(
                "authorization",
                "the callback carries no code",
                SignInDetails::default(),
            )
        })
    }

    /// The token request body exchanging `code` (RFC 6749 section 4.1.3, RFC 7636 4.5).
    pub fn code_grant(&self, code: &str) -> String {
        urls::form(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", &self.redirect_uri),
            ("client_id", &self.client_id),
            ("code_verifier", &self.verifier),
            ("resource", &self.resource),
        ])
    }
}

/// `href` without the callback's parameters (what the address bar shows afterwards).
pub fn without_callback_params(href: &str) -> String {
    urls::without_params(
        href,
        &[
            "code",
            "state",
            "iss",
            "error",
            "error_description",
            "error_uri",
        ],
    )
}

/// What a sign-in keeps: the tokens and where to refresh them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tokens {
    pub access_token: String,
    pub refresh_token: Option<String>,
    /// Milliseconds since the epoch; `None` when the server gave no `expires_in`.
    pub expires_at: Option<f64>,
    /// Who issued them (the refresh goes to its token endpoint).
    pub server: AuthorizationServer,
}

impl Tokens {
    pub fn to_json(&self) -> Value {
        crate::jsonrpc::payload(self)
    }

    pub fn from_json(doc: &Value) -> Option<Self> {
        Some(Tokens {
            access_token: text(doc, "access_token")?,
            refresh_token: text(doc, "refresh_token"),
            expires_at: doc.get("expires_at").and_then(Value::as_f64),
            server: AuthorizationServer::from_json(doc.get("server")?)?,
        })
    }

    /// Whether the access token should be refreshed before use at time `now` (ms).
    pub fn stale(&self, now: f64) -> bool {
        self.expires_at
            .is_some_and(|at| at - now < REFRESH_MARGIN_MS)
    }

    /// The refresh request body (RFC 6749 section 6), if there is a refresh token.
    pub fn refresh_grant(&self, client_id: &str, resource: &str) -> Option<String> {
        let refresh = self.refresh_token.as_ref()?;
        Some(urls::form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh),
            ("client_id", client_id),
            ("resource", resource),
        ]))
    }
}

/// Reads a token endpoint answer (RFC 6749 sections 5.1 and 5.2) received at `now` (ms).
/// A refresh that returns no new refresh token keeps `previous_refresh`.
pub fn read_token_response(
    status: u16,
    body: &str,
    now: f64,
    server: &AuthorizationServer,
    previous_refresh: Option<&str>,
) -> Result<Tokens, ClientError> {
    let doc: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let field = |name: &str| doc.get(name).and_then(Value::as_str);
    if let Some(error) = field("error").filter(|_| !(200..300).contains(&status)) {
        return Err(failure(
            "token",
            format!(
                "the token endpoint of {} answered {error}{}",
                server.issuer,
                field("error_description")
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            ),
            SignInDetails {
                error: Some(error),
                error_description: Some(field("error_description")),
                http_status: Some(status),
                ..SignInDetails::default()
            },
        ));
    }
    let access = field("access_token").filter(|_| (200..300).contains(&status));
    let Some(access_token) = access else {
        return Err(failure(
            "token",
            format!(
                "the token endpoint of {} answered HTTP {status} without an access_token",
                server.issuer
            ),
            SignInDetails {
                http_status: Some(status),
                ..SignInDetails::default()
            },
        ));
    };
    if !field("token_type").is_some_and(|t| t.eq_ignore_ascii_case("bearer")) {
        return Err(failure(
            "token",
            format!(
                "the token endpoint of {} issued a token that is not a Bearer token",
                server.issuer
            ),
            SignInDetails {
                token_type: Some(field("token_type")),
                ..SignInDetails::default()
            },
        ));
    }
    Ok(Tokens {
        access_token: access_token.to_owned(),
        refresh_token: field("refresh_token")
            .or(previous_refresh)
            .map(str::to_owned),
        expires_at: doc
            .get("expires_in")
            .and_then(Value::as_f64)
            .map(|s| now + s * 1000.0),
        server: server.clone(),
    })
}

/// The `sessionStorage` key of the tokens `client_id` holds for `resource`.
pub fn storage_key(client_id: &str, resource: &str) -> String {
    format!("mcp-tasks-edge/sign-in {client_id} {resource}")
}

/// The `sessionStorage` key of an authorization that left the page (redirect mode).
pub const PENDING_KEY: &str = "mcp-tasks-edge/sign-in pending";
