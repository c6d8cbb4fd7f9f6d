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
use std::cmp::Ordering;

/// Longest echo of one value or name.
const VALUE_CHARS: usize = 40;
/// Longest instance path.
const PATH_CHARS: usize = 120;

/// The line for `error`, a failure of `instance` against `schema` (see the module docs).
pub(super) fn describe(error: &ValidationError, instance: &Value, schema: &Value) -> String {
    let mut leaf = error;
    while descend(&leaf.kind)
        && let Some(first) = leaf.causes.iter().min_by(|a, b| order(a, b))
    {
        leaf = first;
    }
    let mut tokens = leaf.instance_location.tokens.clone();
    fix_item_index(&mut tokens, leaf.schema_url, schema);
    let (what, keyword) = what(leaf, value_at(&tokens, instance));
    format!("{}: {what} ({keyword})", path(&tokens))
}

/// Which of sibling failures to describe: the first by instance location (items by
/// index), then by schema location. boon's order of siblings is not stable (it walks
/// hash sets seeded at random), and the same request must get the same message.
fn order(a: &ValidationError, b: &ValidationError) -> Ordering {
    let (ta, tb) = (&a.instance_location.tokens, &b.instance_location.tokens);
    ta.iter()
        .map(token_key)
        .cmp(tb.iter().map(token_key))
        .then_with(|| a.schema_url.cmp(b.schema_url))
}

fn token_key<'t>(token: &'t InstanceToken) -> (u8, usize, &'t str) {
    match token {
        InstanceToken::Item(i) => (0, *i, ""),
        InstanceToken::Prop(p) => (1, 0, p.as_ref()),
    }
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
fn path(tokens: &[InstanceToken]) -> String {
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

/// What is wrong with `value` (the failing value, when found), and the keyword that
/// says so.
fn what(error: &ValidationError, value: Option<&Value>) -> (String, &'static str) {
    use ErrorKind as K;
    match &error.kind {
        K::Type { got, want } => {
            let want: Vec<String> = want.iter().map(|t| t.to_string()).collect();
            // boon calls every number "number"; say "integer" for 1 as JSON Schema does.
            let got = value.map_or_else(|| got.to_string(), |v| type_name(v).into());
            (format!("expected {}, got {got}", want.join(" or ")), "type")
        }
        K::Enum { want } => (
            format!(
                "{} is not one of {}",
                value.map_or_else(|| "the value".into(), json),
                json(&Value::Array(want.to_vec()))
            ),
            "enum",
        ),
        K::Const { want } => (format!("must be {}", json(want)), "const"),
        K::Format { got, want, .. } => (format!("{} is not a valid {want}", json(got)), "format"),
        K::MinProperties { want, .. } => {
            (format!("needs at least {want} properties"), "minProperties")
        }
        K::MaxProperties { want, .. } => {
            (format!("allows at most {want} properties"), "maxProperties")
        }
        K::AdditionalProperties { got } => (
            format!(
                "unexpected {}",
                names("property", got.iter().map(|n| n.as_ref()))
            ),
            "additionalProperties",
        ),
        K::Required { want } => (
            format!(
                "missing required {}",
                names("property", want.iter().copied())
            ),
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
        K::ExclusiveMinimum { got, want } => (
            format!("{got} is not greater than {want}"),
            "exclusiveMinimum",
        ),
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

/// The failing value itself, found in `instance` by its location (the error does not
/// carry it for every keyword).
fn value_at<'v>(tokens: &[InstanceToken], instance: &'v Value) -> Option<&'v Value> {
    tokens
        .iter()
        .try_fold(instance, |value, token| match token {
            InstanceToken::Prop(name) => value.get(name.as_ref()),
            InstanceToken::Item(i) => value.get(*i),
        })
}

/// The JSON Schema type of `value` (`integer` for a number without a fraction).
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// boon 0.6.1 numbers the items that `items` checks after a `prefixItems` (and
/// `additionalItems` after an `items` array) from 0 rather than from their place in the
/// array. The failing subschema's location (`schema_url`, a JSON Pointer into `schema`)
/// says where: for its last such keyword, add the length of the array before it to the
/// instance token that keyword consumed (the one before the tokens the rest of the
/// location consumed).
fn fix_item_index(tokens: &mut [InstanceToken], schema_url: &str, schema: &Value) {
    let Some((_, fragment)) = schema_url.split_once('#') else {
        return;
    };
    let segments: Vec<&str> = fragment.split('/').skip(1).collect();
    for at in (0..segments.len()).rev() {
        let before = match segments[at] {
            "items" => "prefixItems",
            "additionalItems" => "items",
            _ => continue,
        };
        let parent = segments[..at].iter().try_fold(schema, |s, seg| {
            s.get(unescape(seg).as_str())
                .or_else(|| seg.parse::<usize>().ok().and_then(|i| s.get(i)))
        });
        let offset = parent
            .and_then(|p| p.get(before))
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let consumed = consumed_tokens(&segments[at + 1..]);
        if let Some(pos) = tokens.len().checked_sub(1 + consumed)
            && let InstanceToken::Item(i) = &mut tokens[pos]
        {
            *i += offset;
        }
        return;
    }
}

/// How many instance tokens a schema location's segments step into (`properties/x`
/// one, `allOf/0` none, ...).
fn consumed_tokens(segments: &[&str]) -> usize {
    let mut consumed = 0;
    let mut rest = segments.iter();
    while let Some(segment) = rest.next() {
        match *segment {
            "properties" | "patternProperties" | "prefixItems" => {
                rest.next();
                consumed += 1;
            }
            "$defs" | "definitions" | "dependentSchemas" | "allOf" | "anyOf" | "oneOf" => {
                rest.next();
            }
            "items"
            | "additionalItems"
            | "additionalProperties"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "contains" => consumed += 1,
            _ => {}
        }
    }
    consumed
}

/// A JSON Pointer segment as written in a URI fragment (percent-encoded, RFC 6901).
fn unescape(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out)
        .replace("~1", "/")
        .replace("~0", "~")
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
