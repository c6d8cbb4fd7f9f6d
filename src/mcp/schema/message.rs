//! One short line for a validation failure: `<instance path>: <what> (<keyword>)`, e.g.
//! `/items/2/kind: "c" is not one of ["a","b"] (enum)`.
//!
//! The line names the keyword that refused the value (`$ref`, `allOf`, `properties`
//! and the other in-place applicators pass a failure through; `anyOf`/`oneOf`/`not` are
//! failures themselves, since no single alternative is "the" reason). Of several, the
//! first by instance location (items by index), then by schema location, so the same
//! request always gets the same line. The instance is attacker-controlled: every echoed
//! value, property name and path is cut short.

use super::compile::TYPES;
use super::index::escape;
use serde_json::Value;
use std::cmp::Ordering;

/// Longest echo of one value or name.
const VALUE_CHARS: usize = 40;
/// Longest instance path.
const PATH_CHARS: usize = 120;

/// Where in the instance an evaluation is, built on the stack as it descends.
pub(super) enum Path<'a> {
    Root,
    Prop(&'a Path<'a>, &'a str),
    Item(&'a Path<'a>, usize),
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Token {
    Item(usize),
    Prop(String),
}

/// One refusal: where, by which schema, what and which keyword.
pub(super) struct Failure {
    tokens: Vec<Token>,
    schema: String,
    what: String,
    keyword: &'static str,
}

impl Failure {
    /// A failure of the schema at pointer `schema` at the instance location `path`.
    pub(super) fn at(
        path: &Path,
        schema: &str,
        (what, keyword): (String, &'static str),
    ) -> Failure {
        let mut tokens = Vec::new();
        let mut here = path;
        loop {
            match here {
                Path::Root => break,
                Path::Prop(parent, name) => {
                    tokens.push(Token::Prop((*name).to_owned()));
                    here = parent;
                }
                Path::Item(parent, i) => {
                    tokens.push(Token::Item(*i));
                    here = parent;
                }
            }
        }
        tokens.reverse();
        Failure {
            tokens,
            schema: schema.to_owned(),
            what,
            keyword,
        }
    }

    /// The order in which failures are preferred (see the module docs).
    pub(super) fn order(&self, other: &Failure) -> Ordering {
        (&self.tokens, &self.schema).cmp(&(&other.tokens, &other.schema))
    }

    /// The line: `<JSON Pointer>: <what> (<keyword>)`.
    pub(super) fn line(&self) -> String {
        format!("{}: {} ({})", self.path(), self.what, self.keyword)
    }

    /// The instance location as a JSON Pointer (RFC 6901), `(root)` for the whole instance.
    fn path(&self) -> String {
        if self.tokens.is_empty() {
            return "(root)".into();
        }
        let mut path = String::new();
        for token in &self.tokens {
            path.push('/');
            match token {
                Token::Prop(name) => {
                    path.push_str(&shorten(&escape(name), VALUE_CHARS));
                }
                Token::Item(i) => path.push_str(&i.to_string()),
            }
        }
        shorten(&path, PATH_CHARS)
    }
}

/// What is wrong, and the keyword that says so.
pub(super) type What = (String, &'static str);

pub(super) fn has_type(types: u8, v: &Value) -> bool {
    let bit = |name: &str| types & (1 << TYPES.iter().position(|t| *t == name).unwrap_or(0)) != 0;
    match type_name(v) {
        "integer" => bit("integer") || bit("number"),
        name => bit(name),
    }
}

pub(super) fn wrong_type(types: u8, v: &Value) -> What {
    let want: Vec<&str> = (0..TYPES.len())
        .filter(|i| types & (1 << i) != 0)
        .map(|i| TYPES[i])
        .collect();
    (
        format!("expected {}, got {}", want.join(" or "), type_name(v)),
        "type",
    )
}

pub(super) fn not_in_enum(v: &Value, values: &[Value]) -> What {
    (
        format!(
            "{} is not one of {}",
            json(v),
            json(&Value::Array(values.to_vec()))
        ),
        "enum",
    )
}

pub(super) fn not_const(want: &Value) -> What {
    (format!("must be {}", json(want)), "const")
}

pub(super) fn missing(names: &[&str]) -> What {
    (
        format!("missing required {}", list("property", names)),
        "required",
    )
}

pub(super) fn dependency(name: &str, missing: &[&str]) -> What {
    (
        format!("{} needs {}", quote(name), list("property", missing)),
        "dependentRequired",
    )
}

pub(super) fn unexpected(names: &[&str]) -> What {
    (
        format!("unexpected {}", list("property", names)),
        "additionalProperties",
    )
}

pub(super) fn bad_name(name: &str) -> What {
    (
        format!("property name {} is not allowed", quote(name)),
        "propertyNames",
    )
}

pub(super) fn few_properties(min: u64) -> What {
    (format!("needs at least {min} properties"), "minProperties")
}

pub(super) fn many_properties(max: u64) -> What {
    (format!("allows at most {max} properties"), "maxProperties")
}

pub(super) fn few_items(min: u64) -> What {
    (format!("needs at least {min} items"), "minItems")
}

pub(super) fn many_items(max: u64) -> What {
    (format!("allows at most {max} items"), "maxItems")
}

pub(super) fn equal_items(i: usize, j: usize) -> What {
    (format!("items {i} and {j} are equal"), "uniqueItems")
}

/// Too few items matched `contains`: plainly "none" unless `minContains` asked for more.
pub(super) fn few_contained(matched: u64, min: u64, explicit: bool) -> What {
    match explicit {
        false => ("no item matches".into(), "contains"),
        true => (
            format!("{matched} items match, at least {min} must"),
            "minContains",
        ),
    }
}

pub(super) fn many_contained(matched: u64, max: u64) -> What {
    (
        format!("{matched} items match, at most {max} may"),
        "maxContains",
    )
}

pub(super) fn too_short(min: u64) -> What {
    (format!("must be at least {min} characters"), "minLength")
}

pub(super) fn too_long(max: u64) -> What {
    (format!("must be at most {max} characters"), "maxLength")
}

pub(super) fn no_match(s: &str, pattern: &str) -> What {
    (
        format!("{} does not match {}", quote(s), quote(pattern)),
        "pattern",
    )
}

pub(super) fn bad_format(s: &str, format: &str) -> What {
    (format!("{} is not a valid {format}", quote(s)), "format")
}

pub(super) fn no_alternative(keyword: &'static str) -> What {
    ("matches none of the alternatives".into(), keyword)
}

pub(super) fn two_alternatives(i: usize, j: usize) -> What {
    (
        format!("matches alternatives {i} and {j}, exactly one must match"),
        "oneOf",
    )
}

pub(super) fn matches_not() -> What {
    ("matches a schema it must not".into(), "not")
}

pub(super) fn ref_loop() -> What {
    ("the schema's references loop".into(), "$ref")
}

pub(super) fn budget(max: usize) -> What {
    (
        format!("needs more than {max} schema evaluations"),
        "evaluation limit",
    )
}

/// A `false` subschema refused the value: name the keyword it sits under when it is one
/// that people write `false` for.
pub(super) fn false_schema(via: &str) -> What {
    match via {
        "unevaluatedProperties" => ("property not allowed".into(), "unevaluatedProperties"),
        "unevaluatedItems" => ("item not allowed".into(), "unevaluatedItems"),
        "items" => ("item not allowed".into(), "items"),
        _ => ("no value is allowed here".into(), "false schema"),
    }
}

/// The JSON Schema type of `value` (`integer` for a number without a fraction).
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n)
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) =>
        {
            "integer"
        }
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `property "a"` or `properties "a", "b"` (at most five named).
fn list(noun: &str, names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().take(5).map(|n| quote(n)).collect();
    match quoted.len() {
        1 => format!("{noun} {}", quoted[0]),
        _ => format!("{} {}", plural(noun), quoted.join(", ")),
    }
}

fn plural(noun: &str) -> String {
    match noun.strip_suffix('y') {
        Some(stem) => format!("{stem}ies"),
        None => format!("{noun}s"),
    }
}

fn quote(s: &str) -> String {
    json(&Value::String(shorten(s, VALUE_CHARS * 2)))
}

/// A value as JSON, cut short.
fn json(value: &Value) -> String {
    shorten(&value.to_string(), VALUE_CHARS * 2)
}

/// `text` cut to `max` characters, with an ellipsis when cut.
pub(super) fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}
