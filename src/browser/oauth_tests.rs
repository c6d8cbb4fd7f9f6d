//! Native tests of the sign-in decisions (`oauth.rs`) and of the network error's
//! wording; the flow itself runs against a real issuer in tests/package.

use super::grant::{self, Pending};
use super::oauth::{self, AuthorizationServer};
use super::urls;
use super::wire::ClientError;
use serde_json::{Value, json};
use url::Url; // natively only: the reference the hand-written urls.rs is checked against

const MCP: &str = "https://mcp.example/mcp";

fn server() -> AuthorizationServer {
    AuthorizationServer {
        issuer: "https://id.example/tenant".into(),
        authorization_endpoint: "https://id.example/tenant/authorize".into(),
        token_endpoint: "https://id.example/tenant/token".into(),
    }
}

fn pending() -> Pending {
    Pending {
        server: server(),
        client_id: "my-page".into(),
        redirect_uri: "https://app.example/signed-in?x=1".into(),
        resource: MCP.into(),
        scope: Some("mcp:tools".into()),
        state: "st4te".into(),
        // RFC 7636 appendix B.
        verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk".into(),
    }
}

fn stage(error: &ClientError) -> &str {
    error
        .data
        .as_ref()
        .and_then(|d| d["signIn"].as_str())
        .unwrap_or("")
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
fn only_https_or_loopback_endpoints() {
    for ok in [
        "https://id.example/",
        "http://127.0.0.1:9/x",
        "http://localhost:1",
        "http://[::1]:8/",
    ] {
        assert!(oauth::secure_endpoint(ok), "{ok}");
    }
    for bad in [
        "http://id.example/",
        "http://10.0.0.1/",
        "ftp://id.example/",
        "javascript:alert(1)",
    ] {
        assert!(!oauth::secure_endpoint(bad), "{bad}");
    }
}

#[test]
fn metadata_urls_follow_rfc_9728_and_rfc_8414() {
    assert_eq!(
        oauth::protected_resource_urls(MCP, None).unwrap(),
        [
            "https://mcp.example/.well-known/oauth-protected-resource/mcp",
            "https://mcp.example/.well-known/oauth-protected-resource"
        ]
    );
    assert_eq!(
        oauth::protected_resource_urls(MCP, Some("https://x/prm")).unwrap(),
        ["https://x/prm"]
    );
    assert_eq!(
        oauth::authorization_server_urls("https://id.example/tenant").unwrap(),
        [
            "https://id.example/.well-known/oauth-authorization-server/tenant",
            "https://id.example/.well-known/openid-configuration/tenant",
            "https://id.example/tenant/.well-known/openid-configuration"
        ]
    );
    assert_eq!(
        oauth::authorization_server_urls("http://127.0.0.1:9").unwrap(),
        [
            "http://127.0.0.1:9/.well-known/oauth-authorization-server",
            "http://127.0.0.1:9/.well-known/openid-configuration"
        ]
    );
    let refused = oauth::authorization_server_urls("http://id.example").unwrap_err();
    assert!(
        refused.message.contains("must be https"),
        "{}",
        refused.message
    );
}

#[test]
fn protected_resource_metadata_must_name_this_resource_and_a_server() {
    let doc = json!({ "resource": MCP, "authorization_servers": ["https://id.example/tenant"],
                      "scopes_supported": ["mcp:tools", "mcp:admin"] });
    let read = oauth::read_protected_resource(&doc, MCP).unwrap();
    assert_eq!(read.authorization_servers, ["https://id.example/tenant"]);
    assert_eq!(read.scopes_supported, ["mcp:tools", "mcp:admin"]);
    // A document for another resource (a server pointing clients at someone else's AS).
    let other = json!({ "resource": "https://evil.example/mcp", "authorization_servers": ["https://id.example"] });
    let refused = oauth::read_protected_resource(&other, MCP).unwrap_err();
    assert_eq!(
        (refused.code, stage(&refused)),
        (ClientError::INTERNAL_ERROR, "discovery")
    );
    assert!(
        refused.message.contains("evil.example"),
        "{}",
        refused.message
    );
    let none = json!({ "resource": MCP, "authorization_servers": [] });
    assert!(
        oauth::read_protected_resource(&none, MCP)
            .unwrap_err()
            .message
            .contains("names no authorization server")
    );
}

#[test]
fn authorization_server_metadata_is_checked() {
    let issuer = "https://id.example/tenant";
    let good = json!({ "issuer": issuer, "authorization_endpoint": "https://id.example/tenant/authorize",
                       "token_endpoint": "https://id.example/tenant/token", "code_challenge_methods_supported": ["S256"] });
    assert_eq!(
        oauth::read_authorization_server(&good, issuer).unwrap(),
        server()
    );
    let mut other_issuer = good.clone();
    other_issuer["issuer"] = json!("https://evil.example");
    let mut no_pkce = good.clone();
    no_pkce
        .as_object_mut()
        .unwrap()
        .remove("code_challenge_methods_supported");
    let mut plain_only = good.clone();
    plain_only["code_challenge_methods_supported"] = json!(["plain"]);
    let mut http_token = good.clone();
    http_token["token_endpoint"] = json!("http://id.example/token");
    let mut no_token = good.clone();
    no_token.as_object_mut().unwrap().remove("token_endpoint");
    for (doc, says) in [
        (other_issuer, "names another issuer"),
        (no_pkce, "does not offer PKCE with S256"),
        (plain_only, "does not offer PKCE with S256"),
        (http_token, "token_endpoint must be https"),
        (no_token, "has no token_endpoint"),
    ] {
        let refused = oauth::read_authorization_server(&doc, issuer).unwrap_err();
        assert!(
            refused.message.contains(says),
            "{says}: {}",
            refused.message
        );
    }
}

#[test]
fn scope_the_page_the_challenge_then_the_resource_list() {
    let listed = vec!["a".to_owned(), "b".to_owned()];
    assert_eq!(
        oauth::choose_scope(Some("x"), Some("y"), &listed).as_deref(),
        Some("x")
    );
    assert_eq!(
        oauth::choose_scope(None, Some("y"), &listed).as_deref(),
        Some("y")
    );
    assert_eq!(
        oauth::choose_scope(None, None, &listed).as_deref(),
        Some("a b")
    );
    assert_eq!(oauth::choose_scope(None, None, &[]), None);
}

fn query(url: &str) -> Vec<(String, String)> {
    Url::parse(url)
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
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

#[test]
fn a_failed_fetch_says_blocked_or_unreachable_with_the_url() {
    let blocked = ClientError::unreachable(MCP, "Failed to fetch", true);
    assert_eq!(blocked.code, ClientError::INTERNAL_ERROR);
    let data = blocked.data.unwrap();
    assert_eq!(
        (
            data["url"].as_str(),
            data["cause"].as_str(),
            data["reachable"].as_bool()
        ),
        (Some(MCP), Some("Failed to fetch"), Some(true))
    );
    let reason = data["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("the browser blocked the response from https://mcp.example/mcp"),
        "{reason}"
    );
    assert!(reason.contains("ALLOWED_ORIGINS"), "{reason}");
    assert_eq!(blocked.message, format!("Network error: {reason}"));
    let unreachable = ClientError::unreachable(
        MCP,
        "NetworkError when attempting to fetch resource.",
        false,
    );
    let reason = unreachable.data.unwrap()["reason"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        reason.starts_with("the browser could not reach https://mcp.example/mcp"),
        "{reason}"
    );
    assert!(reason.contains("connect-src"), "{reason}");
}

#[test]
fn urls_split_query_and_encode_like_the_url_crate() {
    let parts = urls::split("HTTPS://user@Id.Example:8443/a/b?x=1&y=a+b%21#frag").unwrap();
    assert_eq!(
        (parts.origin(), parts.path, parts.fragment),
        ("https://id.example:8443".to_owned(), "/a/b", Some("frag"))
    );
    assert_eq!(parts.param("y").as_deref(), Some("a b!"));
    assert_eq!(parts.param("z"), None);
    assert_eq!(urls::split("http://h").unwrap().path, "/");
    assert_eq!(urls::split("http://[::1]:9/p").unwrap().host(), "[::1]");
    for bad in ["/relative", "mailto:x@y", "http://", "http:// space/"] {
        assert!(urls::split(bad).is_none(), "{bad}");
    }
    // The form encoding is the url crate's (WHATWG application/x-www-form-urlencoded).
    let tricky = [("a b", "c&d=e"), ("ü", "https://x/?q=1#f"), ("*-._~", "%+")];
    let reference = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(tricky)
        .finish();
    assert_eq!(urls::form(&tricky), reference);
    let mut with = Url::parse("https://x/p?k=1#f").unwrap();
    with.query_pairs_mut().extend_pairs(tricky);
    assert_eq!(
        urls::with_params("https://x/p?k=1#f", &tricky),
        String::from(with)
    );
    assert_eq!(
        urls::with_params("https://x/p", &[("a", "1")]),
        "https://x/p?a=1"
    );
    let decoded: Vec<(String, String)> = urls::params(&reference).collect();
    assert_eq!(decoded, tricky.map(|(k, v)| (k.to_owned(), v.to_owned())));
    assert_eq!(
        urls::without_params("https://x/?a=1&code=2&b=3#f", &["code"]),
        "https://x/?a=1&b=3#f"
    );
}
