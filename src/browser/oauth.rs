//! Sign-in for pages, in plain Rust: every decision of the OAuth 2.1 authorization code
//! flow with PKCE that a public browser client makes, without the I/O (`sign_in.rs`
//! fetches, opens the window and keeps the tokens).
//!
//! ```text
//! 401 + WWW-Authenticate: Bearer resource_metadata="…"        (RFC 9728 section 5.1)
//!   ──▶ Protected Resource Metadata: resource, authorization_servers, scopes_supported
//!   ──▶ authorization server metadata (RFC 8414, else OpenID Connect Discovery)
//!   ──▶ authorize?response_type=code&client_id&redirect_uri&state&scope&resource
//!                &code_challenge=BASE64URL(SHA256(verifier))&code_challenge_method=S256
//!   ──▶ redirect_uri?code&state(&iss)                          (popup or redirect)
//!   ──▶ POST token: grant_type=authorization_code&code&code_verifier&redirect_uri&resource
//!   ──▶ access_token (+ refresh_token, expires_in) ──▶ the request again, once
//! later: grant_type=refresh_token before expiry or after a 401 invalid_token
//! ```
//!
//! The `resource` parameter (RFC 8707) names the MCP endpoint, as MCP "Authorization"
//! requires; endpoints must be `https` except on loopback hosts (OAuth 2.1 section 1.5).

use super::wire::ClientError;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use url::Url;

/// A token this close to its expiry is refreshed before it is sent.
pub const REFRESH_MARGIN_MS: f64 = 30_000.0;

/// A sign-in failure: -32603 with `data.signIn` naming the stage.
pub fn failure(stage: &str, message: impl Into<String>, extra: Value) -> ClientError {
    let mut data = json!({ "signIn": stage });
    if let (Some(data), Value::Object(extra)) = (data.as_object_mut(), extra) {
        data.extend(extra);
    }
    ClientError::new(
        ClientError::INTERNAL_ERROR,
        format!("Sign-in failed: {}", message.into()),
        Some(data),
    )
}

