//! JWT signatures with the runtime's WebCrypto, and the issuer's keys: metadata →
//! `jwks_uri` → JWKS, cached per isolate, refetched when stale or (at most once per
//! `OAUTH_JWKS_MIN_REFETCH_MS`) when a token names an unknown `kid`. The claim rules
//! are the core's (`crate::auth`).

use crate::auth::jwt::{self, Alg, Jwk, JwksCache, KeyChoice, Token};
use crate::auth::{self, AuthConfig};
use crate::error::McpError;
use crate::host::{Limits, Outbound};
use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use std::cell::RefCell;
use wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;

thread_local! {
    /// The issuer's keys in this isolate, and where they come from.
    static JWKS: RefCell<(JwksCache, Option<String>)> = RefCell::new(Default::default());
}

/// Checks `token`'s signature with the issuer's key chosen by `kid`. `Err` is the
/// refusal to answer with (401, or 500 when the issuer cannot be reached at all).
pub async fn verify(config: &AuthConfig, token: &Token, now_ms: u64) -> Result<(), McpError> {
    let Some(issuer) = config.issuer.as_deref() else {
        return Err(auth::invalid_token("this server accepts no JWTs"));
    };
    let (cache, _) = JWKS.with(|c| c.borrow().clone());
    if cache.stale(now_ms) {
        refresh(issuer, now_ms).await?;
    }
    let key = match choose(token) {
        Choice::Key(key) => key,
        Choice::Unfit => {
            return Err(auth::invalid_token(
                "the key named by kid cannot verify the token's algorithm",
            ));
        }
        Choice::Unknown => {
            let (cache, _) = JWKS.with(|c| c.borrow().clone());
            if !cache.may_refetch(now_ms, config.jwks_min_refetch_ms) {
                return Err(auth::invalid_token("no key of the issuer has this kid"));
            }
            refresh(issuer, now_ms).await?;
            match choose(token) {
                Choice::Key(key) => key,
                _ => return Err(auth::invalid_token("no key of the issuer has this kid")),
            }
        }
    };
    match webcrypto_verify(&key, token).await {
        Ok(true) => Ok(()),
        Ok(false) => Err(auth::invalid_token("the signature does not verify")),
        Err(why) => Err(auth::invalid_token(format!(
            "the signature could not be checked: {why}"
        ))),
    }
}

enum Choice {
    Key(Jwk),
    Unknown,
    Unfit,
}

fn choose(token: &Token) -> Choice {
    JWKS.with(|c| match jwt::select(&c.borrow().0.keys, token) {
        KeyChoice::Found(key) => Choice::Key(key.clone()),
        KeyChoice::Unknown => Choice::Unknown,
        KeyChoice::Unfit => Choice::Unfit,
    })
}

/// The issuer's documents: small, quick, never redirected elsewhere (a 3xx is a failure).
async fn get(url: &str) -> Result<Vec<u8>, String> {
    let request = Outbound::new("GET", url).header("accept", "application/json");
    let limits = Limits {
        timeout_ms: 5_000,
        max_bytes: 1024 * 1024,
    };
    let answer = super::host::send(request, limits)
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    if answer.status != 200 {
        return Err(format!("{url}: HTTP {}", answer.status));
    }
    Ok(answer.body)
}

/// Fetches the JWKS again (and the metadata, the first time). The attempt is recorded
/// even when it fails, so a failing issuer is not asked on every request; keys already
/// held are kept then.
async fn refresh(issuer: &str, now_ms: u64) -> Result<(), McpError> {
    let known = JWKS.with(|c| c.borrow().1.clone());
    let result = async {
        let jwks_uri = match known {
            Some(uri) => uri,
            None => {
                let mut errors = Vec::new();
                let mut found = None;
                for url in jwt::metadata_urls(issuer) {
                    match get(&url)
                        .await
                        .and_then(|body| jwt::jwks_uri(&body, issuer))
                    {
                        Ok(uri) => {
                            found = Some(uri);
                            break;
                        }
                        Err(e) => errors.push(e),
                    }
                }
                found.ok_or_else(|| errors.join("; "))?
            }
        };
        let keys = jwt::parse_jwks(&get(&jwks_uri).await?)?;
        Ok::<_, String>((jwks_uri, keys))
    }
    .await;
    JWKS.with(|c| {
        let mut c = c.borrow_mut();
        c.0.fetched_at_ms = now_ms;
        if let Ok((uri, keys)) = &result {
            c.0.keys = keys.clone();
            c.1 = Some(uri.clone());
        }
    });
    match result {
        Ok(_) => Ok(()),
        Err(_) if JWKS.with(|c| !c.borrow().0.keys.is_empty()) => Ok(()),
        Err(why) => Err(McpError::Internal(format!(
            "the authorization server's keys are unavailable: {why}"
        ))),
    }
}

fn js_err(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            Reflect::get(&e, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
        })
        .unwrap_or_else(|| "WebCrypto error".into())
}

fn object(pairs: &[(&str, &str)]) -> Result<Object, JsValue> {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &(*k).into(), &(*v).into())?;
    }
    Ok(o)
}

async fn call(subtle: &JsValue, method: &str, args: &Array) -> Result<JsValue, JsValue> {
    let f: Function = Reflect::get(subtle, &method.into())?.dyn_into()?;
    let promise: Promise = f.apply(subtle, args)?.dyn_into()?;
    JsFuture::from(promise).await
}

/// `crypto.subtle.importKey("jwk", …)` then `verify(…)`.
async fn webcrypto_verify(key: &Jwk, token: &Token) -> Result<bool, String> {
    let run = async {
        let crypto = Reflect::get(&js_sys::global(), &"crypto".into())?;
        let subtle = Reflect::get(&crypto, &"subtle".into())?;
        let jwk = js_sys::JSON::parse(&key.public_jwk().to_string())?;
        let (import, params) = match token.alg {
            Alg::Rs256 => (
                object(&[("name", "RSASSA-PKCS1-v1_5"), ("hash", "SHA-256")])?,
                object(&[("name", "RSASSA-PKCS1-v1_5")])?,
            ),
            Alg::Es256 => (
                object(&[("name", "ECDSA"), ("namedCurve", "P-256")])?,
                object(&[("name", "ECDSA"), ("hash", "SHA-256")])?,
            ),
        };
        let usages = Array::of1(&"verify".into());
        let args = Array::of5(&"jwk".into(), &jwk, &import, &false.into(), &usages);
        let crypto_key = call(&subtle, "importKey", &args).await?;
        let signature = Uint8Array::from(token.signature.as_slice());
        let data = Uint8Array::from(token.signing_input.as_bytes());
        let args = Array::of4(&params, &crypto_key, &signature, &data);
        let ok = call(&subtle, "verify", &args).await?;
        Ok::<bool, JsValue>(ok.as_bool().unwrap_or(false))
    };
    run.await.map_err(js_err)
}
