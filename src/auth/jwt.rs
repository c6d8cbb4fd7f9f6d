//! JWT access tokens (RFC 9068 profile of RFC 7519), the pure part: splitting and
//! decoding a compact JWS, the algorithm allow-list, key selection from a JWKS by `kid`,
//! the claim rules, and when to refetch the JWKS. The signature itself is checked by the
//! adapter with the runtime's WebCrypto over [`Token::signing_input`].

use crate::uri::Uri;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The largest token accepted (bytes); larger ones are refused before decoding.
pub const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// Clock skew tolerated on `exp` and `nbf`.
pub const SKEW_MS: u64 = 60_000;

/// The signature algorithms accepted. Everything else (`none`, every HMAC, PS*, ES384…)
/// is refused before a key is even looked at: no algorithm confusion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alg {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (an RSA key, `kty: RSA`).
    Rs256,
    /// ECDSA P-256 with SHA-256 (`kty: EC`, `crv: P-256`); the signature is `r || s`.
    Es256,
}

impl Alg {
    pub fn name(self) -> &'static str {
        match self {
            Alg::Rs256 => "RS256",
            Alg::Es256 => "ES256",
        }
    }
}

/// A decoded, not yet verified, compact JWS.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub alg: Alg,
    pub kid: Option<String>,
    pub claims: Value,
    /// `base64url(header) "." base64url(payload)`: the bytes the signature covers.
    pub signing_input: String,
    pub signature: Vec<u8>,
}

/// Why a token was refused (its text becomes the `error_description`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid(pub String);

fn invalid(why: impl Into<String>) -> Invalid {
    Invalid(why.into())
}

/// Whether `token` has the shape of a compact JWS (three base64url parts); API keys do
/// not.
pub fn looks_like_jwt(token: &str) -> bool {
    let parts: Vec<&str> = token.split('.').collect();
    parts.len() == 3
        && parts[..2].iter().all(|p| !p.is_empty())
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

fn decode_json(part: &str, what: &str) -> Result<Value, Invalid> {
    let bytes = URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| invalid(format!("the token's {what} is not base64url")))?;
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|_| invalid(format!("the token's {what} is not JSON")))?;
    if !value.is_object() {
        return Err(invalid(format!("the token's {what} is not a JSON object")));
    }
    Ok(value)
}

/// Decodes a compact JWS and checks its header: `alg` must be in the allow-list, `crit`
/// is not supported, `typ` (when present) must be a JWT type.
pub fn parse(token: &str) -> Result<Token, Invalid> {
    if token.len() > MAX_TOKEN_BYTES {
        return Err(invalid("the token is too long"));
    }
    let mut parts = token.split('.');
    let (Some(h), Some(p), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(invalid(
            "the token is not a compact JWS (header.payload.signature)",
        ));
    };
    let header = decode_json(h, "header")?;
    let alg = match header.get("alg").and_then(Value::as_str) {
        Some("RS256") => Alg::Rs256,
        Some("ES256") => Alg::Es256,
        Some(other) => {
            return Err(invalid(format!(
                "the token's algorithm {other:?} is not accepted (RS256 or ES256)"
            )));
        }
        None => return Err(invalid("the token's header has no alg")),
    };
    if header.get("crit").is_some() {
        return Err(invalid("the token has critical header parameters"));
    }
    if let Some(typ) = header.get("typ") {
        let ok = typ.as_str().is_some_and(|t| {
            let t = t.to_ascii_lowercase();
            let t = t.strip_prefix("application/").unwrap_or(&t);
            t == "jwt" || t == "at+jwt"
        });
        if !ok {
            return Err(invalid("the token's typ is not JWT or at+jwt"));
        }
    }
    let kid = match header.get("kid") {
        None => None,
        Some(Value::String(k)) => Some(k.clone()),
        Some(_) => return Err(invalid("the token's kid is not a string")),
    };
    let claims = decode_json(p, "payload")?;
    let signature = URL_SAFE_NO_PAD
        .decode(s)
        .map_err(|_| invalid("the token's signature is not base64url"))?;
    if signature.is_empty() {
        return Err(invalid("the token is not signed"));
    }
    if alg == Alg::Es256 && signature.len() != 64 {
        return Err(invalid("an ES256 signature is 64 bytes"));
    }
    Ok(Token {
        alg,
        kid,
        claims,
        signing_input: format!("{h}.{p}"),
        signature,
    })
}