/// `https`, or `http` on a loopback host (`localhost`, 127.0.0.0/8, `[::1]`).
pub fn secure_endpoint(url: &Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => match url.host() {
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

fn parse(what: &str, url: &str) -> Result<Url, ClientError> {
    Url::parse(url).map_err(|e| {
        failure(
            "discovery",
            format!("{what} is not a URL ({e}): {url}"),
            json!({ "url": url }),
        )
    })
}

fn secure(what: &str, url: &str) -> Result<Url, ClientError> {
    let parsed = parse(what, url)?;
    if !secure_endpoint(&parsed) {
        return Err(failure(
            "discovery",
            format!("{what} must be https (plain http only on loopback): {url}"),
            json!({ "url": url }),
        ));
    }
    Ok(parsed)
}

/// The well-known URL of `suffix` for `url` (RFC 8615): inserted before the path
/// (RFC 8414 section 3.1, RFC 9728 section 3.1); `/` alone counts as no path.
fn well_known(url: &Url, suffix: &str) -> String {
    let path = url.path().trim_end_matches('/');
    format!(
        "{}/.well-known/{suffix}{path}",
        url.origin().ascii_serialization()
    )
}

/// Where the Protected Resource Metadata of `resource` may be: the challenge's
/// `resource_metadata` if any, else the path-inserted well-known URL, then the root one.
pub fn protected_resource_urls(resource: &Url, from_challenge: Option<&str>) -> Vec<String> {
    if let Some(url) = from_challenge {
        return vec![url.to_owned()];
    }
    let mut urls = vec![well_known(resource, "oauth-protected-resource")];
    let root = format!(
        "{}/.well-known/oauth-protected-resource",
        resource.origin().ascii_serialization()
    );
    if !urls.contains(&root) {
        urls.push(root);
    }
    urls
}

/// What a Protected Resource Metadata document says.
#[derive(Debug, Clone, PartialEq)]
pub struct ProtectedResource {
    pub resource: String,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Vec<String>,
}

fn strings(doc: &Value, field: &str) -> Vec<String> {
    doc.get(field)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Reads the metadata of `resource` (the absolute MCP URL). Its `resource` must be that
/// URL (RFC 9728 section 3.3: a document for another resource is refused).
pub fn read_protected_resource(
    doc: &Value,
    resource: &str,
) -> Result<ProtectedResource, ClientError> {
    let named = doc.get("resource").and_then(Value::as_str).unwrap_or("");
    if named.trim_end_matches('/') != resource.trim_end_matches('/') {
        return Err(failure(
            "discovery",
            format!("the Protected Resource Metadata is for {named:?}, not for {resource}"),
            json!({ "resource": resource }),
        ));
    }
    let authorization_servers = strings(doc, "authorization_servers");
    if authorization_servers.is_empty() {
        return Err(failure(
            "discovery",
            format!("the Protected Resource Metadata of {resource} names no authorization server"),
            json!({ "resource": resource }),
        ));
    }
    Ok(ProtectedResource {
        resource: resource.to_owned(),
        authorization_servers,
        scopes_supported: strings(doc, "scopes_supported"),
    })
}

/// Where the metadata of `issuer` may be, in MCP "Authorization" order: RFC 8414 with
/// path insertion, OpenID Connect with path insertion, OpenID Connect appended.
pub fn authorization_server_urls(issuer: &str) -> Result<Vec<String>, ClientError> {
    let url = secure("the authorization server", issuer)?;
    let path = url.path().trim_end_matches('/');
    let origin = url.origin().ascii_serialization();
    let mut urls = vec![well_known(&url, "oauth-authorization-server")];
    urls.push(well_known(&url, "openid-configuration"));
    let appended = format!("{origin}{path}/.well-known/openid-configuration");
    if !urls.contains(&appended) {
        urls.push(appended);
    }
    Ok(urls)
}

/// The endpoints of an authorization server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthorizationServer {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
}

/// Reads the metadata of `issuer`: its `issuer` must be identical (RFC 8414 section 3.3),
/// both endpoints secure, and `S256` among `code_challenge_methods_supported` (MCP
/// "Authorization": without it the client must refuse).
pub fn read_authorization_server(
    doc: &Value,
    issuer: &str,
) -> Result<AuthorizationServer, ClientError> {
    let named = doc.get("issuer").and_then(Value::as_str).unwrap_or("");
    if named != issuer {
        return Err(failure(
            "discovery",
            format!("the metadata of {issuer} names another issuer, {named:?}"),
            json!({ "issuer": issuer }),
        ));
    }
    let endpoint = |field: &str| -> Result<String, ClientError> {
        let url = doc.get(field).and_then(Value::as_str).ok_or_else(|| {
            failure(
                "discovery",
                format!("the authorization server {issuer} has no {field}"),
                json!({ "issuer": issuer }),
            )
        })?;
        Ok(secure(field, url)?.to_string())
    };
    if !strings(doc, "code_challenge_methods_supported")
        .iter()
        .any(|m| m == "S256")
    {
        return Err(failure(
            "discovery",
            format!(
                "the authorization server {issuer} does not offer PKCE with S256 (code_challenge_methods_supported)"
            ),
            json!({ "issuer": issuer }),
        ));
    }
    Ok(AuthorizationServer {
        issuer: issuer.to_owned(),
        authorization_endpoint: endpoint("authorization_endpoint")?,
        token_endpoint: endpoint("token_endpoint")?,
    })
}

/// The scope to ask for: the page's choice, else the challenge's `scope`, else every
/// scope the resource lists (MCP "Authorization", scope selection); none if all empty.
pub fn choose_scope(
    configured: Option<&str>,
    challenge: Option<&str>,
    supported: &[String],
) -> Option<String> {
    configured
        .or(challenge)
        .map(str::to_owned)
        .or_else(|| (!supported.is_empty()).then(|| supported.join(" ")))
        .filter(|s| !s.trim().is_empty())
}

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// The authorization request URL (RFC 6749 section 4.1.1 with PKCE and `resource`).
    pub fn authorization_url(&self) -> Result<String, ClientError> {
        let mut url = parse(
            "authorization_endpoint",
            &self.server.authorization_endpoint,
        )?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &self.client_id)
                .append_pair("redirect_uri", &self.redirect_uri)
                .append_pair("state", &self.state)
                .append_pair("code_challenge", &s256(&self.verifier))
                .append_pair("code_challenge_method", "S256")
                .append_pair("resource", &self.resource);
            if let Some(scope) = &self.scope {
                query.append_pair("scope", scope);
            }
        }
        Ok(url.into())
    }

    /// Whether `href` is this authorization's callback: the redirect URI (ignoring its
    /// query) carrying our `state`.
    pub fn is_callback(&self, href: &str) -> bool {
        let (Ok(at), Ok(redirect)) = (Url::parse(href), Url::parse(&self.redirect_uri)) else {
            return false;
        };
        at.origin() == redirect.origin()
            && at.path() == redirect.path()
            && query(&at, "state").as_deref() == Some(self.state.as_str())
    }

    /// The code of callback `href` (RFC 6749 section 4.1.2), or the refusal it reports.
    /// `iss`, when present, must be our issuer (RFC 9207: mix-up defence).
    pub fn read_callback(&self, href: &str) -> Result<String, ClientError> {
        let url = Url::parse(href)
            .map_err(|_| failure("authorization", "the callback is not a URL", json!({})))?;
        if query(&url, "state").as_deref() != Some(self.state.as_str()) {
            return Err(failure(
                "authorization",
                "the callback's state does not match this sign-in",
                json!({}),
            ));
        }
        if let Some(iss) = query(&url, "iss")
            && iss != self.server.issuer
        {
            return Err(failure(
                "authorization",
                format!(
                    "the callback comes from issuer {iss:?}, not {}",
                    self.server.issuer
                ),
                json!({ "issuer": self.server.issuer }),
            ));
        }
        if let Some(error) = query(&url, "error") {
            let description = query(&url, "error_description");
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
                json!({ "error": error, "errorDescription": description }),
            ));
        }
        query(&url, "code")
            .ok_or_else(|| failure("authorization", "the callback carries no code", json!({})))
    }

    /// The token request body exchanging `code` (RFC 6749 section 4.1.3, RFC 7636 4.5).
    pub fn code_grant(&self, code: &str) -> String {
        url::form_urlencoded::Serializer::new(String::new())
            .append_pair("grant_type", "authorization_code")
            .append_pair("code", code)
            .append_pair("redirect_uri", &self.redirect_uri)
            .append_pair("client_id", &self.client_id)
            .append_pair("code_verifier", &self.verifier)
            .append_pair("resource", &self.resource)
            .finish()
    }
}

