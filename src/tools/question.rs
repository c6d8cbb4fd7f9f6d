//! Typed questions: [`Call::ask`](super::Call::ask) derives a form elicitation's
//! `requestedSchema` from a Rust type and decodes the answer as that type.
//!
//! A form holds a flat object of primitive fields (client/elicitation, "Supported Schema
//! Types"; schema.ts `PrimitiveSchemaDefinition`): strings (`format` email, uri, date or
//! date-time), numbers and integers, booleans, and enums of strings (single select, or
//! an array of them for a multi-select). [`form_schema`] turns what schemars derives
//! into exactly that, or says which field and keyword a form cannot hold.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The user's answer to a typed question ([`Call::ask`](super::Call::ask)).
#[derive(Debug, Clone, PartialEq)]
pub enum Answer<T> {
    /// The user submitted the form: its content, decoded.
    Accept(T),
    /// The user explicitly said no.
    Decline,
    /// The user dismissed the question without choosing.
    Cancel,
}

/// String formats a form may ask for (schema.ts `StringSchema.format`).
const STRING_FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];
/// Keywords a field of each kind may carry, beside `type`, `title`, `description`, `default`.
const STRING_KEYS: [&str; 5] = ["minLength", "maxLength", "format", "enum", "enumNames"];
const NUMBER_KEYS: [&str; 2] = ["minimum", "maximum"];
const ARRAY_KEYS: [&str; 3] = ["items", "minItems", "maxItems"];
const COMMON_KEYS: [&str; 4] = ["type", "title", "description", "default"];

/// The `requestedSchema` of a form asking for `T`, or why `T` cannot be a form (the
/// field and the keyword). Derived the way tool schemas are, with every subschema
/// inlined; `Option` fields become optional ones.
///
/// ```
/// use mcp_tasks_edge::prelude::*;
/// use mcp_tasks_edge::tools::form_schema;
/// #[derive(Deserialize, JsonSchema)]
/// struct Approval {
///     /// Deploy it?
///     approve: bool,
///     reason: Option<String>,
/// }
/// let schema = form_schema::<Approval>().unwrap();
/// assert_eq!(schema["properties"]["reason"]["type"], "string");
/// assert_eq!(schema["required"], json!(["approve"]));
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Nested { approval: Approval }
/// assert!(form_schema::<Nested>().unwrap_err().contains("approval"));
/// ```
pub fn form_schema<T: JsonSchema>() -> Result<Value, String> {
    let derived = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let Value::Object(mut root) = derived else {
        return Err("its schema is not an object".into());
    };
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err("a form asks for an object of fields: derive it for a struct".into());
    }
    let Some(Value::Object(properties)) = root.remove("properties") else {
        return Err("it has no fields".into());
    };
    let mut fields = Map::new();
    for (name, field) in properties {
        let field = primitive(field).map_err(|why| format!("field {name:?} {why}"))?;
        fields.insert(name, field);
    }
    let mut form = Map::new();
    form.insert("type".into(), "object".into());
    form.insert("properties".into(), Value::Object(fields));
    if let Some(required) = root.remove("required") {
        form.insert("required".into(), required);
    }
    Ok(Value::Object(form))
}