/// One key of a JWKS, as far as verification needs it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Jwk {
    pub kty: String,
    #[serde(default)]
    pub kid: Option<String>,
    #[serde(default)]
    pub alg: Option<String>,
    #[serde(default, rename = "use")]
    pub use_: Option<String>,
    #[serde(default)]
    pub crv: Option<String>,
    #[serde(default)]
    pub n: Option<String>,
    #[serde(default)]
    pub e: Option<String>,
    #[serde(default)]
    pub x: Option<String>,
    #[serde(default)]
    pub y: Option<String>,
}

/// A JWK's public parameters only (written, never read: untagged costs nothing here).
#[derive(Serialize)]
#[serde(untagged)]
enum PublicJwk<'a> {
    Rsa {
        kty: &'static str,
        n: Option<&'a str>,
        e: Option<&'a str>,
    },
    Ec {
        kty: &'static str,
        crv: Option<&'a str>,
        x: Option<&'a str>,
        y: Option<&'a str>,
    },
}

impl Jwk {
    /// Whether this key can verify `alg`: the right key type (and curve), not marked for
    /// another algorithm or for encryption, and with its public parameters.
    pub fn fits(&self, alg: Alg) -> bool {
        if self.use_.as_deref().is_some_and(|u| u != "sig") {
            return false;
        }
        if self.alg.as_deref().is_some_and(|a| a != alg.name()) {
            return false;
        }
        match alg {
            Alg::Rs256 => self.kty == "RSA" && self.n.is_some() && self.e.is_some(),
            Alg::Es256 => {
                self.kty == "EC"
                    && self.crv.as_deref() == Some("P-256")
                    && self.x.is_some()
                    && self.y.is_some()
            }
        }
    }

    /// The public key as a JWK object for WebCrypto's `importKey("jwk", …)`: only the
    /// public parameters, never anything else the document carried.
    pub fn public_jwk(&self) -> Value {
        crate::jsonrpc::payload(&match self.kty.as_str() {
            "RSA" => PublicJwk::Rsa {
                kty: "RSA",
                n: self.n.as_deref(),
                e: self.e.as_deref(),
            },
            _ => PublicJwk::Ec {
                kty: "EC",
                crv: self.crv.as_deref(),
                x: self.x.as_deref(),
                y: self.y.as_deref(),
            },
        })
    }
}

/// Parses a JWKS document (`{"keys": [...]}`); keys this server cannot use are skipped.
pub fn parse_jwks(body: &[u8]) -> Result<Vec<Jwk>, String> {
    #[derive(Deserialize)]
    struct Set {
        keys: Vec<Value>,
    }
    let set: Set = crate::jsonrpc::read(body).map_err(|e| format!("not a JWKS: {e}"))?;
    Ok(set
        .keys
        .into_iter()
        .filter_map(|k| crate::jsonrpc::from_value::<Jwk>(k).ok())
        .collect())
}

/// What key selection found.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyChoice<'a> {
    Found(&'a Jwk),
    /// No key with this `kid` (or, without a `kid`, no single fitting key): refetching the
    /// JWKS may help (rotation).
    Unknown,
    /// A key with this `kid` exists but cannot verify the token's algorithm.
    Unfit,
}

/// The key for `token`: by `kid`; a token without `kid` is accepted only when exactly
/// one key fits its algorithm.
pub fn select<'a>(keys: &'a [Jwk], token: &Token) -> KeyChoice<'a> {
    match &token.kid {
        Some(kid) => match keys.iter().find(|k| k.kid.as_deref() == Some(kid.as_str())) {
            Some(key) if key.fits(token.alg) => KeyChoice::Found(key),
            Some(_) => KeyChoice::Unfit,
            None => KeyChoice::Unknown,
        },
        None => {
            let mut fitting = keys.iter().filter(|k| k.fits(token.alg));
            match (fitting.next(), fitting.next()) {
                (Some(key), None) => KeyChoice::Found(key),
                _ => KeyChoice::Unknown,
            }
        }
    }
}

/// The rules a verified token's claims must satisfy.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimRules<'a> {
    pub issuer: &'a str,
    /// Any one of these must appear in `aud`.
    pub audiences: &'a [String],
    pub now_ms: u64,
}

/// What a token grants once its claims hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Grant {
    pub issuer: String,
    pub subject: String,
    pub scopes: Vec<String>,
}

fn numeric_date(claims: &Value, name: &str) -> Result<Option<u64>, Invalid> {
    match claims.get(name) {
        None => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|n| n.is_finite() && *n >= 0.0)
            .map(|n| Some((n * 1000.0) as u64))
            .ok_or_else(|| invalid(format!("the token's {name} is not a NumericDate"))),
    }
}

