//! What is checked of a tool: its registration ([`Tool::problems`]) and each call's
//! arguments against its input schema ([`Tool::check_arguments`]).

use super::Tool;
use crate::error::McpError;
use crate::mcp::schema::Schema;
use serde_json::{Map, Value};

impl Tool {
    /// Compiles the input schema (what [`crate::tools::Registry::new`] does for each tool).
    pub(in crate::tools) fn compile(mut self) -> Tool {
        self.compiled = Some(Schema::compile(self.input_schema()));
        self
    }

    /// Checks `arguments` (the request's `params.arguments`: an object, or `None` or
    /// `null` for none, which count as `{}`) against the input schema: -32602 naming the
    /// first violation's path and keyword, e.g. `Invalid arguments for tool t:
    /// /items/2/kind: "c" is not one of ["a","b"] (enum)`. A tool outside a [`Registry`](crate::tools::Registry)
    /// compiles its schema on the spot.
    pub fn check_arguments(&self, arguments: Option<&Value>) -> Result<(), McpError> {
        let name = self.name();
        let unusable = |why: &String| {
            McpError::Internal(format!(
                "the tool {name} cannot be called: its input schema cannot be used: {why}"
            ))
        };
        let compiled_now;
        let schema = match &self.compiled {
            Some(Ok(schema)) => schema,
            Some(Err(why)) => return Err(unusable(why)),
            None => {
                compiled_now = Schema::compile(self.input_schema()).map_err(|e| unusable(&e))?;
                &compiled_now
            }
        };
        let empty = Value::Object(Map::new());
        schema
            .validate(arguments.filter(|a| !a.is_null()).unwrap_or(&empty))
            .map_err(|why| {
                McpError::InvalidParams(format!("Invalid arguments for tool {name}: {why}"))
            })
    }

    /// What is wrong with this registration, if anything.
    pub(crate) fn problems(&self) -> Vec<String> {
        let name = self.name();
        let mut problems = Vec::new();
        let valid_name = (1..=128).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        if !valid_name {
            problems.push(format!(
                "tool name {name:?} must be 1-128 characters of A-Z a-z 0-9 _ - ."
            ));
        }
        if !self.step.is_set() {
            problems.push(format!(
                "tool {name} has no step function (call .run, .run_sync, .run_json or .sync)"
            ));
        }
        if let Err(e) = &self.allow {
            problems.push(format!("tool {name}: allow_hosts: {e}"));
        }
        if self.input_schema().get("type").and_then(Value::as_str) != Some("object") {
            problems.push(format!(
                "tool {name}: the input schema must have \"type\": \"object\""
            ));
        }
        if let Some(output) = self.definition.get("outputSchema")
            && output.get("type").and_then(Value::as_str) != Some("object")
        {
            problems.push(format!(
                "tool {name}: the output schema must have \"type\": \"object\" (structuredContent is a JSON object; a typed output must be a struct or a map)"
            ));
        }
        if let Some(Err(why)) = &self.compiled {
            problems.push(format!(
                "tool {name}: the input schema cannot be used: {why}"
            ));
        }
        problems
    }
}
