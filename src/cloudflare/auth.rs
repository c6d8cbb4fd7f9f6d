//! The issuer's documents fetched through the runtime, and JWT signatures checked with
//! its WebCrypto: the platform of `auth::keys`, which decides when keys are fetched and
//! which key checks a token; the keys are kept per isolate. The claim rules are the
//! core's (`crate::auth`).

use crate::auth::AuthConfig;
use crate::auth::jwt::{Alg, Jwk, Token};
use crate::auth::keys::{self, Keys, Verifying};
use crate::error::McpError;
use crate::host::{Limits, Outbound};
use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;

thread_local! {
    /// The issuer's keys in this isolate, and where they come from.
    static KEYS: Rc<RefCell<Keys>> = Rc::default();
}

/// Checks `token`'s signature (`auth::keys::verify`) with this isolate's keys. `Err` is
/// the refusal to answer with.
pub async fn verify(config: &AuthConfig, token: &Token, now_ms: u64) -> Result<(), McpError> {
    let keys = KEYS.with(Rc::clone);
    keys::verify(&keys, config, token, now_ms, &WebCrypto).await
}

/// The runtime's `fetch` and WebCrypto.
struct WebCrypto;

impl Verifying for WebCrypto {
    /// The issuer's documents: small, quick, never redirected elsewhere (a 3xx is a
    /// failure).
    async fn get(&self, url: &str) -> Result<Vec<u8>, String> {
        let request = Outbound::new("GET", url).header("accept", "application/json");
        let limits = Limits {
            timeout_ms: 5_000,
            max_bytes: 1024 * 1024,
        };
        let answer = super::exchange::send(request, limits)
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        if answer.status != 200 {
            return Err(format!("{url}: HTTP {}", answer.status));
        }
        Ok(answer.body)
    }

    async fn verify(&self, key: &Jwk, token: &Token) -> Result<bool, String> {
        webcrypto_verify(key, token).await
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
