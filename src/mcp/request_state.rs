//! Integrity-protected `requestState` for multi round-trip requests (SEP-2322).
//!
//! `requestState` is attacker-controlled input (mrtr "Server Requirements" 4), and ours
//! carries the answers of earlier rounds and the tool's checkpoint, which drive business
//! logic. So it is HMAC-SHA256 signed under a server secret and bound to what the spec
//! recommends (requirement 5): the principal, an expiry, and the originating request
//! (method, name and a digest of the arguments).
//!
//! # Format
//!
//! ```text
//! base64url(payload JSON) "." base64url(first 16 bytes of HMAC-SHA256(secret, payload))
//! payload = {"v":1,"p":<principal digest>,"t":<method and name>,"a":<arguments digest>,
//!            "e":<expiry, unix ms>,"r":<rounds>,"s":<answers so far>,"c":<checkpoint>,
//!            "q":<the requests this round asked, as input::answer_check keeps them>,
//!            "j":<the job whose questions they are (server::jobs), if any>}
//! ```
//!
//! Digests are 16-byte truncated SHA-256 in base64url. The payload is signed, not
//! encrypted: it holds only what the client itself sent (answers) and tool checkpoints,
//! which must not be secrets.

use crate::error::McpError;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

const VERSION: u8 = 1;
const TAG_LEN: usize = 16;

/// What a round carries forward to the next.
#[derive(Debug, Clone, PartialEq)]
pub struct Carried {
    pub rounds: u32,
    pub answers: Map<String, Value>,
    pub checkpoint: Value,
    /// The input requests the last round asked (method, mode and `requestedSchema`
    /// only), so the retry's answers are checked against what was asked.
    pub pending: Map<String, Value>,
    /// The job whose questions this round asked (`server::jobs`): the retry's answers go
    /// to that task instead of to a step.
    pub job: Option<String>,
}

/// What the state is bound to: it verifies only for the same caller and request.
#[derive(Debug, Clone, Copy)]
pub struct Binding<'a> {
    pub principal: &'a str,
    /// The originating request: method and name, e.g. `tools/call greet`.
    pub request: &'a str,
    pub arguments: &'a Map<String, Value>,
}

#[derive(Serialize, Deserialize)]
struct Payload {
    v: u8,
    p: String,
    t: String,
    a: String,
    e: u64,
    r: u32,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    s: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    c: Value,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    q: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    j: Option<String>,
}

fn digest(bytes: &[u8]) -> String {
    B64.encode(&Sha256::digest(bytes)[..16])
}

fn tag(secret: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(payload);
    mac.finalize().into_bytes()[..TAG_LEN].to_vec()
}

/// Seals `carried` for `binding`, valid until `expires_at_ms`.
pub fn seal(secret: &[u8], binding: Binding, carried: &Carried, expires_at_ms: u64) -> String {
    let payload = Payload {
        v: VERSION,
        p: digest(binding.principal.as_bytes()),
        t: binding.request.to_owned(),
        // serde_json maps are ordered by key, so equal arguments give equal bytes.
        a: digest(&serde_json::to_vec(binding.arguments).expect("arguments serialize")),
        e: expires_at_ms,
        r: carried.rounds,
        s: carried.answers.clone(),
        c: carried.checkpoint.clone(),
        q: carried.pending.clone(),
        j: carried.job.clone(),
    };
    let json = serde_json::to_vec(&payload).expect("the payload serializes");
    format!("{}.{}", B64.encode(&json), B64.encode(tag(secret, &json)))
}

fn rejected(why: &str) -> McpError {
    McpError::InvalidParams(format!("Invalid requestState: {why}"))
}

/// Verifies and opens a state produced by [`seal`]. Every failure is -32602 with the
/// reason: tampered or foreign signature, expiry, another principal, another request.
pub fn open(
    secret: &[u8],
    binding: Binding,
    state: &str,
    now_ms: u64,
) -> Result<Carried, McpError> {
    let (body, sig) = state
        .split_once('.')
        .ok_or_else(|| rejected("malformed (not issued by this server)"))?;
    let json = B64
        .decode(body)
        .map_err(|_| rejected("malformed (not issued by this server)"))?;
    let sig = B64
        .decode(sig)
        .map_err(|_| rejected("malformed signature"))?;
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(&json);
    // Constant-time comparison of the truncated tag.
    mac.verify_truncated_left(&sig)
        .map_err(|_| rejected("integrity check failed (tampered, or signed by another key)"))?;
    if sig.len() != TAG_LEN {
        return Err(rejected("integrity check failed (wrong tag length)"));
    }
    let payload: Payload =
        crate::jsonrpc::read(&json).map_err(|_| rejected("unreadable payload"))?;
    if payload.v != VERSION {
        return Err(rejected("unsupported state version"));
    }
    if now_ms > payload.e {
        return Err(rejected(
            "expired; send the request again without requestState",
        ));
    }
    if payload.p != digest(binding.principal.as_bytes()) {
        return Err(rejected("it was issued to a different principal"));
    }
    if payload.t != binding.request
        || payload.a != digest(&serde_json::to_vec(binding.arguments).expect("arguments serialize"))
    {
        return Err(rejected(
            "it belongs to a different request (method, name or arguments changed)",
        ));
    }
    Ok(Carried {
        rounds: payload.r,
        answers: payload.s,
        checkpoint: payload.c,
        pending: payload.q,
        job: payload.j,
    })
}
