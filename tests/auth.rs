//! Authentication, natively: bearer parsing, API keys, which tokens go to JWT
//! verification, challenges, Protected Resource Metadata, and the configuration that drives
//! them. The JWT header and claim rules, key selection and JWKS refetch limits:
//! tests/auth_jwt.rs. (Signatures are WebCrypto's, checked end to end.)

mod common;

use common::auth::{ISSUER, RESOURCE, auth_with, claims, config, digest, jwt};
use mcp_tasks_edge::auth::jwt::Alg;
use mcp_tasks_edge::auth::{self, Outcome};
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::http::{Headers, HttpRequest};
use mcp_tasks_edge::server::{Config, Server};
use serde_json::{Value, json};

fn bearer(token: &str) -> Headers {
    Headers::from([("authorization", format!("Bearer {token}").as_str())])
}

#[test]
fn bearer_tokens_are_read_case_insensitively_and_strictly() {
    assert_eq!(auth::bearer(&Headers::new()), Ok(None));
    assert_eq!(auth::bearer(&bearer("abc")), Ok(Some("abc".into())));
    let lower = Headers::from([("Authorization", "bearer   abc ")]);
    assert_eq!(auth::bearer(&lower), Ok(Some("abc".into())));
    for bad in [
        "Basic dXNlcjpwdw==",
        "Bearer",
        "Bearer ",
        "Bearer a b",
        "Token abc",
    ] {
        assert!(
            auth::bearer(&Headers::from([("authorization", bad)])).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn api_keys_parse_named_and_unnamed_digests_and_refuse_anything_else() {
    let d = digest("k1");
    let keys = auth::parse_api_keys(&format!("robot={d}, {}", digest("k2"))).unwrap();
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[0].name, "robot");
    assert_eq!(keys[1].name, digest("k2"));
    assert!(auth::parse_api_keys("").unwrap().is_empty());
    for bad in [
        "robot=abc".to_owned(),
        d.to_uppercase(),
        format!("bad name={d}"),
        format!("={d}"),
        format!("{d}0"),
    ] {
        let e = auth::parse_api_keys(&bad).unwrap_err();
        assert!(e.starts_with("API_KEYS"), "{e}");
    }
}

#[test]
fn the_principal_is_the_key_name_or_the_anonymous_one_when_allowed() {
    let keys = format!("robot={}", digest("secret-key"));
    let a = auth_with(&[("API_KEYS", &keys)]);
    assert_eq!(
        a.authenticate(&bearer("secret-key")),
        Outcome::Principal("key:robot".into())
    );
    match a.authenticate(&bearer("wrong")) {
        Outcome::Refused(McpError::Unauthorized {
            error: Some("invalid_token"),
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    match a.authenticate(&Headers::new()) {
        Outcome::Refused(McpError::Unauthorized {
            error: None,
            message,
        }) => {
            assert!(message.contains("Bearer"));
        }
        other => panic!("{other:?}"),
    }
    let open = auth_with(&[("API_KEYS", &keys), ("ALLOW_ANONYMOUS", "true")]);
    assert_eq!(
        open.authenticate(&Headers::new()),
        Outcome::Principal("anonymous".into())
    );
    // A token presented to a server that allows anonymous callers is still checked.
    assert!(matches!(
        open.authenticate(&bearer("wrong")),
        Outcome::Refused(_)
    ));
}

#[test]
fn with_nothing_configured_and_anonymous_off_the_answer_says_how_to_configure() {
    let a = auth_with(&[]);
    assert!(!a.allow_anonymous, "anonymous access is off by default");
    let Outcome::Refused(e) = a.authenticate(&Headers::new()) else {
        panic!("not refused")
    };
    assert_eq!(e.http_status(), 401);
    let message = e.to_wire().message;
    for needle in ["OAUTH_ISSUER", "API_KEYS", "ALLOW_ANONYMOUS=true"] {
        assert!(message.contains(needle), "{message}");
    }
}

#[test]
fn jwts_go_to_verification_only_when_an_issuer_is_configured() {
    let token = jwt(json!({"alg": "RS256", "kid": "k1"}), claims());
    assert!(matches!(
        auth_with(&[("OAUTH_ISSUER", ISSUER)]).authenticate(&bearer(&token)),
        Outcome::Jwt(t) if t.alg == Alg::Rs256 && t.kid.as_deref() == Some("k1")
    ));
    let keys = format!("robot={}", digest("x"));
    assert!(matches!(
        auth_with(&[("API_KEYS", &keys)]).authenticate(&bearer(&token)),
        Outcome::Refused(_)
    ));
}
#[test]
fn challenges_follow_rfc_6750_and_rfc_9728() {
    let url = auth::metadata_url("https://mcp.example");
    assert_eq!(
        url,
        "https://mcp.example/.well-known/oauth-protected-resource/mcp"
    );
    assert_eq!(
        auth::challenge(&url, None, None, None),
        format!("Bearer resource_metadata=\"{url}\"")
    );
    let e = auth::invalid_token("the \"token\" has expired\n");
    let h = e.http_headers(&url);
    assert_eq!(h[0].0, "www-authenticate");
    assert_eq!(
        h[0].1,
        format!(
            "Bearer resource_metadata=\"{url}\", error=\"invalid_token\", error_description=\"Invalid access token: the 'token' has expired'\""
        )
    );
    let q = McpError::TooManyRequests {
        limit: "QUOTA_LIVE_TASKS",
        max: 3,
        retry_after_s: 5,
    };
    assert_eq!(q.http_status(), 429);
    assert_eq!(q.http_headers(&url), [("retry-after", "5".to_owned())]);
    let wire = q.to_wire();
    assert_eq!(wire.data.unwrap()["limit"], "QUOTA_LIVE_TASKS");
    assert!(wire.message.contains("QUOTA_LIVE_TASKS = 3"));
}

fn get(path: &str) -> HttpRequest {
    HttpRequest {
        method: "GET".into(),
        path: path.into(),
        headers: Headers::new(),
        body: vec![],
    }
}

#[test]
fn protected_resource_metadata_is_served_at_both_paths() {
    let server =
        Server::new(config(&[("OAUTH_ISSUER", ISSUER), ("OAUTH_REQUIRED_SCOPES", "a b")]).unwrap());
    for path in auth::PRM_PATHS {
        let r = server
            .well_known(&get(path), "https://mcp.example")
            .unwrap();
        assert_eq!(r.status, 200);
        let doc: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(
            doc,
            json!({
                "resource": RESOURCE, "authorization_servers": [ISSUER],
                "bearer_methods_supported": ["header"], "scopes_supported": ["a", "b"],
            })
        );
    }
    assert!(
        server
            .well_known(&get("/mcp"), "https://mcp.example")
            .is_none()
    );
    let keys_only = Server::new(config(&[("API_KEYS", &digest("k"))]).unwrap());
    let r = keys_only
        .well_known(&get(auth::PRM_PATHS[1]), "https://mcp.example")
        .unwrap();
    let doc: Value = serde_json::from_slice(&r.body).unwrap();
    assert!(doc.get("authorization_servers").is_none() && doc.get("scopes_supported").is_none());
    let mut post = get(auth::PRM_PATHS[0]);
    post.method = "POST".into();
    assert_eq!(
        server
            .well_known(&post, "https://mcp.example")
            .unwrap()
            .status,
        405
    );
}

#[test]
fn only_post_to_mcp_from_an_allowed_origin_is_authenticated() {
    let server = Server::new(config(&[("API_KEYS", &digest("k"))]).unwrap());
    let mut request = common::post("tools/list", json!({}));
    assert!(matches!(server.authenticate(&request), Outcome::Refused(_)));
    request.headers.push("authorization", "Bearer k");
    assert!(
        matches!(server.authenticate(&request), Outcome::Principal(p) if p.starts_with("key:"))
    );
    let mut preflight = common::post("tools/list", json!({}));
    preflight.method = "OPTIONS".into();
    assert!(matches!(
        server.authenticate(&preflight),
        Outcome::Principal(_)
    ));
    let mut foreign = common::post("tools/list", json!({}));
    foreign.headers.push("origin", "https://evil.example");
    assert!(matches!(
        server.authenticate(&foreign),
        Outcome::Principal(_)
    ));
    // The refusal carries the challenge and CORS exposes it to browsers.
    let mut browser = common::post("tools/list", json!({}));
    browser.headers.push("origin", "http://localhost:3000");
    let Outcome::Refused(e) = server.authenticate(&browser) else {
        panic!()
    };
    let r = server.refuse(
        None,
        &e,
        &server.envelope_for(&browser),
        "https://mcp.example",
    );
    assert_eq!(r.status, 401);
    let header = |n: &str| {
        r.headers
            .iter()
            .find(|(k, _)| *k == n)
            .map(|(_, v)| v.clone())
    };
    assert!(
        header("www-authenticate")
            .unwrap()
            .starts_with("Bearer resource_metadata=")
    );
    assert!(
        header("access-control-expose-headers")
            .unwrap()
            .contains("www-authenticate")
    );
}

#[test]
fn auth_and_quota_variables_are_validated() {
    assert!(config(&[("OAUTH_ISSUER", "not a url")]).is_err());
    assert!(config(&[("OAUTH_ISSUER", "ftp://x")]).is_err());
    assert_eq!(config(&[("OAUTH_ISSUER", "")]).unwrap().auth.issuer, None);
    assert!(config(&[("ALLOW_ANONYMOUS", "yes")]).is_err());
    assert!(config(&[("QUOTA_LIVE_TASKS", "-1")]).is_err());
    let c = config(&[
        ("QUOTA_LIVE_TASKS", "unlimited"),
        ("QUOTA_TASKS_PER_MINUTE", "5"),
        ("OAUTH_REQUIRED_SCOPES", "a,b c"),
    ])
    .unwrap();
    assert_eq!(c.quotas.live_tasks, None);
    assert_eq!(c.quotas.tasks_per_minute, Some(5));
    assert_eq!(c.quotas.listen_streams, Some(10));
    assert_eq!(c.auth.required_scopes, ["a", "b", "c"]);
    let d = Config::default();
    assert_eq!(
        (
            d.quotas.tasks_per_minute,
            d.quotas.live_tasks,
            d.quotas.listen_streams
        ),
        (Some(60), Some(100), Some(10))
    );
}
