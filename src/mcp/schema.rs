//! JSON Schema validation of tool arguments and elicitation answers (basic/index "JSON
//! Schema Usage"): JSON Schema 2020-12 (the default dialect when a schema has no
//! `$schema`) and draft 7, every keyword of each; any other `$schema` is refused when
//! compiling, naming the dialects this server supports.
//!
//! A [`Schema`] is compiled once (a tool's `inputSchema` when the server is assembled) and
//! then validates any number of instances; `tools/call` answers -32602 with the first
//! violation, its instance path (a JSON Pointer) and keyword (see `message.rs`).
//!
//! What compiling refuses, so a server never runs with a schema it cannot enforce:
//! - a schema that is not valid for its dialect (a keyword of the wrong shape, a pattern
//!   the regular expression engine cannot run: see `pattern.rs`), or names a dialect this
//!   validator does not know;
//! - any `$ref` (or `$dynamicRef`) to a document outside the schema itself: nothing is ever
//!   fetched (basic/index "`$ref` Resolution": network refs MUST NOT be dereferenced, and
//!   a schema with an unresolved one SHOULD be rejected). Local `$ref`, `$defs`, `$id`,
//!   `$anchor` and `$dynamicRef` work;
//! - a schema nested deeper than [`MAX_SCHEMA_DEPTH`] or with more than
//!   [`MAX_SUBSCHEMAS`] objects (basic/index "Composition-Keyword Resource Use": a cap on
//!   depth and on the number of subschemas).
//!
//! Instances nested deeper than [`MAX_INSTANCE_DEPTH`] are refused before validation, so
//! a recursive schema cannot be walked down an arbitrarily deep value, and one validation
//! evaluates at most [`MAX_STEPS`] subschemas plus [`STEPS_PER_VALUE`] per value of the
//! instance (`validate.rs`): linear in the instance, never exponential. `format` is an annotation
//! in 2020-12 and an assertion in draft 7 (`pattern.rs` lists the formats it checks);
//! `contentEncoding`/`contentMediaType`/`contentSchema` are annotations.
//!
//! Three passes: `index.rs` finds the dialect, the schema resources and their anchors;
//! `compile.rs` (with `compile/keywords.rs`) turns every subschema into a node of one arena
//! with its references resolved; `validate.rs` (with `validate/containers.rs`) evaluates an
//! instance against the arena. `tests/schema_suite.rs` runs the official JSON Schema Test
//! Suite against it.

mod compile;
mod index;
mod message;
mod number;
mod pattern;
mod validate;

pub use validate::{MAX_STEPS, STEPS_PER_VALUE};

use crate::uri::Uri;
use serde_json::Value;
use std::fmt;
use std::rc::Rc;

/// Deepest nesting of objects and arrays in a schema document.
pub const MAX_SCHEMA_DEPTH: usize = 64;
/// Most objects (subschemas, and the objects inside keywords such as `properties`) in a
/// schema document.
pub const MAX_SUBSCHEMAS: usize = 2000;
/// Deepest nesting of objects and arrays in a validated instance.
pub const MAX_INSTANCE_DEPTH: usize = 64;

/// Where a schema lives for the validator: a base URI for its relative references that
/// resolves nowhere (a `.invalid` host, RFC 2606), so a `$ref` that leaves the document is
/// a compile error, never a request.
const BASE: &str = "https://schema.invalid/tool.json";

/// A compiled schema; clones share it.
#[derive(Clone)]
pub struct Schema(Rc<compile::Compiled>);

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Schema(compiled)")
    }
}

impl Schema {
    /// Compiles `schema`; `Err` says why it cannot be used (see the module docs).
    pub fn compile(schema: &Value) -> Result<Schema, String> {
        check_size(schema)?;
        let base = Uri::parse(BASE).map_err(|e| e.to_string())?;
        let compiled = compile::compile(schema, base)
            .map_err(|e| message::shorten(&e.replace(BASE, ""), 300))?;
        Ok(Schema(Rc::new(compiled)))
    }

    /// Validates `instance`; `Err` is one short line naming the first violation:
    /// `<JSON Pointer>: <what is wrong> (<keyword>)`.
    pub fn validate(&self, instance: &Value) -> Result<(), String> {
        let Some(values) = count_values(instance, MAX_INSTANCE_DEPTH) else {
            return Err(format!(
                "(root): nests deeper than {MAX_INSTANCE_DEPTH} levels (depth limit)"
            ));
        };
        let budget = MAX_STEPS.saturating_add(values.saturating_mul(STEPS_PER_VALUE));
        validate::validate(&self.0, instance, budget).map_err(|f| f.line())
    }
}

/// Refuses a schema deeper or larger than the bounds before the compiler walks it.
fn check_size(schema: &Value) -> Result<(), String> {
    let mut objects = 0usize;
    let mut stack = vec![(schema, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > MAX_SCHEMA_DEPTH {
            return Err(format!(
                "the schema nests deeper than {MAX_SCHEMA_DEPTH} levels"
            ));
        }
        match value {
            Value::Object(map) => {
                objects += 1;
                if objects > MAX_SUBSCHEMAS {
                    return Err(format!(
                        "the schema has more than {MAX_SUBSCHEMAS} subschemas"
                    ));
                }
                stack.extend(map.values().map(|v| (v, depth + 1)));
            }
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}

/// How many values `value` holds (itself included), or `None` when it nests objects and
/// arrays more than `limit` levels deep (iterative, so the walk itself cannot exhaust the
/// stack).
fn count_values(value: &Value, limit: usize) -> Option<usize> {
    let mut stack = vec![(value, 0usize)];
    let mut values = 0;
    while let Some((value, depth)) = stack.pop() {
        values += 1;
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Object(map) => Box::new(map.values()),
            Value::Array(items) => Box::new(items.iter()),
            _ => continue,
        };
        if depth >= limit {
            return None;
        }
        stack.extend(children.map(|v| (v, depth + 1)));
    }
    Some(values)
}
