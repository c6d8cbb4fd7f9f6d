//! Authentication, natively: bearer parsing, API keys, the JWT header and claim rules,
//! key selection, JWKS refetch limits, challenges, Protected Resource Metadata, and the
//! configuration that drives them. (Signatures are WebCrypto's, checked end to end.)

mod common;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use common::NOW;
use mcp_tasks_edge::auth::jwt::{self, Alg, ClaimRules, JwksCache, KeyChoice};
use mcp_tasks_edge::auth::{self, AuthConfig, Outcome};
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::http::{Headers, HttpRequest};
use mcp_tasks_edge::server::{Config, Server};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const ISSUER: &str = "https://issuer.example";
const RESOURCE: &str = "https://mcp.example/mcp";

fn digest(key: &str) -> String {
    Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn config(vars: &[(&str, &str)]) -> Result<Config, String> {
    Config::from_vars(|name| {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
    })
}

fn auth_with(vars: &[(&str, &str)]) -> AuthConfig {
    config(vars).unwrap().auth
}

fn bearer(token: &str) -> Headers {
    Headers::from([("authorization", format!("Bearer {token}").as_str())])
}

fn jwt(header: Value, claims: Value) -> String {
    format!(
        "{}.{}.{}",
        B64.encode(header.to_string()),
        B64.encode(claims.to_string()),
        B64.encode([7u8; 64])
    )
}

fn claims() -> Value {
    let now = NOW / 1000;
    json!({ "iss": ISSUER, "sub": "alice", "aud": RESOURCE, "exp": now + 600, "iat": now, "scope": "mcp:tools extra" })
}

fn rules(audiences: &[String]) -> ClaimRules<'_> {
    ClaimRules {
        issuer: ISSUER,
        audiences,
        now_ms: NOW,
    }
}

