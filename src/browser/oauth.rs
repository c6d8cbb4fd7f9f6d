//! Sign-in for pages, in plain Rust: every decision of the OAuth 2.1 authorization code
//! flow with PKCE that a public browser client makes, without the I/O (`sign_in.rs`
//! fetches, opens the window and keeps the tokens). This file finds the authorization
//! server; `grant.rs` runs the grant.
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

use super::error::ClientError;
use super::urls::{self, Parts};
use serde::Serialize;
use serde_json::Value;

/// The `data` of a sign-in failure: `signIn` (the stage, [`failure`] sets it) and what
/// the stage knows; a field that is `Some(None)` is written `null`.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SignInDetails<'a> {
    pub sign_in: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub urls: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issuer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_description: Option<Option<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_type: Option<Option<&'a str>>,
}

/// A sign-in failure: -32603 with `data.signIn` naming the stage.
pub fn failure<'a>(
    stage: &'a str,
    message: impl Into<String>,
    details: SignInDetails<'a>,
) -> ClientError {
    let data = SignInDetails {
        sign_in: stage,
        ..details
    };
    ClientError::new(
        ClientError::INTERNAL_ERROR,
        format!("Sign-in failed: {}", message.into()),
        Some(crate::jsonrpc::payload(&data)),
    )
}

/// `https`, or `http` on a loopback host (`localhost`, 127.0.0.0/8, `[::1]`).
pub fn secure_endpoint(url: &str) -> bool {
    urls::split(url).is_some_and(|p| p.scheme == "https" || (p.scheme == "http" && p.is_loopback()))
}

fn parse<'a>(what: &str, url: &'a str) -> Result<Parts<'a>, ClientError> {
    urls::split(url).ok_or_else(|| {
        failure(
            "discovery",
            format!("{what} is not an absolute URL: {url}"),
            SignInDetails {
                url: Some(url),
                ..SignInDetails::default()
            },
        )
    })
}

fn secure<'a>(what: &str, url: &'a str) -> Result<Parts<'a>, ClientError> {
    let parts = parse(what, url)?;
    if !secure_endpoint(url) {
        return Err(failure(
            "discovery",
            format!("{what} must be https (plain http only on loopback): {url}"),
            SignInDetails {
                url: Some(url),
                ..SignInDetails::default()
            },
        ));
    }
    Ok(parts)
}

/// The well-known URL of `suffix` for `url` (RFC 8615): inserted before the path
/// (RFC 8414 section 3.1, RFC 9728 section 3.1); `/` alone counts as no path.
fn well_known(url: &Parts, suffix: &str) -> String {
    format!(
        "{}/.well-known/{suffix}{}",
        url.origin(),
        url.path.trim_end_matches('/')
    )
}

/// Where the Protected Resource Metadata of `resource` (an absolute URL) may be: the
/// challenge's `resource_metadata` if any, else the path-inserted well-known URL, then
/// the root one.
pub fn protected_resource_urls(
    resource: &str,
    from_challenge: Option<&str>,
) -> Result<Vec<String>, ClientError> {
    if let Some(url) = from_challenge {
        return Ok(vec![url.to_owned()]);
    }
    let parts = parse("the MCP server URL", resource)?;
    let mut found = vec![well_known(&parts, "oauth-protected-resource")];
    let root = format!("{}/.well-known/oauth-protected-resource", parts.origin());
    if !found.contains(&root) {
        found.push(root);
    }
    Ok(found)
}

/// What a Protected Resource Metadata document says.
#[derive(Debug, Clone, PartialEq)]
pub struct ProtectedResource {
    pub resource: String,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Vec<String>,
}

/// The strings of `doc[field]` (an array; anything else is none).
pub(super) fn strings(doc: &Value, field: &str) -> Vec<String> {
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
            SignInDetails {
                resource: Some(resource),
                ..SignInDetails::default()
            },
        ));
    }
    let authorization_servers = strings(doc, "authorization_servers");
    if authorization_servers.is_empty() {
        return Err(failure(
            "discovery",
            format!("the Protected Resource Metadata of {resource} names no authorization server"),
            SignInDetails {
                resource: Some(resource),
                ..SignInDetails::default()
            },
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
    let parts = secure("the authorization server", issuer)?;
    let mut found = vec![
        well_known(&parts, "oauth-authorization-server"),
        well_known(&parts, "openid-configuration"),
    ];
    let path = parts.path.trim_end_matches('/');
    let appended = format!("{}{path}/.well-known/openid-configuration", parts.origin());
    if !found.contains(&appended) {
        found.push(appended);
    }
    Ok(found)
}

/// The endpoints of an authorization server.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuthorizationServer {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
}

/// `doc[field]` as a string.
pub fn text(doc: &Value, field: &str) -> Option<String> {
    doc.get(field).and_then(Value::as_str).map(str::to_owned)
}

// Read by hand, like `grant::Pending` and `grant::Tokens` (written by serde's derive):
// serde's derived readers bring float formatting and a reader per struct, 15 KB of wasm
// for three structs.
impl AuthorizationServer {
    pub fn to_json(&self) -> Value {
        crate::jsonrpc::payload(self)
    }

    pub fn from_json(doc: &Value) -> Option<Self> {
        Some(AuthorizationServer {
            issuer: text(doc, "issuer")?,
            authorization_endpoint: text(doc, "authorization_endpoint")?,
            token_endpoint: text(doc, "token_endpoint")?,
        })
    }
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
            SignInDetails {
                issuer: Some(issuer),
                ..SignInDetails::default()
            },
        ));
    }
    let endpoint = |field: &str| -> Result<String, ClientError> {
        let url = doc.get(field).and_then(Value::as_str).ok_or_else(|| {
            failure(
                "discovery",
                format!("the authorization server {issuer} has no {field}"),
                SignInDetails {
                    issuer: Some(issuer),
                    ..SignInDetails::default()
                },
            )
        })?;
        secure(field, url)?;
        Ok(url.to_owned())
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
            SignInDetails {
                issuer: Some(issuer),
                ..SignInDetails::default()
            },
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
