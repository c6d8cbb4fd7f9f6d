//! Reading a params object member by member, with errors that name the member's path
//! (`params.argument.name: invalid type: integer `1`, expected a string`) in serde's
//! words. Params are small and shallow; a derived `Deserialize` behind a path-tracking
//! deserializer instantiated serde's machinery twice over for every params type (docs/
//! architecture.md, "What keeps the Worker small"), where these few functions serve all.

use crate::error::McpError;
use crate::jsonrpc::top::unexpected;
use serde::de::Error as _;
use serde_json::{Map, Value};

/// The members of one object of the params, and where it is (`params`, `params.argument`).
pub struct Fields<'a> {
    members: &'a Map<String, Value>,
    path: String,
}

impl<'a> Fields<'a> {
    /// The top-level params.
    pub fn params(members: &'a Map<String, Value>) -> Fields<'a> {
        Fields {
            members,
            path: "params".into(),
        }
    }

    /// `{path}.{name}`: where member `name` is.
    pub fn at(&self, name: &str) -> String {
        format!("{}.{name}", self.path)
    }

    /// Member `name`, absent or not.
    pub fn get(&self, name: &str) -> Option<&'a Value> {
        self.members.get(name)
    }

    /// A required member: absent is serde's "missing field".
    pub fn required(&self, name: &str) -> Result<&'a Value, McpError> {
        self.get(name).ok_or_else(|| {
            McpError::InvalidParams(format!("{}: missing field `{name}`", self.path))
        })
    }

    /// A required string.
    pub fn string(&self, name: &str) -> Result<String, McpError> {
        as_string(self.required(name)?, &|| self.at(name))
    }

    /// An optional string: absent or `null` is none.
    pub fn opt_string(&self, name: &str) -> Result<Option<String>, McpError> {
        match self.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => as_string(value, &|| self.at(name)).map(Some),
        }
    }

    /// A required object.
    pub fn map(&self, name: &str) -> Result<&'a Map<String, Value>, McpError> {
        match self.required(name)? {
            Value::Object(members) => Ok(members),
            other => Err(invalid(other, "a map", &self.at(name))),
        }
    }

    /// A required object, as the fields of its own (errors inside it name their path).
    pub fn object(&self, name: &str) -> Result<Fields<'a>, McpError> {
        Ok(Fields {
            members: self.map(name)?,
            path: self.at(name),
        })
    }

    /// An optional object: absent or `null` is none.
    pub fn opt_map(&self, name: &str) -> Result<Option<&'a Map<String, Value>>, McpError> {
        match self.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(members)) => Ok(Some(members)),
            Some(other) => Err(invalid(other, "a map", &self.at(name))),
        }
    }

    /// An object that defaults to empty when absent (`null` is refused, as serde does).
    pub fn map_or_empty(&self, name: &str) -> Result<Map<String, Value>, McpError> {
        match self.get(name) {
            None => Ok(Map::new()),
            Some(Value::Object(members)) => Ok(members.clone()),
            Some(other) => Err(invalid(other, "a map", &self.at(name))),
        }
    }

    /// Any value; absent is `null`.
    pub fn value(&self, name: &str) -> Value {
        self.get(name).cloned().unwrap_or(Value::Null)
    }

    /// An optional boolean: absent or `null` is false.
    pub fn flag(&self, name: &str) -> Result<bool, McpError> {
        match self.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(invalid(other, "a boolean", &self.at(name))),
        }
    }

    /// An optional list of strings: absent or `null` is none.
    pub fn opt_strings(&self, name: &str) -> Result<Option<Vec<String>>, McpError> {
        match self.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| as_string(item, &|| format!("{}[{i}]", self.at(name))))
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(other) => Err(invalid(other, "a sequence", &self.at(name))),
        }
    }
}

/// `value` as a string, or serde's "invalid type" at `path()` (formatted only then: a
/// params read that succeeds builds no path).
fn as_string(value: &Value, path: &dyn Fn() -> String) -> Result<String, McpError> {
    match value {
        Value::String(s) => Ok(s.clone()),
        other => Err(invalid(other, "a string", &path())),
    }
}

/// serde's "invalid type: …, expected …" for `value` at `path`, in serde_json's words
/// (`null`, `floating point `1.5``).
pub fn invalid(value: &Value, expected: &str, path: &str) -> McpError {
    McpError::InvalidParams(format!(
        "{path}: {}",
        serde_json::Error::invalid_type(unexpected(value), &expected)
    ))
}