/// One field as a form holds it (`PrimitiveSchemaDefinition`), or why it cannot be one.
fn primitive(field: Value) -> Result<Value, String> {
    let Value::Object(mut field) = non_null(field) else {
        return Err("has no schema a form can show".into());
    };
    // An enum with documented variants: schemars derives `oneOf` of `const`s, the form's
    // titled single select once each option has a title.
    if let Some(Value::Array(options)) = field.remove("oneOf") {
        field.insert("type".into(), "string".into());
        field.insert("oneOf".into(), titled(options)?.into());
        return only(field, &["oneOf"]);
    }
    let kind = field.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "string" => {
            if let Some(format) = field.get("format").and_then(Value::as_str)
                && !STRING_FORMATS.contains(&format)
            {
                return Err(format!(
                    "has format {format:?}; a form allows {}",
                    STRING_FORMATS.join(", ")
                ));
            }
            only(field, &STRING_KEYS)
        }
        "number" | "integer" => {
            // schemars' `uint32`, `double`…: what Rust stores, nothing a form shows.
            field.remove("format");
            only(field, &NUMBER_KEYS)
        }
        "boolean" => only(field, &[]),
        "array" => {
            let items = field.remove("items").unwrap_or(Value::Null);
            field.insert("items".into(), choices(items)?);
            field.remove("uniqueItems"); // a set: choices are distinct anyway
            only(field, &ARRAY_KEYS)
        }
        "object" => Err("is an object; a form holds strings, numbers, booleans and enums".into()),
        _ => Err(
            "has no single type a form can show (string, number, integer, boolean, or an enum)"
                .into(),
        ),
    }
}

/// `Option<T>`'s schema as `T`'s: the field is optional by being left out of `required`.
fn non_null(field: Value) -> Value {
    let Value::Object(mut field) = field else {
        return field;
    };
    match field.get_mut("type") {
        Some(Value::Array(types)) => {
            types.retain(|t| t != "null");
            if types.len() == 1 {
                let only = types.remove(0);
                field.insert("type".into(), only);
            }
        }
        _ => {
            if let Some(Value::Array(branches)) = field.get("anyOf")
                && branches.len() == 2
                && let Some(other) = branches
                    .iter()
                    .find(|b| b.get("type") != Some(&"null".into()))
            {
                let mut inner = other.clone();
                for key in ["title", "description", "default"] {
                    if let (Some(value), Some(object)) = (field.get(key), inner.as_object_mut()) {
                        object.insert(key.into(), value.clone());
                    }
                }
                return non_null(inner);
            }
        }
    }
    if let Some(Value::Array(options)) = field.get_mut("enum") {
        options.retain(|o| !o.is_null());
    }
    Value::Object(field)
}

/// A multi-select's `items`: an enum of strings, titled (`anyOf`) or not.
fn choices(items: Value) -> Result<Value, String> {
    let Value::Object(mut items) = items else {
        return Err("is an array of something other than choices".into());
    };
    if let Some(Value::Array(options)) = items.remove("oneOf").or_else(|| items.remove("anyOf")) {
        return Ok(serde_json::json!({ "anyOf": titled(options)? }));
    }
    match items.get("enum") {
        Some(Value::Array(options)) if options.iter().all(Value::is_string) => {
            Ok(serde_json::json!({ "type": "string", "enum": options }))
        }
        _ => Err("is an array; a form allows arrays of choices only (an enum of strings)".into()),
    }
}

/// `oneOf` options as a titled select's: `{const, title}`, the title from the variant's
/// title or doc comment, else the value itself.
fn titled(options: Vec<Value>) -> Result<Vec<Value>, String> {
    options
        .into_iter()
        .map(|option| {
            let value = option
                .get("const")
                .or_else(|| option.get("enum").and_then(|e| e.get(0)))
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    "has a choice that is not a string (a form's choices are strings)".to_owned()
                })?;
            let title = ["title", "description"]
                .iter()
                .find_map(|k| option.get(*k).and_then(Value::as_str))
                .unwrap_or(value);
            Ok(serde_json::json!({ "const": value, "title": title }))
        })
        .collect()
}

/// `field` with its common keywords and `allowed` ones; any other is an error.
fn only(field: Map<String, Value>, allowed: &[&str]) -> Result<Value, String> {
    if let Some(key) = field
        .keys()
        .find(|k| !COMMON_KEYS.contains(&k.as_str()) && !allowed.contains(&k.as_str()))
    {
        return Err(format!("has keyword {key:?}, which a form does not allow"));
    }
    Ok(Value::Object(field))
}
