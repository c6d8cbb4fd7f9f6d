//! The server's identity in a result's `_meta` (schema 2026-07-28 `ResultMetaObject`:
//! "Identifies the server software producing the response. Servers SHOULD include this
//! field on every response unless specifically configured not to do so").
//!
//! Results reach the wire as bytes built in several places (a handler's value, a list
//! serialized once per isolate, a task object's reply spliced in unparsed), so the entry is
//! serialized once and inserted into a result's bytes: a result whose top-level `_meta`
//! comes first ([`MetaFirst`]) takes it without being parsed again.

use super::Implementation;
use super::meta::KEY_SERVER_INFO;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// `"io.modelcontextprotocol/serverInfo":{"name":…,"version":…}`, the `_meta` entry
/// [`stamped`] inserts.
pub fn entry(name: &str, version: &str) -> Vec<u8> {
    let mut entry = format!("\"{KEY_SERVER_INFO}\":").into_bytes();
    let value = serde_json::to_vec(&Implementation { name, version }).expect("strings serialize");
    entry.extend_from_slice(&value);
    entry
}

/// A result object serialized with its `_meta` first (when it has one), so that
/// [`stamped`] finds it at the start. Any other value serializes as it is.
pub struct MetaFirst<'a>(pub &'a Value);

impl Serialize for MetaFirst<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(object) if object.contains_key("_meta") => {
                let mut map = serializer.serialize_map(Some(object.len()))?;
                map.serialize_entry("_meta", &object["_meta"])?;
                for (key, value) in object.iter().filter(|(key, _)| *key != "_meta") {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
            other => other.serialize(serializer),
        }
    }
}

/// Whether `result` names a server itself (a handler's own value wins, as the official
/// SDKs do).
pub fn names_server(result: &Value) -> bool {
    result
        .get("_meta")
        .and_then(|meta| meta.get(KEY_SERVER_INFO))
        .is_some()
}

/// The result object serialized in `raw` with `entry` in its `_meta` ([`MetaFirst`]: into
/// its `_meta` when that comes first, else into a new one), as the parts to write in
/// order, so that the answer is written once, into one buffer of its size; `None` for
/// bytes that are not an object, or whose `_meta` is not one (they are sent as they are).
pub fn stamped<'a>(raw: &'a [u8], entry: &'a [u8]) -> Option<[&'a [u8]; 5]> {
    const META: &[u8] = br#"{"_meta":"#;
    let (position, opening): (usize, &[u8]) = if raw.starts_with(META) {
        match raw.get(META.len()) {
            Some(b'{') => (META.len() + 1, b""),
            _ => return None,
        }
    } else if raw.first() == Some(&b'{') {
        (1, br#""_meta":{"#)
    } else {
        return None;
    };
    let empty = raw.get(position) == Some(&b'}');
    let closing: &[u8] = match (opening.is_empty(), empty) {
        (true, true) => b"",
        (true, false) => b",",
        (false, true) => b"}",
        (false, false) => b"},",
    };
    let (head, tail) = raw.split_at(position);
    Some([head, opening, entry, closing, tail])
}