fn query(url: &Url, name: &str) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// `href` without the callback's parameters (what the address bar shows afterwards).
pub fn without_callback_params(href: &str) -> String {
    let Ok(mut url) = Url::parse(href) else {
        return href.to_owned();
    };
    const CALLBACK: [&str; 6] = [
        "code",
        "state",
        "iss",
        "error",
        "error_description",
        "error_uri",
    ];
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| !CALLBACK.contains(&k.as_ref()))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if kept.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(kept);
    }
    url.into()
}

/// What a sign-in keeps: the tokens and where to refresh them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tokens {
    pub access_token: String,
    pub refresh_token: Option<String>,
    /// Milliseconds since the epoch; `None` when the server gave no `expires_in`.
    pub expires_at: Option<f64>,
    /// Who issued them (the refresh goes to its token endpoint).
    pub server: AuthorizationServer,
}

impl Tokens {
    /// Whether the access token should be refreshed before use at time `now` (ms).
    pub fn stale(&self, now: f64) -> bool {
        self.expires_at
            .is_some_and(|at| at - now < REFRESH_MARGIN_MS)
    }

    /// The refresh request body (RFC 6749 section 6), if there is a refresh token.
    pub fn refresh_grant(&self, client_id: &str, resource: &str) -> Option<String> {
        let refresh = self.refresh_token.as_ref()?;
        Some(
            url::form_urlencoded::Serializer::new(String::new())
                .append_pair("grant_type", "refresh_token")
                .append_pair("refresh_token", refresh)
                .append_pair("client_id", client_id)
                .append_pair("resource", resource)
                .finish(),
        )
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
            json!({ "error": error, "errorDescription": field("error_description"), "httpStatus": status }),
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
            json!({ "httpStatus": status }),
        ));
    };
    if !field("token_type").is_some_and(|t| t.eq_ignore_ascii_case("bearer")) {
        return Err(failure(
            "token",
            format!(
                "the token endpoint of {} issued a token that is not a Bearer token",
                server.issuer
            ),
            json!({ "tokenType": field("token_type") }),
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
