//! JSON Schema validation of tool arguments and elicitation answers (basic/index "JSON
//! Schema Usage"), with the [`boon`] validator: drafts 2020-12 (the default dialect when a
//! schema has no `$schema`), 2019-09, 7, 6 and 4, every keyword of each.
//!
//! A [`Schema`] is compiled once (a tool's `inputSchema` when the server is assembled) and
//! then validates any number of instances; `tools/call` answers -32602 with the first
//! violation, its instance path (a JSON Pointer) and keyword (see `message.rs`).
//!
//! What compiling refuses, so a server never runs with a schema it cannot enforce:
//! - a schema that is not valid against its dialect's metaschema, or names a dialect this
//!   validator does not know;
//! - any `$ref` (or `$schema`) to a document outside the schema itself: nothing is ever
//!   fetched (basic/index "`$ref` Resolution": network refs MUST NOT be dereferenced, and
//!   a schema with an unresolved one SHOULD be rejected). Local `$ref`, `$defs`, `$anchor`
//!   and `$dynamicRef` work;
//! - a schema nested deeper than [`MAX_SCHEMA_DEPTH`] or with more than
//!   [`MAX_SUBSCHEMAS`] objects (basic/index "Composition-Keyword Resource Use": a cap on
//!   depth and on the number of subschemas).
//!
//! Instances nested deeper than [`MAX_INSTANCE_DEPTH`] are refused before validation, so
//! a recursive schema cannot be walked down an arbitrarily deep value. `format` follows
//! each dialect (an annotation in 2020-12 and 2019-09, an assertion in draft 7 and
//! earlier); `contentEncoding`/`contentMediaType`/`contentSchema` are annotations.

mod message;

use serde_json::Value;
use std::error::Error;
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
pub struct Schema(Rc<Compiled>);

struct Compiled {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
    /// The schema as written, for error messages (see `message::fix_item_index`).
    source: Value,
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Schema(compiled)")
    }
}

/// Refuses every document the schema does not contain (boon asks its loader for any
/// `$ref` or `$schema` it cannot resolve locally, apart from the metaschemas it bundles).
struct NoFetch;

impl boon::UrlLoader for NoFetch {
    fn load(&self, url: &str) -> Result<Value, Box<dyn Error>> {
        Err(format!("{url} is outside the schema, and schemas are never fetched").into())
    }
}

impl Schema {
    /// Compiles `schema`; `Err` says why it cannot be used (see the module docs).
    pub fn compile(schema: &Value) -> Result<Schema, String> {
        check_size(schema)?;
        let mut compiler = boon::Compiler::new();
        compiler.use_loader(Box::new(NoFetch));
        let mut schemas = boon::Schemas::new();
        compiler
            .add_resource(BASE, schema.clone())
            .map_err(|e| compile_error(&e))?;
        let index = compiler
            .compile(BASE, &mut schemas)
            .map_err(|e| compile_error(&e))?;
        Ok(Schema(Rc::new(Compiled {
            schemas,
            index,
            source: schema.clone(),
        })))
    }

    /// Validates `instance`; `Err` is one short line naming the first violation:
    /// `<JSON Pointer>: <what is wrong> (<keyword>)`.
    pub fn validate(&self, instance: &Value) -> Result<(), String> {
        if depth_exceeds(instance, MAX_INSTANCE_DEPTH) {
            return Err(format!(
                "(root): nests deeper than {MAX_INSTANCE_DEPTH} levels (depth limit)"
            ));
        }
        let compiled = &*self.0;
        compiled
            .schemas
            .validate(instance, compiled.index)
            .map_err(|e| message::describe(&e, instance, &compiled.source))
    }
}

/// The schema's own error, without the validator's internal base URI.
fn compile_error(e: &boon::CompileError) -> String {
    let text = match e {
        // The loader's refusal says which reference and why; boon's wrapper adds nothing.
        boon::CompileError::LoadUrlError { url, .. } => {
            format!(
                "{url} is outside the schema, and schemas are never fetched (remote $ref or unknown $schema)"
            )
        }
        boon::CompileError::UnsupportedUrlScheme { url } => {
            format!("{url} is outside the schema, and schemas are never fetched (remote $ref)")
        }
        other => format!("{other:#}"),
    };
    message::shorten(&text.replace(BASE, ""), 300)
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

/// Whether `value` nests objects and arrays more than `limit` levels deep (iterative, so
/// the check itself cannot exhaust the stack).
fn depth_exceeds(value: &Value, limit: usize) -> bool {
    let mut stack = vec![(value, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Object(map) => Box::new(map.values()),
            Value::Array(items) => Box::new(items.iter()),
            _ => continue,
        };
        if depth >= limit {
            return true;
        }
        stack.extend(children.map(|v| (v, depth + 1)));
    }
    false
}
