//! JWTs, natively: the header and claim rules, grants and their scopes, key selection by
//! kid and algorithm, JWKS documents and their refetch limits. Bearer parsing, API keys,
//! challenges and the configuration: tests/auth.rs. (Signatures are WebCrypto's, checked
//! end to end.)

mod common;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use common::NOW;
use common::auth::{ISSUER, RESOURCE, auth_with, claims, jwt};
use mcp_tasks_edge::auth;
use mcp_tasks_edge::auth::jwt::{self, Alg, ClaimRules, JwksCache, KeyChoice};
use mcp_tasks_edge::error::McpError;
use serde_json::{Value, json};

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
