//! Typed questions: [`Call::ask`](super::Call::ask) derives a form elicitation's
//! `requestedSchema` from a Rust type and decodes the answer as that type.
//!
//! A form holds a flat object of primitive fields (client/elicitation, "Supported Schema
//! Types"; schema.ts `PrimitiveSchemaDefinition`): strings (`format` email, uri, date or
//! date-time), numbers and integers, booleans, and enums of strings (single select, or
//! an array of them for a multi-select). [`form_schema`] turns what schemars derives
//! into exactly that, or says which field and keyword a form cannot hold.

use super::{Call, Step, ToolError, one_request};
use crate::jsonrpc::ErrorObject;
use crate::mcp::input::{self, Elicited};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

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

/// What a step asks, and the answers it reads by the keys it asked them under.
impl<A> Call<A> {
    /// The answer to elicitation `key`, if it has arrived; `Err` if it is malformed.
    pub fn elicited(&self, key: &str) -> Result<Option<Elicited>, ErrorObject> {
        self.answers
            .get(key)
            .map(|a| input::as_elicit_result(key, a))
            .transpose()
            .map_err(|e| e.to_wire())
    }

    /// Asks the user a typed question by form elicitation under `key`: the form's
    /// `requestedSchema` is derived from `T` ([`form_schema`](super::form_schema): a
    /// flat struct of strings, numbers, booleans and string enums; `Option` fields are
    /// optional), and the answer comes back decoded as `T`. Until it has arrived this is
    /// `Err(ToolError::NeedInput(..))`: return it with `?` and the step re-runs with the
    /// answer, inline by MRTR or inside the call's task, whichever the client gets. A
    /// content that does not match the schema never reaches the step: the server refuses
    /// it where it arrives (-32602 naming the field).
    ///
    /// ```
    /// use mcp_tasks_edge::prelude::*;
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Approval { approve: bool, reason: Option<String> }
    ///
    /// fn decide(call: &Call) -> Result<Step, ToolError> {
    ///     Ok(match call.ask::<Approval>("approval", "Deploy v2?")? {
    ///         Answer::Accept(a) if a.approve => Step::text("Deploying."),
    ///         Answer::Accept(a) => Step::text(format!("Not deployed: {}", a.reason.unwrap_or_default())),
    ///         Answer::Decline | Answer::Cancel => Step::text("Nothing was decided."),
    ///     })
    /// }
    /// let asked = decide(&Call::new(json!({})));
    /// assert!(matches!(asked, Err(ToolError::NeedInput(_))));
    /// let answered = Call::new(json!({}))
    ///     .answered(json!({ "approval": { "action": "accept", "content": { "approve": true } } }));
    /// assert_eq!(decide(&answered), Ok(Step::text("Deploying.")));
    /// ```
    pub fn ask<T: DeserializeOwned + JsonSchema>(
        &self,
        key: &str,
        message: &str,
    ) -> Result<Answer<T>, ToolError> {
        match self.elicited(key).map_err(ToolError::Rpc)? {
            None => {
                let schema = super::form_schema::<T>().map_err(|why| {
                    ToolError::internal(format!(
                        "question {key:?} cannot be a form: {} {why}",
                        std::any::type_name::<T>()
                    ))
                })?;
                Err(ToolError::NeedInput(one_request(
                    key,
                    input::elicit_form(message, schema),
                )))
            }
            Some(Elicited::Accept(content)) => crate::jsonrpc::from_value(Value::Object(content))
                .map(Answer::Accept)
                .map_err(|e| {
                    ToolError::invalid_params(format!(
                        "the answer to {key:?} is not a {}: {e}",
                        std::any::type_name::<T>()
                    ))
                }),
            Some(Elicited::Decline) => Ok(Answer::Decline),
            Some(Elicited::Cancel) => Ok(Answer::Cancel),
        }
    }

    /// Asks for one required text `field` by form elicitation under `key` and gives back
    /// the answer: `Ok(Some(text))` once accepted, `Ok(None)` if the user declined or
    /// cancelled, and until then `Err(step)`, the step to return (the question, or a
    /// failure for a malformed answer):
    ///
    /// ```
    /// # use mcp_tasks_edge::tools::{Call, Step};
    /// fn greet(call: &Call) -> Step {
    ///     let name = match call.ask_text("name", "Your name?", "name") {
    ///         Ok(name) => name.unwrap_or_else(|| "stranger".into()),
    ///         Err(step) => return step,
    ///     };
    ///     Step::text(format!("Hello, {name}!"))
    /// }
    /// ```
    pub fn ask_text(&self, key: &str, message: &str, field: &str) -> Result<Option<String>, Step> {
        match self.elicited(key) {
            Err(error) => Err(Step::Fail(error)),
            Ok(None) => {
                let schema = json!({ "type": "object", "properties": { field: { "type": "string" } }, "required": [field] });
                Err(Step::NeedInput(one_request(
                    key,
                    input::elicit_form(message, schema),
                )))
            }
            Ok(Some(Elicited::Accept(content))) => Ok(Some(
                content
                    .get(field)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            )),
            Ok(Some(Elicited::Decline | Elicited::Cancel)) => Ok(None),
        }
    }

    /// The text of sampling answer `key`, if it has arrived.
    pub fn sampled(&self, key: &str) -> Result<Option<String>, ErrorObject> {
        self.answers
            .get(key)
            .map(|a| input::as_sampled_text(key, a))
            .transpose()
            .map_err(|e| e.to_wire())
    }

    /// The root URIs of `roots/list` answer `key`, if it has arrived.
    pub fn roots(&self, key: &str) -> Result<Option<Vec<String>>, ErrorObject> {
        self.answers
            .get(key)
            .map(|a| input::as_root_uris(key, a))
            .transpose()
            .map_err(|e| e.to_wire())
    }
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
    // `#[serde(default)]` on an `Option` derives `"default": null`, which no form field
    // can hold: left out, the field is simply optional.
    if field.get("default").is_some_and(Value::is_null) {
        field.remove("default");
    }
    Value::Object(field)
}

/// A multi-select's `items`: an enum of strings, titled (`anyOf`) or not.
fn choices(items: Value) -> Result<Value, String> {
    let Value::Object(mut items) = items else {
        return Err("is an array of something other than choices".into());
    };
    if let Some(Value::Array(options)) = items.remove("oneOf").or_else(|| items.remove("anyOf")) {
        return Ok(json!({ "anyOf": titled(options)? }));
    }
    match items.get("enum") {
        Some(Value::Array(options)) if options.iter().all(Value::is_string) => {
            Ok(json!({ "type": "string", "enum": options }))
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
            Ok(json!({ "const": value, "title": title }))
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
