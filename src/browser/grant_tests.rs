//! Native tests of the sign-in grant (`grant.rs`): PKCE, the authorization request, its
//! callback, the token requests and answers.

use super::grant;
use super::oauth_tests::{MCP, pending, server, stage};
use serde_json::{Value, json};
use url::Url;

fn query(url: &str) -> Vec<(String, String)> {
    Url::parse(url)
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

#[test]
fn pkce_s256_matches_rfc_7636_appendix_b() {
    assert_eq!(
        grant::s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    );
    let verifier = grant::random_string(&[7u8; 32]);
    assert_eq!(
        verifier.len(),
        43,
        "32 bytes make the shortest verifier RFC 7636 allows"
    );
    assert!(
        verifier
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    );
}

#[test]
fn authorization_request_carries_pkce_state_and_resource() {
    let url = pending().authorization_url();
    assert!(
        url.starts_with("https://id.example/tenant/authorize?"),
        "{url}"
    );
    let pairs = query(&url);
    let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("response_type"), Some("code"));
    assert_eq!(get("client_id"), Some("my-page"));
    assert_eq!(
        get("redirect_uri"),
        Some("https://app.example/signed-in?x=1")
    );
    assert_eq!(
        get("code_challenge"),
        Some("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    );
    assert_eq!(get("code_challenge_method"), Some("S256"));
    assert_eq!(get("state"), Some("st4te"));
    assert_eq!(get("resource"), Some(MCP));
    assert_eq!(get("scope"), Some("mcp:tools"));
    assert_eq!(
        get("code_verifier"),
        None,
        "the verifier never leaves the page before the exchange"
    );
    let body = pending().code_grant("c0de");
    assert_eq!(
        body,
        "grant_type=authorization_code&code=c0de&redirect_uri=https%3A%2F%2Fapp.example%2Fsigned-in%3Fx%3D1\
         &client_id=my-page&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk&resource=https%3A%2F%2Fmcp.example%2Fmcp"
    );
}

#[test]
fn callbacks_are_matched_by_redirect_uri_and_state() {
    let p = pending();
    let back =
        "https://app.example/signed-in?code=c0de&state=st4te&iss=https%3A%2F%2Fid.example%2Ftenant";
    assert!(p.is_callback(back));
    assert_eq!(p.read_callback(back).unwrap(), "c0de");
    assert!(!p.is_callback("https://app.example/signed-in?code=c0de&state=other"));
    assert!(!p.is_callback("https://evil.example/signed-in?code=c0de&state=st4te"));
    // A host may rewrite the path (Workers assets: `/signed-in.html` → `/signed-in`).
    assert!(p.is_callback("https://app.example/signed-in.html?code=c0de&state=st4te"));
    assert!(!p.is_callback("about:blank"));
    // A forged state (CSRF), another issuer (mix-up), a refusal, no code.
    let cases = [
        (
            "https://app.example/signed-in?code=c&state=forged",
            "state does not match",
        ),
        (
            "https://app.example/signed-in?code=c&state=st4te&iss=https%3A%2F%2Fevil.example",
            "not https://id.example/tenant",
        ),
        (
            "https://app.example/signed-in?error=access_denied&error_description=No%20thanks&state=st4te",
            "answered access_denied: No thanks",
        ),
        (
            "https://app.example/signed-in?state=st4te",
            "carries no code",
        ),
    ];
    for (href, says) in cases {
        let refused = p.read_callback(href).unwrap_err();
        assert_eq!(stage(&refused), "authorization");
        assert!(
            refused.message.contains(says),
            "{says}: {}",
            refused.message
        );
    }
    assert_eq!(
        grant::without_callback_params("https://app.example/?tab=2&code=c&state=s&iss=i#top"),
        "https://app.example/?tab=2#top"
    );
    assert_eq!(
        grant::without_callback_params("https://app.example/p?code=c&state=s"),
        "https://app.example/p"
    );
}

#[test]
fn token_answers_become_tokens_or_clear_errors() {
    let body = json!({ "access_token": "at", "token_type": "bearer", "expires_in": 600, "refresh_token": "rt" });
    let tokens =
        grant::read_token_response(200, &body.to_string(), 1_000.0, &server(), None).unwrap();
    assert_eq!(tokens.access_token, "at");
    assert_eq!(tokens.refresh_token.as_deref(), Some("rt"));
    assert_eq!(tokens.expires_at, Some(601_000.0));
    assert!(!tokens.stale(1_000.0));
    assert!(tokens.stale(601_000.0 - grant::REFRESH_MARGIN_MS + 1.0));
    assert_eq!(
        tokens.refresh_grant("my-page", MCP).unwrap(),
        "grant_type=refresh_token&refresh_token=rt&client_id=my-page&resource=https%3A%2F%2Fmcp.example%2Fmcp"
    );
    // A refresh without a new refresh token keeps the old one; no expiry: never stale.
    let rotated = json!({ "access_token": "at2", "token_type": "Bearer" });
    let kept =
        grant::read_token_response(200, &rotated.to_string(), 0.0, &server(), Some("rt")).unwrap();
    assert_eq!(
        (kept.refresh_token.as_deref(), kept.expires_at),
        (Some("rt"), None)
    );
    assert!(!kept.stale(f64::MAX));
    let refusals = [
        (
            400,
            json!({ "error": "invalid_grant", "error_description": "PKCE verification failed" }),
            "answered invalid_grant: PKCE verification failed",
        ),
        (
            200,
            json!({ "token_type": "Bearer" }),
            "without an access_token",
        ),
        (
            200,
            json!({ "access_token": "at", "token_type": "DPoP" }),
            "not a Bearer token",
        ),
        (
            502,
            Value::String("<html>".into()),
            "HTTP 502 without an access_token",
        ),
    ];
    for (status, body, says) in refusals {
        let refused = grant::read_token_response(status, &body.to_string(), 0.0, &server(), None)
            .unwrap_err();
        assert_eq!(stage(&refused), "token");
        assert!(
            refused.message.contains(says),
            "{says}: {}",
            refused.message
        );
    }
    assert_eq!(
        grant::storage_key("my-page", MCP),
        "mcp-tasks-edge/sign-in my-page https://mcp.example/mcp"
    );
}