/// Checks `iss`, `aud` (string or array), `exp` (required), `nbf` and `iat` against the
/// rules with [`SKEW_MS`] of tolerance, and reads `sub` and the scopes (`scope`, a
/// space-separated string, or `scp`, an array).
pub fn check_claims(claims: &Value, rules: &ClaimRules) -> Result<Grant, Invalid> {
    let iss = claims.get("iss").and_then(Value::as_str);
    if iss != Some(rules.issuer) {
        return Err(invalid(format!(
            "the token was not issued by {} (iss {})",
            rules.issuer,
            iss.map(|s| format!("{s:?}"))
                .unwrap_or_else(|| "missing".into())
        )));
    }
    let audiences: Vec<&str> = match claims.get("aud") {
        Some(Value::String(a)) => vec![a.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !audiences
        .iter()
        .any(|a| rules.audiences.iter().any(|want| want == a))
    {
        return Err(invalid(format!(
            "the token's audience is not this server (expected {})",
            rules.audiences.join(" or ")
        )));
    }
    let Some(exp) = numeric_date(claims, "exp")? else {
        return Err(invalid("the token has no exp"));
    };
    if rules.now_ms >= exp.saturating_add(SKEW_MS) {
        return Err(invalid("the token has expired"));
    }
    if let Some(nbf) = numeric_date(claims, "nbf")?
        && nbf > rules.now_ms.saturating_add(SKEW_MS)
    {
        return Err(invalid("the token is not valid yet (nbf)"));
    }
    if let Some(iat) = numeric_date(claims, "iat")?
        && iat > rules.now_ms.saturating_add(SKEW_MS)
    {
        return Err(invalid("the token was issued in the future (iat)"));
    }
    let subject = match claims.get("sub").and_then(Value::as_str) {
        Some(s) if !s.is_empty() => s.to_owned(),
        _ => return Err(invalid("the token has no sub")),
    };
    let mut scopes: Vec<String> = match claims.get("scope") {
        Some(Value::String(s)) => s.split_whitespace().map(str::to_owned).collect(),
        _ => Vec::new(),
    };
    if let Some(Value::Array(scp)) = claims.get("scp") {
        scopes.extend(scp.iter().filter_map(Value::as_str).map(str::to_owned));
    }
    Ok(Grant {
        issuer: rules.issuer.to_owned(),
        subject,
        scopes,
    })
}

/// The URLs of the issuer's metadata, in the order tried: RFC 8414 (path inserted after
/// the well-known prefix), then OpenID Connect Discovery (path appended).
pub fn metadata_urls(issuer: &str) -> Vec<String> {
    let Ok(url) = Uri::parse(issuer) else {
        return Vec::new();
    };
    let origin = url.serialized_origin();
    let path = url.path().trim_end_matches('/');
    vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}{path}/.well-known/openid-configuration"),
    ]
}

/// Reads `jwks_uri` from issuer metadata, which must name the configured issuer
/// (RFC 8414 section 3.3).
pub fn jwks_uri(metadata: &[u8], issuer: &str) -> Result<String, String> {
    let doc: Value =
        serde_json::from_slice(metadata).map_err(|e| format!("issuer metadata: {e}"))?;
    if doc.get("issuer").and_then(Value::as_str) != Some(issuer) {
        return Err(format!("issuer metadata does not name the issuer {issuer}"));
    }
    doc.get("jwks_uri")
        .and_then(Value::as_str)
        // Keys travel over https; only a development issuer (http on loopback, which the
        // configuration allows) may name an http one.
        .filter(|u| {
            u.starts_with("https://") || (u.starts_with("http://") && issuer.starts_with("http://"))
        })
        .map(str::to_owned)
        .ok_or_else(|| "issuer metadata has no https jwks_uri".to_owned())
}

/// The JWKS cached in one isolate and when to refetch it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JwksCache {
    pub keys: Vec<Jwk>,
    /// When the keys were last fetched (0: never).
    pub fetched_at_ms: u64,
}

/// How long cached keys are used without asking again.
pub const JWKS_TTL_MS: u64 = 10 * 60_000;

impl JwksCache {
    /// Whether to fetch before selecting a key: never fetched, or stale.
    pub fn stale(&self, now_ms: u64) -> bool {
        self.fetched_at_ms == 0 || now_ms >= self.fetched_at_ms.saturating_add(JWKS_TTL_MS)
    }

    /// Whether a token whose `kid` is unknown may trigger a refetch: at most one per
    /// `min_interval_ms`, so a flood of bogus kids does not hammer the issuer.
    pub fn may_refetch(&self, now_ms: u64, min_interval_ms: u64) -> bool {
        self.fetched_at_ms == 0 || now_ms >= self.fetched_at_ms.saturating_add(min_interval_ms)
    }
}
