//! A token's signature checked with the issuer's keys (`src/auth/keys.rs`), on a platform
//! that serves the issuer's documents and counts each fetch: metadata, then the JWKS,
//! once; a token naming an unknown `kid` fetches again at most once per
//! `OAUTH_JWKS_MIN_REFETCH_MS`; stale keys are fetched again; a failing issuer keeps the
//! keys held (and is not asked on every request), and with none held the answer is 500.

mod common;

use common::NOW;
use common::auth::{ISSUER, RESOURCE, auth_with, claims, jwt};
use mcp_tasks_edge::auth::AuthConfig;
use mcp_tasks_edge::auth::jwt::{self, JWKS_TTL_MS, Jwk, Token};
use mcp_tasks_edge::auth::keys::{Keys, Verifying, verify};
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use serde_json::json;
use std::cell::RefCell;

const JWKS_URI: &str = "https://issuer.example/jwks";

/// The issuer's documents; `jwks` is the key ids it publishes, `down` fails every fetch.
/// A signature verifies when its key's id is in `good`.
struct Issuer {
    jwks: RefCell<Vec<&'static str>>,
    down: bool,
    fetched: RefCell<Vec<String>>,
    good: Vec<&'static str>,
}

impl Issuer {
    fn new(kids: &[&'static str]) -> Issuer {
        Issuer {
            jwks: RefCell::new(kids.to_vec()),
            down: false,
            fetched: RefCell::default(),
            good: kids.to_vec(),
        }
    }

    fn fetched(&self) -> Vec<String> {
        self.fetched.borrow().clone()
    }
}

impl Verifying for Issuer {
    async fn get(&self, url: &str) -> Result<Vec<u8>, String> {
        self.fetched.borrow_mut().push(url.to_owned());
        if self.down {
            return Err(format!("{url}: HTTP 503"));
        }
        let body = match url {
            "https://issuer.example/.well-known/oauth-authorization-server" => {
                json!({ "issuer": ISSUER, "jwks_uri": JWKS_URI })
            }
            JWKS_URI => {
                let keys: Vec<_> = (self.jwks.borrow().iter())
                    .map(|kid| json!({"kty": "RSA", "kid": kid, "n": "AQAB", "e": "AQAB"}))
                    .collect();
                json!({ "keys": keys })
            }
            _ => return Err(format!("{url}: HTTP 404")),
        };
        Ok(body.to_string().into_bytes())
    }

    async fn verify(&self, key: &Jwk, _: &Token) -> Result<bool, String> {
        Ok(self.good.iter().any(|kid| key.kid.as_deref() == Some(*kid)))
    }
}

fn config() -> AuthConfig {
    auth_with(&[
        ("OAUTH_ISSUER", ISSUER),
        ("OAUTH_RESOURCE", RESOURCE),
        ("OAUTH_JWKS_MIN_REFETCH_MS", "30000"),
    ])
}

fn token(kid: &str) -> Token {
    jwt::parse(&jwt(json!({ "alg": "RS256", "kid": kid }), claims())).unwrap()
}

fn check(keys: &RefCell<Keys>, issuer: &Issuer, kid: &str, at: u64) -> Result<(), McpError> {
    block_on(verify(keys, &config(), &token(kid), at, issuer))
}

fn message(result: Result<(), McpError>) -> String {
    result.unwrap_err().to_wire().message
}

#[test]
fn the_first_token_reads_the_metadata_then_the_jwks_and_later_ones_nothing() {
    let keys = RefCell::default();
    let issuer = Issuer::new(&["k1"]);
    check(&keys, &issuer, "k1", NOW).unwrap();
    let metadata = "https://issuer.example/.well-known/oauth-authorization-server";
    assert_eq!(issuer.fetched(), [metadata, JWKS_URI]);
    check(&keys, &issuer, "k1", NOW + 1).unwrap();
    assert_eq!(issuer.fetched().len(), 2, "held keys are used");
    // Stale after JWKS_TTL_MS: the JWKS again, not the metadata.
    check(&keys, &issuer, "k1", NOW + JWKS_TTL_MS).unwrap();
    assert_eq!(issuer.fetched()[2..], [JWKS_URI]);
}

#[test]
fn an_unknown_kid_refetches_at_most_once_per_interval() {
    let keys = RefCell::default();
    let issuer = Issuer::new(&["k1"]);
    check(&keys, &issuer, "k1", NOW).unwrap();
    // A key the issuer rotated in: found by refetching, once the interval has passed.
    issuer.jwks.borrow_mut().push("k2");
    let refused = message(check(&keys, &issuer, "k2", NOW + 1_000));
    assert!(
        refused.ends_with("no key of the issuer has this kid"),
        "{refused}"
    );
    assert_eq!(issuer.fetched().len(), 2, "within the interval: not asked");
    let mut issuer = issuer;
    issuer.good.push("k2");
    check(&keys, &issuer, "k2", NOW + 30_000).unwrap();
    assert_eq!(issuer.fetched().len(), 3);
    // A flood of bogus kids: one refetch per interval.
    for at in [NOW + 30_001, NOW + 40_000, NOW + 59_999] {
        assert!(check(&keys, &issuer, "bogus", at).is_err());
    }
    assert_eq!(issuer.fetched().len(), 3);
}

#[test]
fn a_signature_that_does_not_verify_is_refused() {
    let keys = RefCell::default();
    let mut issuer = Issuer::new(&["k1"]);
    issuer.good.clear();
    let error = check(&keys, &issuer, "k1", NOW).unwrap_err();
    assert_eq!(error.http_status(), 401);
    assert!(message(Err(error)).ends_with("the signature does not verify"));
}

#[test]
fn a_failing_issuer_keeps_the_keys_held_and_without_any_is_a_500() {
    let keys = RefCell::default();
    let mut issuer = Issuer::new(&["k1"]);
    issuer.down = true;
    let error = check(&keys, &issuer, "k1", NOW).unwrap_err();
    assert_eq!(error.http_status(), 500);
    let why = message(Err(error));
    assert!(
        why.contains("the authorization server's keys are unavailable"),
        "{why}"
    );
    assert_eq!(issuer.fetched().len(), 2, "both metadata documents tried");
    // Recorded as a fetch: not asked again on every request.
    assert!(check(&keys, &issuer, "k1", NOW + 1).is_err());
    assert_eq!(issuer.fetched().len(), 2);
    // Keys held, then the issuer fails: they are kept.
    let keys = RefCell::default();
    let mut issuer = Issuer::new(&["k1"]);
    check(&keys, &issuer, "k1", NOW).unwrap();
    issuer.down = true;
    check(&keys, &issuer, "k1", NOW + JWKS_TTL_MS).unwrap();
    assert_eq!(
        issuer.fetched().len(),
        3,
        "the stale keys were asked for once"
    );
}

#[test]
fn a_server_without_an_issuer_accepts_no_jwts() {
    let keys = RefCell::default();
    let issuer = Issuer::new(&["k1"]);
    let config = auth_with(&[]);
    let error = block_on(verify(&keys, &config, &token("k1"), NOW, &issuer)).unwrap_err();
    assert_eq!(error.http_status(), 401);
    assert!(issuer.fetched().is_empty());
}