fn refused(result: Result<jwt::Grant, jwt::Invalid>, needle: &str) {
    match result {
        Err(jwt::Invalid(why)) => assert!(why.contains(needle), "{why:?} lacks {needle:?}"),
        Ok(grant) => panic!("accepted: {grant:?}"),
    }
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
fn only_rs256_and_es256_are_accepted() {
    for alg in [
        "none", "HS256", "HS384", "HS512", "PS256", "RS384", "ES384", "EdDSA", "",
    ] {
        let token = jwt(json!({ "alg": alg, "kid": "k" }), claims());
        let e = jwt::parse(&token).unwrap_err();
        assert!(e.0.contains("not accepted"), "{alg}: {e:?}");
    }
    // `alg: none` with an empty signature.
    let none = format!(
        "{}.{}.",
        B64.encode(json!({"alg": "none"}).to_string()),
        B64.encode(claims().to_string())
    );
    assert!(jwt::parse(&none).is_err());
    assert!(jwt::parse(&jwt(json!({"kid": "k"}), claims())).is_err());
    assert!(jwt::parse(&jwt(json!({"alg": "RS256", "crit": ["exp"]}), claims())).is_err());
    assert!(jwt::parse(&jwt(json!({"alg": "RS256", "typ": "JOSE+JSON"}), claims())).is_err());
    assert!(jwt::parse(&jwt(json!({"alg": "RS256", "typ": "at+jwt"}), claims())).is_ok());
    let es = jwt(json!({"alg": "ES256"}), claims());
    assert_eq!(jwt::parse(&es).unwrap().signature.len(), 64);
}

#[test]
fn malformed_tokens_are_clear_errors() {
    for bad in [
        "",
        "a",
        "a.b",
        "a.b.c.d",
        "!!.!!.!!",
        "e30.e30.",
        "W10.e30.AA",
        "e30.W10.AA",
    ] {
        assert!(jwt::parse(bad).is_err(), "{bad}");
    }
    assert!(jwt::parse(&"a".repeat(jwt::MAX_TOKEN_BYTES + 1)).is_err());
}

#[test]
fn claims_need_issuer_audience_expiry_and_subject() {
    let aud = vec![RESOURCE.to_owned()];
    let grant = jwt::check_claims(&claims(), &rules(&aud)).unwrap();
    assert_eq!(grant.subject, "alice");
    assert_eq!(grant.scopes, ["mcp:tools", "extra"]);
    let with = |patch: Value| {
        let mut c = claims();
        for (k, v) in patch.as_object().unwrap() {
            if v.is_null() {
                c.as_object_mut().unwrap().remove(k);
            } else {
                c[k] = v.clone();
            }
        }
        jwt::check_claims(&c, &rules(&aud))
    };
    let now = NOW / 1000;
    refused(
        with(json!({"iss": "https://evil.example"})),
        "not issued by",
    );
    refused(with(json!({"iss": null})), "not issued by");
    refused(with(json!({"aud": "https://other/mcp"})), "audience");
    refused(with(json!({"aud": ["https://a", "https://b"]})), "audience");
    refused(with(json!({"aud": null})), "audience");
    assert!(with(json!({"aud": ["https://a", RESOURCE]})).is_ok());
    refused(with(json!({"exp": null})), "no exp");
    refused(with(json!({"exp": now - 61})), "expired");
    assert!(with(json!({"exp": now - 30})).is_ok(), "within the skew");
    refused(with(json!({"exp": "soon"})), "NumericDate");
    refused(with(json!({"nbf": now + 120})), "not valid yet");
    assert!(with(json!({"nbf": now + 30})).is_ok(), "within the skew");
    refused(with(json!({"iat": now + 3600})), "future");
    refused(with(json!({"sub": null})), "no sub");
    refused(with(json!({"sub": ""})), "no sub");
    let scp = with(json!({"scope": null, "scp": ["a", "b"]})).unwrap();
    assert_eq!(scp.scopes, ["a", "b"]);
}

#[test]
fn grants_check_scopes_and_name_issuer_plus_subject() {
    let a = auth_with(&[
        ("OAUTH_ISSUER", ISSUER),
        ("OAUTH_REQUIRED_SCOPES", "mcp:tools"),
    ]);
    let token = jwt::parse(&jwt(json!({"alg": "ES256"}), claims())).unwrap();
    let principal = a.grant(&token, RESOURCE, NOW).unwrap();
    assert_eq!(principal, auth::oauth_principal(ISSUER, "alice"));
    assert_ne!(principal, auth::oauth_principal(ISSUER, "bob"));
    assert_ne!(
        principal,
        auth::oauth_principal("https://issuer.example/x", "alice")
    );
    let strict = auth_with(&[
        ("OAUTH_ISSUER", ISSUER),
        ("OAUTH_REQUIRED_SCOPES", "mcp:tools mcp:admin"),
    ]);
    match strict.grant(&token, RESOURCE, NOW) {
        Err(e @ McpError::InsufficientScope { .. }) => {
            assert_eq!(e.http_status(), 403);
            let headers =
                e.http_headers("https://mcp.example/.well-known/oauth-protected-resource/mcp");
            assert_eq!(
                headers[0].1,
                "Bearer resource_metadata=\"https://mcp.example/.well-known/oauth-protected-resource/mcp\", error=\"insufficient_scope\", scope=\"mcp:tools mcp:admin\", error_description=\"The access token lacks the scope mcp:admin this server requires\""
            );
        }
        other => panic!("{other:?}"),
    }
    // OAUTH_AUDIENCE replaces the default audience (the resource URL).
    let custom = auth_with(&[
        ("OAUTH_ISSUER", ISSUER),
        ("OAUTH_AUDIENCE", "api://mcp, other"),
    ]);
    assert!(custom.grant(&token, RESOURCE, NOW).is_err());
    let mut c = claims();
    c["aud"] = json!("api://mcp");
    let token = jwt::parse(&jwt(json!({"alg": "RS256"}), c)).unwrap();
    assert!(custom.grant(&token, RESOURCE, NOW).is_ok());
}

fn key(kid: Option<&str>, kty: &str) -> jwt::Jwk {
    serde_json::from_value(match kty {
        "RSA" => json!({"kty": "RSA", "kid": kid, "n": "AQAB", "e": "AQAB"}),
        _ => json!({"kty": "EC", "kid": kid, "crv": "P-256", "x": "AA", "y": "AA"}),
    })
    .unwrap()
}

#[test]
fn keys_are_chosen_by_kid_and_must_fit_the_algorithm() {
    let keys = vec![key(Some("r1"), "RSA"), key(Some("e1"), "EC")];
    let token = |alg: &str, kid: Option<&str>| {
        let mut h = json!({ "alg": alg });
        if let Some(kid) = kid {
            h["kid"] = json!(kid);
        }
        jwt::parse(&jwt(h, claims())).unwrap()
    };
    assert!(
        matches!(jwt::select(&keys, &token("RS256", Some("r1"))), KeyChoice::Found(k) if k.kid.as_deref() == Some("r1"))
    );
    assert!(matches!(
        jwt::select(&keys, &token("ES256", Some("e1"))),
        KeyChoice::Found(_)
    ));
    assert_eq!(
        jwt::select(&keys, &token("ES256", Some("r1"))),
        KeyChoice::Unfit
    );
    assert_eq!(
        jwt::select(&keys, &token("RS256", Some("nope"))),
        KeyChoice::Unknown
    );
    // Without a kid: only when exactly one key fits.
    assert!(matches!(
        jwt::select(&keys, &token("RS256", None)),
        KeyChoice::Found(_)
    ));
    let two = vec![key(Some("r1"), "RSA"), key(Some("r2"), "RSA")];
    assert_eq!(jwt::select(&two, &token("RS256", None)), KeyChoice::Unknown);
    // A key marked for another algorithm or for encryption does not fit.
    let mut enc = key(Some("r1"), "RSA");
    enc.use_ = Some("enc".into());
    assert!(!enc.fits(Alg::Rs256));
    let mut other = key(Some("r1"), "RSA");
    other.alg = Some("RS512".into());
    assert!(!other.fits(Alg::Rs256));
    // Only public parameters reach WebCrypto.
    assert_eq!(
        key(Some("r1"), "RSA").public_jwk(),
        json!({"kty": "RSA", "n": "AQAB", "e": "AQAB"})
    );
}

#[test]
fn jwks_documents_skip_unusable_keys_and_metadata_must_name_the_issuer() {
    let keys = jwt::parse_jwks(br#"{"keys":[{"kty":"RSA","kid":"a","n":"x","e":"y"},{"nonsense":1},{"kty":"oct","k":"x"}]}"#).unwrap();
    assert_eq!(keys.len(), 2);
    assert!(jwt::parse_jwks(b"[]").is_err());
    assert_eq!(
        jwt::metadata_urls("https://id.example/tenant/"),
        [
            "https://id.example/.well-known/oauth-authorization-server/tenant",
            "https://id.example/tenant/.well-known/openid-configuration"
        ]
    );
    assert_eq!(
        jwt::metadata_urls(ISSUER)[0],
        "https://issuer.example/.well-known/oauth-authorization-server"
    );
    let meta = json!({"issuer": ISSUER, "jwks_uri": "https://issuer.example/jwks"}).to_string();
    assert_eq!(
        jwt::jwks_uri(meta.as_bytes(), ISSUER).unwrap(),
        "https://issuer.example/jwks"
    );
    assert!(jwt::jwks_uri(meta.as_bytes(), "https://other.example").is_err());
    assert!(jwt::jwks_uri(br#"{"issuer":"https://issuer.example"}"#, ISSUER).is_err());
}

#[test]
fn unknown_kids_refetch_the_jwks_at_most_once_per_interval() {
    let never = JwksCache::default();
    assert!(never.stale(NOW) && never.may_refetch(NOW, 30_000));
    let cache = JwksCache {
        keys: vec![],
        fetched_at_ms: NOW,
    };
    assert!(!cache.stale(NOW + 1000));
    assert!(cache.stale(NOW + jwt::JWKS_TTL_MS));
    assert!(!cache.may_refetch(NOW + 29_999, 30_000));
    assert!(cache.may_refetch(NOW + 30_000, 30_000));
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
    let r = server.refuse(None, &e, &server.cors_for(&browser), "https://mcp.example");
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
