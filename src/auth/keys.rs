//! A token's signature, checked with the issuer's keys as a resource server keeps them,
//! once for every platform: the issuer's metadata (RFC 8414, then OpenID Connect
//! Discovery) names its `jwks_uri`, whose JWKS (RFC 7517) is cached per isolate
//! ([`Keys`]) and fetched again when stale, or (at most once per
//! `OAUTH_JWKS_MIN_REFETCH_MS`) when a token names an unknown `kid`, so a flood of bogus
//! kids does not hammer the issuer. A failed fetch keeps the keys already held and is
//! recorded like a fetch, so a failing issuer is not asked on every request. The
//! platform fetches and verifies ([`Verifying`]: WebCrypto on Workers).

use super::jwt::{self, Jwk, JwksCache, KeyChoice, Token};
use super::{AuthConfig, invalid_token};
use crate::error::McpError;
use std::cell::RefCell;

/// What checking a signature needs of the platform.
// Single threaded, as `server::perform::Effects`.
#[allow(async_fn_in_trait)]
pub trait Verifying {
    /// One of the issuer's documents (metadata, JWKS): its body, or why not (a status
    /// other than 200, a redirect, a timeout, a body too large).
    async fn get(&self, url: &str) -> Result<Vec<u8>, String>;
    /// Whether `token`'s signature verifies with `key`, or why it could not be checked.
    async fn verify(&self, key: &Jwk, token: &Token) -> Result<bool, String>;
}

/// The issuer's keys in one isolate, and where they come from.
#[derive(Debug, Clone, Default)]
pub struct Keys {
    pub cache: JwksCache,
    /// The issuer's `jwks_uri`, once its metadata was read.
    pub jwks_uri: Option<String>,
}

/// Checks `token`'s signature with the issuer's key chosen by `kid`, fetching keys as
/// needed into `keys`. `Err` is the refusal to answer with (401, or 500 when the
/// issuer's keys cannot be had at all).
pub async fn verify(
    keys: &RefCell<Keys>,
    config: &AuthConfig,
    token: &Token,
    now_ms: u64,
    p: &impl Verifying,
) -> Result<(), McpError> {
    let Some(issuer) = config.issuer.as_deref() else {
        return Err(invalid_token("this server accepts no JWTs"));
    };
    let stale = keys.borrow().cache.stale(now_ms);
    if stale {
        refresh(keys, issuer, now_ms, p).await?;
    }
    let key = match choose(keys, token)? {
        Some(key) => key,
        None => {
            let min_interval = config.jwks_min_refetch_ms;
            let may_refetch = keys.borrow().cache.may_refetch(now_ms, min_interval);
            if !may_refetch {
                return Err(invalid_token("no key of the issuer has this kid"));
            }
            refresh(keys, issuer, now_ms, p).await?;
            let chosen = choose(keys, token)?;
            chosen.ok_or_else(|| invalid_token("no key of the issuer has this kid"))?
        }
    };
    match p.verify(&key, token).await {
        Ok(true) => Ok(()),
        Ok(false) => Err(invalid_token("the signature does not verify")),
        Err(why) => Err(invalid_token(format!(
            "the signature could not be checked: {why}"
        ))),
    }
}

/// The held key `token` names: `None` when no key has its `kid`; a refusal when the key
/// cannot verify the token's algorithm.
fn choose(keys: &RefCell<Keys>, token: &Token) -> Result<Option<Jwk>, McpError> {
    match jwt::select(&keys.borrow().cache.keys, token) {
        KeyChoice::Found(key) => Ok(Some(key.clone())),
        KeyChoice::Unknown => Ok(None),
        KeyChoice::Unfit => Err(invalid_token(
            "the key named by kid cannot verify the token's algorithm",
        )),
    }
}

/// Fetches the JWKS again (and the metadata, the first time). The attempt is recorded
/// even when it fails; keys already held are kept then.
async fn refresh(
    keys: &RefCell<Keys>,
    issuer: &str,
    now_ms: u64,
    p: &impl Verifying,
) -> Result<(), McpError> {
    let known = keys.borrow().jwks_uri.clone();
    let fetched = async {
        let jwks_uri = match known {
            Some(uri) => uri,
            None => metadata(issuer, p).await?,
        };
        let fetched = jwt::parse_jwks(&p.get(&jwks_uri).await?)?;
        Ok::<_, String>((jwks_uri, fetched))
    }
    .await;
    let mut keys = keys.borrow_mut();
    keys.cache.fetched_at_ms = now_ms;
    match fetched {
        Ok((uri, fetched)) => {
            keys.cache.keys = fetched;
            keys.jwks_uri = Some(uri);
            Ok(())
        }
        Err(_) if !keys.cache.keys.is_empty() => Ok(()),
        Err(why) => Err(McpError::Internal(format!(
            "the authorization server's keys are unavailable: {why}"
        ))),
    }
}

/// The issuer's `jwks_uri`, from the first of its metadata documents that names one.
async fn metadata(issuer: &str, p: &impl Verifying) -> Result<String, String> {
    let mut errors = Vec::new();
    for url in jwt::metadata_urls(issuer) {
        match p
            .get(&url)
            .await
            .and_then(|body| jwt::jwks_uri(&body, issuer))
        {
            Ok(uri) => return Ok(uri),
            Err(e) => errors.push(e),
        }
    }
    Err(errors.join("; "))
}
