//! Native tests of the sign-in discovery (`oauth.rs`) and of `urls.rs`; the grant's are
//! in `grant_tests.rs`, the whole flow runs against a real issuer in tests/package.

use super::error::ClientError;
use super::grant::Pending;
use super::oauth::{self, AuthorizationServer};
use super::urls;
use serde_json::json;
use url::Url; // natively only: the reference the hand-written urls.rs is checked against

pub const MCP: &str = "https://mcp.example/mcp";

pub fn server() -> AuthorizationServer {
    AuthorizationServer {
        issuer: "https://id.example/tenant".into(),
        authorization_endpoint: "https://id.example/tenant/authorize".into(),
        token_endpoint: "https://id.example/tenant/token".into(),
    }
}

pub fn pending() -> Pending {
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

pub fn stage(error: &ClientError) -> &str {
    error
        .data
        .as_ref()
        .and_then(|d| d["signIn"].as_str())
        .unwrap_or("")
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
