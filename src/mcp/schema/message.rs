//! One short line for a validation failure: `<instance path>: <what> (<keyword>)`, e.g.
//! `/items/2/kind: "c" is not one of ["a","b"] (enum)`.
//!
//! The validator reports a tree (a `$ref` wraps what failed behind it, a group holds
//! sibling failures, `allOf` holds its failing members). The line describes the first
//! leaf, so it names the keyword that actually refused the value; `anyOf`/`oneOf`/`not`
//! are leaves themselves, since no single alternative is "the" reason. The instance is
//! attacker-controlled: every echoed value, property name and path is cut short.

use boon::{ErrorKind, InstanceToken, ValidationError};
use serde_json::Value;

/// Longest echo of one value or name.
const VALUE_CHARS: usize = 40;
/// Longest instance path.
const PATH_CHARS: usize = 120;

/// The line for `error`, a failure of `instance` (see the module docs).
pub(super) fn describe(error: &ValidationError, instance: &Value) -> String {
    let mut leaf = error;
    while descend(&leaf.kind)
        && let Some(first) = leaf.causes.first()
    {
        leaf = first;
    }
    let (what, keyword) = what(leaf, instance);
    format!("{}: {what} ({keyword})", path(leaf))
}

/// Whether an error only wraps the ones that say what is wrong.
fn descend(kind: &ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Group
            | ErrorKind::Schema { .. }
            | ErrorKind::Reference { .. }
            | ErrorKind::AllOf
            | ErrorKind::ContentSchema
    )
}

/// The instance location as a JSON Pointer (RFC 6901), `(root)` for the whole instance.
fn path(error: &ValidationError) -> String {
    let tokens = &error.instance_location.tokens;
    if tokens.is_empty() {
        return "(root)".into();
    }
    let mut path = String::new();
    for token in tokens {
        path.push('/');
        match token {
            InstanceToken::Prop(name) => {
                let escaped = name.replace('~', "~0").replace('/', "~1");
                path.push_str(&shorten(&escaped, VALUE_CHARS));
            }
            InstanceToken::Item(i) => path.push_str(&i.to_string()),
        }
    }
    shorten(&path, PATH_CHARS)
}

/// What is wrong, and the keyword that says so.
fn what(error: &ValidationError, instance: &Value) -> (String, &'static str) {
    use ErrorKind as K;
    match &error.kind {
        K::Type { got, want } => {
            let want: Vec<String> = want.iter().map(|t| t.to_string()).collect();
            (format!("expected {}, got {got}", want.join(" or ")), "type")
        }
        K::Enum { want } => (
            format!(
                "{} is not one of {}",
                value_at(error, instance),
                json(&Value::Array(want.to_vec()))
            ),
            "enum",
        ),
        K::Const { want } => (format!("must be {}", json(want)), "const"),
        K::Format { got, want, .. } => (format!("{} is not a valid {want}", json(got)), "format"),
        K::MinProperties { want, .. } => (format!("needs at least {want} properties"), "minProperties"),
        K::MaxProperties { want, .. } => (format!("allows at most {want} properties"), "maxProperties"),
        K::AdditionalProperties { got } => (
            format!("unexpected {}", names("property", got.iter().map(|n| n.as_ref()))),
            "additionalProperties",
        ),
        K::Required { want } => (
            format!("missing required {}", names("property", want.iter().copied())),
            "required",
        ),
        K::DependentRequired { prop, missing } | K::Dependency { prop, missing } => (
            format!(
                "{} needs {}",
                quote(prop),
                names("property", missing.iter().copied())
            ),
            "dependentRequired",
        ),
        K::PropertyName { prop } => (
            format!("property name {} is not allowed", quote(prop)),
            "propertyNames",
        ),
        K::MinItems { want, .. } => (format!("needs at least {want} items"), "minItems"),
        K::MaxItems { want, .. } => (format!("allows at most {want} items"), "maxItems"),
        K::Contains => ("no item matches".into(), "contains"),
        K::MinContains { want, got } => (
            format!("{} items match, at least {want} must", got.len()),
            "minContains",
        ),
        K::MaxContains { want, got } => (
            format!("{} items match, at most {want} may", got.len()),
            "maxContains",
        ),
        K::UniqueItems { got: [i, j] } => (format!("items {i} and {j} are equal"), "uniqueItems"),
        K::AdditionalItems { got } => (format!("{got} items too many"), "items"),
        K::MinLength { want, .. } => (format!("must be at least {want} characters"), "minLength"),
        K::MaxLength { want, .. } => (format!("must be at most {want} characters"), "maxLength"),
        K::Pattern { got, want } => (
            format!("{} does not match {}", quote(got), quote(want)),
            "pattern",
        ),
        K::Minimum { got, want } => (format!("{got} is less than {want}"), "minimum"),
        K::Maximum { got, want } => (format!("{got} is greater than {want}"), "maximum"),
        K::ExclusiveMinimum { got, want } => {
            (format!("{got} is not greater than {want}"), "exclusiveMinimum")
        }
        K::ExclusiveMaximum { got, want } => {
            (format!("{got} is not less than {want}"), "exclusiveMaximum")
        }
        K::MultipleOf { got, want } => (format!("{got} is not a multiple of {want}"), "multipleOf"),
        K::Not => ("matches a schema it must not".into(), "not"),
        K::AnyOf => ("matches none of the alternatives".into(), "anyOf"),
        K::OneOf(None) => ("matches none of the alternatives".into(), "oneOf"),
        K::OneOf(Some((i, j))) => (
            format!("matches alternatives {i} and {j}, exactly one must match"),
            "oneOf",
        ),
        K::FalseSchema => false_schema(error),
        K::RefCycle { .. } => ("the schema's references loop".into(), "$ref"),
        K::ContentEncoding { .. } => ("wrong content encoding".into(), "contentEncoding"),
        K::ContentMediaType { .. } => ("wrong content media type".into(), "contentMediaType"),
        // Wrappers without causes (not produced by boon, but total all the same).
        K::Group | K::Schema { .. } | K::Reference { .. } | K::AllOf | K::ContentSchema => {
            ("does not match the schema".into(), "allOf")
        }
    }
}

/// A `false` subschema refused the value: name the keyword it sits under when it is one
/// that people write `false` for.
fn false_schema(error: &ValidationError) -> (String, &'static str) {
    let at = error.schema_url.rsplit('/').next().unwrap_or_default();
    match at {
        "unevaluatedProperties" => ("property not allowed".into(), "unevaluatedProperties"),
        "unevaluatedItems" => ("item not allowed".into(), "unevaluatedItems"),
        "items" => ("item not allowed".into(), "items"),
        _ => ("no value is allowed here".into(), "false schema"),
    }
}

/// The failing value itself, found in `instance` by the error's location (the error
/// does not carry it for every keyword).
fn value_at(error: &ValidationError, instance: &Value) -> String {
    let mut value = instance;
    for token in &error.instance_location.tokens {
        let next = match token {
            InstanceToken::Prop(name) => value.get(name.as_ref()),
            InstanceToken::Item(i) => value.get(*i),
        };
        match next {
            Some(next) => value = next,
            None => return "the value".into(),
        }
    }
    json(value)
}

/// `property "a"` or `properties "a", "b"`.
fn names<'a>(noun: &str, names: impl Iterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = names.take(5).map(quote).collect();
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
    json(&Value::String(s.to_owned()))
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
