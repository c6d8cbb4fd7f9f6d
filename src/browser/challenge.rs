//! What a 401 or 403 says, in plain Rust: the `WWW-Authenticate: Bearer` challenge
//! (RFC 6750 section 3) and the error a page gets when nobody signs in.

use super::error::ClientError;
use serde::Serialize;
use serde_json::{Map, Value};

/// The auth-params of a `WWW-Authenticate: Bearer …` challenge (RFC 6750 section 3),
/// e.g. `resource_metadata`, `error`, `scope`.
pub fn challenge_params(header: &str) -> Map<String, Value> {
    let mut params = Map::new();
    let Some(rest) = header.trim().get(6..).filter(|_| {
        header
            .trim()
            .get(..6)
            .is_some_and(|s| s.eq_ignore_ascii_case("bearer"))
    }) else {
        return params;
    };
    let mut rest = rest.trim_start();
    while let Some((name, after)) = rest.split_once('=') {
        let name = name
            .trim()
            .trim_start_matches(',')
            .trim()
            .to_ascii_lowercase();
        let after = after.trim_start();
        let (value, next) = match after.strip_prefix('"') {
            Some(quoted) => match quoted.split_once('"') {
                Some((v, next)) => (v.to_owned(), next),
                None => (quoted.to_owned(), ""),
            },
            None => match after.split_once(',') {
                Some((v, next)) => (v.trim().to_owned(), next),
                None => (after.trim().to_owned(), ""),
            },
        };
        if !name.is_empty() {
            params.insert(name, Value::String(value));
        }
        rest = next.trim_start().trim_start_matches(',').trim_start();
    }
    params
}

/// The `data` of [`auth_error`]: what the challenge said (`null` where it said nothing).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Refusal {
    http_status: u16,
    error: Option<String>,
    scope: Option<String>,
    resource_metadata: Option<String>,
    authorization_servers: Vec<String>,
}

/// A 401 or 403 made plain: what the server wants and which authorization server issues
/// it (from the Protected Resource Metadata `metadata`, when it could be read). `error` is
/// the server's own JSON-RPC error, when it sent one.
pub fn auth_error(
    status: u16,
    challenge: &str,
    metadata: Option<&Value>,
    error: Option<ClientError>,
) -> ClientError {
    let params = challenge_params(challenge);
    let param = |n: &str| params.get(n).and_then(Value::as_str).map(str::to_owned);
    let servers = metadata
        .map(|m| super::oauth::strings(m, "authorization_servers"))
        .unwrap_or_default();
    let from = match servers.as_slice() {
        [] => "an API key or an access token (the server names no authorization server)".to_owned(),
        [one] => format!("an access token from the authorization server {one}"),
        many => format!(
            "an access token from one of the authorization servers {}",
            many.join(", ")
        ),
    };
    let scope = param("scope");
    let mut message = if status == 403 {
        format!(
            "Forbidden (HTTP 403): the bearer token lacks the scope {} this server requires; sign in again for {from}",
            scope.as_deref().unwrap_or("it needs")
        )
    } else if param("error").as_deref() == Some("invalid_token") {
        format!("Unauthorized (HTTP 401): the bearer token was refused; this server needs {from}")
    } else {
        format!("Unauthorized (HTTP 401): this server needs {from} (connect with a bearer token)")
    };
    if let Some(why) = error
        .as_ref()
        .map(|e| e.message.clone())
        .or_else(|| param("error_description"))
    {
        message.push_str(&format!(". The server says: {why}"));
    }
    ClientError::new(
        error
            .as_ref()
            .map_or(ClientError::INVALID_REQUEST, |e| e.code),
        message,
        Some(crate::jsonrpc::payload(&Refusal {
            http_status: status,
            error: param("error"),
            scope,
            resource_metadata: param("resource_metadata"),
            authorization_servers: servers,
        })),
    )
}
