//! Reading an internally tagged JSON message by hand (`{"op":"get","taskId":"…"}`): the
//! tag picks the variant, then each member is taken out by name with an error that names
//! the tag, the variant and the member (`op "get": taskId must be a string`). serde's
//! derive for `#[serde(tag = "…")]` buffers the whole message into a generic copy first,
//! a second deserializer in the wasm for every such enum; this reads a [`Value`] already
//! parsed. The enums keep serde's derive for writing, so the JSON is the same both ways.

use serde::de::{DeserializeOwned, Error};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// A tagged message being read: the tag's value and the members not yet taken.
#[derive(Debug)]
pub struct Tagged {
    tag: &'static str,
    name: String,
    members: Map<String, Value>,
}

/// Deserializes a message tagged by member `tag`, read into a variant by `read`.
pub fn deserialize<'de, D, T>(
    deserializer: D,
    tag: &'static str,
    read: fn(Tagged) -> Result<T, String>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    let value = Value::deserialize(deserializer)?;
    Tagged::of(value, tag)
        .and_then(read)
        .map_err(D::Error::custom)
}

impl Tagged {
    /// `value` as an object tagged by its member `tag`, which must be a string.
    pub fn of(value: Value, tag: &'static str) -> Result<Tagged, String> {
        let Value::Object(mut members) = value else {
            return Err(format!(
                "a message tagged by \"{tag}\" must be a JSON object"
            ));
        };
        let name = match members.remove(tag) {
            Some(Value::String(name)) => name,
            Some(_) => return Err(format!("\"{tag}\" must be a string")),
            None => return Err(format!("\"{tag}\" is missing")),
        };
        Ok(Tagged { tag, name, members })
    }

    /// The tag's value (the variant's name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The error for a tag value that names no variant.
    pub fn unknown(&self) -> String {
        format!("unknown {} {:?}", self.tag, self.name)
    }

    fn error(&self, member: &str, what: &str) -> String {
        format!("{} {:?}: {member} {what}", self.tag, self.name)
    }

    /// Member `member`, which must be present (`null` included).
    pub fn value(&mut self, member: &str) -> Result<Value, String> {
        self.members
            .remove(member)
            .ok_or_else(|| self.error(member, "is missing"))
    }

    pub fn string(&mut self, member: &str) -> Result<String, String> {
        match self.value(member)? {
            Value::String(s) => Ok(s),
            _ => Err(self.error(member, "must be a string")),
        }
    }

    /// An optional string: absent or `null` is `None`.
    pub fn optional_string(&mut self, member: &str) -> Result<Option<String>, String> {
        match self.members.remove(member) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.error(member, "must be a string or null")),
        }
    }

    pub fn u64(&mut self, member: &str) -> Result<u64, String> {
        self.value(member)?
            .as_u64()
            .ok_or_else(|| self.error(member, "must be a non-negative integer"))
    }

    /// An optional integer: absent or `null` is `None`.
    pub fn optional_u64(&mut self, member: &str) -> Result<Option<u64>, String> {
        match self.members.remove(member) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.error(member, "must be a non-negative integer or null")),
        }
    }

    /// A boolean that is `default` when absent.
    pub fn bool_or(&mut self, member: &str, default: bool) -> Result<bool, String> {
        match self.members.remove(member) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(b),
            Some(_) => Err(self.error(member, "must be a boolean")),
        }
    }

    pub fn object(&mut self, member: &str) -> Result<Map<String, Value>, String> {
        match self.value(member)? {
            Value::Object(object) => Ok(object),
            _ => Err(self.error(member, "must be an object")),
        }
    }

    /// Member `member` read as a `T` (serde's derive for `T`, from the parsed value).
    pub fn decode<T: DeserializeOwned>(&mut self, member: &str) -> Result<T, String> {
        let value = self.value(member)?;
        crate::jsonrpc::from_value(value)
            .map_err(|e| self.error(member, &format!("is invalid: {e}")))
    }
}
