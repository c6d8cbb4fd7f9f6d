//! A schema object's keywords as its dialect reads them (Validation 2020-12 §6, and the
//! draft 7 differences), each checked for the shape the metaschema gives it: a keyword of
//! the wrong shape makes the schema invalid, and compiling says which and where.

use super::super::index::{Draft, escape};
use super::super::pattern::Pattern;
use super::{Compiler, DynamicRef, bad};
use serde_json::{Map, Number, Value};

/// The assertions and applicators of one schema object, as the dialect reads them.
#[derive(Default)]
pub(in crate::mcp::schema) struct Keywords {
    /// The schema's pointer in the document, for a stable order of failures.
    pub at: String,
    /// The schema resource it belongs to (the dynamic scope is a list of these).
    pub resource: usize,
    pub reference: Option<usize>,
    pub dynamic_ref: Option<DynamicRef>,
    /// A set of [`TYPES`] bits; 0 for no `type`.
    pub types: u8,
    pub enumeration: Option<Vec<Value>>,
    pub constant: Option<Value>,
    pub multiple_of: Option<Number>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub exclusive_minimum: Option<Number>,
    pub exclusive_maximum: Option<Number>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<Pattern>,
    /// Asserted formats only (draft 7); in 2020-12 `format` is an annotation.
    pub format: Option<String>,
    pub prefix_items: Vec<usize>,
    pub items: Option<usize>,
    pub contains: Option<usize>,
    pub min_contains: Option<u64>,
    pub max_contains: Option<u64>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub unique_items: bool,
    pub unevaluated_items: Option<usize>,
    pub properties: Vec<(String, usize)>,
    pub pattern_properties: Vec<(Pattern, usize)>,
    pub additional_properties: Option<usize>,
    pub property_names: Option<usize>,
    pub required: Vec<String>,
    pub dependent_required: Vec<(String, Vec<String>)>,
    pub dependent_schemas: Vec<(String, usize)>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    pub unevaluated_properties: Option<usize>,
    pub all_of: Vec<usize>,
    pub any_of: Vec<usize>,
    pub one_of: Vec<usize>,
    pub not: Option<usize>,
    pub if_: Option<usize>,
    pub then: Option<usize>,
    pub else_: Option<usize>,
}

/// The type names, in the order messages list them; bit `i` of [`Keywords::types`] is
/// `TYPES[i]`.
pub(in crate::mcp::schema) const TYPES: [&str; 7] = [
    "null", "boolean", "number", "integer", "string", "array", "object",
];

impl Compiler<'_> {
    pub(super) fn keywords(
        &mut self,
        map: &Map<String, Value>,
        at: &str,
    ) -> Result<Keywords, String> {
        let draft = self.index.draft;
        let resource = self.index.resource_of(at);
        let mut k = Keywords {
            at: at.to_owned(),
            resource,
            ..Keywords::default()
        };
        if let Some(reference) = map.get("$ref") {
            k.reference = Some(self.reference(reference, at, "$ref")?.0);
            if draft == Draft::D7 {
                return Ok(k);
            }
        }
        let mut additional_items = None;
        for (keyword, value) in map {
            let bad = |why: &str| bad(at, keyword, why);
            let child = |name: &str| format!("{at}/{}", escape(name));
            match (draft, keyword.as_str()) {
                (_, "type") => {
                    k.types = types(value).ok_or_else(|| bad("must name JSON Schema types"))?
                }
                (_, "enum") => {
                    k.enumeration = Some(
                        value
                            .as_array()
                            .ok_or_else(|| bad("must be an array"))?
                            .clone(),
                    )
                }
                (_, "const") => k.constant = Some(value.clone()),
                (_, "multipleOf") => {
                    k.multiple_of = Some(
                        number(value)
                            .filter(|n| n.as_f64().is_some_and(|f| f > 0.0))
                            .ok_or_else(|| bad("must be a number above 0"))?,
                    )
                }
                (_, "minimum") => {
                    k.minimum = Some(number(value).ok_or_else(|| bad("must be a number"))?)
                }
                (_, "maximum") => {
                    k.maximum = Some(number(value).ok_or_else(|| bad("must be a number"))?)
                }
                (_, "exclusiveMinimum") => {
                    k.exclusive_minimum =
                        Some(number(value).ok_or_else(|| bad("must be a number"))?)
                }
                (_, "exclusiveMaximum") => {
                    k.exclusive_maximum =
                        Some(number(value).ok_or_else(|| bad("must be a number"))?)
                }
                (_, "minLength") => k.min_length = Some(count(value).ok_or_else(|| bad(COUNT))?),
                (_, "maxLength") => k.max_length = Some(count(value).ok_or_else(|| bad(COUNT))?),
                (_, "minItems") => k.min_items = Some(count(value).ok_or_else(|| bad(COUNT))?),
                (_, "maxItems") => k.max_items = Some(count(value).ok_or_else(|| bad(COUNT))?),
                (_, "minProperties") => {
                    k.min_properties = Some(count(value).ok_or_else(|| bad(COUNT))?)
                }
                (_, "maxProperties") => {
                    k.max_properties = Some(count(value).ok_or_else(|| bad(COUNT))?)
                }
                (Draft::D2020, "minContains") => {
                    k.min_contains = Some(count(value).ok_or_else(|| bad(COUNT))?)
                }
                (Draft::D2020, "maxContains") => {
                    k.max_contains = Some(count(value).ok_or_else(|| bad(COUNT))?)
                }
                (_, "uniqueItems") => {
                    k.unique_items = value.as_bool().ok_or_else(|| bad("must be a boolean"))?
                }
                (_, "pattern") => {
                    let source = value.as_str().ok_or_else(|| bad("must be a string"))?;
                    k.pattern = Some(Pattern::new(source).map_err(|e| bad(&e))?);
                }
                (_, "format") => {
                    let name = value.as_str().ok_or_else(|| bad("must be a string"))?;
                    if draft == Draft::D7 {
                        k.format = Some(name.to_owned());
                    }
                }
                (_, "required") => {
                    k.required = strings(value).ok_or_else(|| bad("must be an array of strings"))?
                }
                (Draft::D2020, "dependentRequired") => {
                    k.dependent_required = string_lists(value)
                        .ok_or_else(|| bad("must map names to arrays of strings"))?
                }
                (Draft::D7, "dependencies") => {
                    let map = value.as_object().ok_or_else(|| bad("must be an object"))?;
                    for (name, v) in map {
                        match strings(v) {
                            Some(names) => k.dependent_required.push((name.clone(), names)),
                            None => k.dependent_schemas.push((
                                name.clone(),
                                self.schema(
                                    v,
                                    at,
                                    keyword,
                                    &format!("{}/{}", child(keyword), escape(name)),
                                )?,
                            )),
                        }
                    }
                }
                (_, "properties") => k.properties = self.schema_map(value, at, keyword)?,
                (Draft::D2020, "dependentSchemas") => {
                    k.dependent_schemas = self.schema_map(value, at, keyword)?
                }
                (Draft::D2020, "$defs") | (Draft::D7, "definitions") => {
                    self.schema_map(value, at, keyword)?;
                }
                (_, "patternProperties") => {
                    for (source, n) in self.schema_map(value, at, keyword)? {
                        k.pattern_properties
                            .push((Pattern::new(&source).map_err(|e| bad(&e))?, n));
                    }
                }
                (_, "additionalProperties") => {
                    k.additional_properties =
                        Some(self.schema(value, at, keyword, &child(keyword))?)
                }
                (_, "propertyNames") => {
                    k.property_names = Some(self.schema(value, at, keyword, &child(keyword))?)
                }
                (_, "contains") => {
                    k.contains = Some(self.schema(value, at, keyword, &child(keyword))?)
                }
                (_, "not") => k.not = Some(self.schema(value, at, keyword, &child(keyword))?),
                (_, "if") => k.if_ = Some(self.schema(value, at, keyword, &child(keyword))?),
                (_, "then") => k.then = Some(self.schema(value, at, keyword, &child(keyword))?),
                (_, "else") => k.else_ = Some(self.schema(value, at, keyword, &child(keyword))?),
                (_, "allOf") => k.all_of = self.schema_list(value, at, keyword)?,
                (_, "anyOf") => k.any_of = self.schema_list(value, at, keyword)?,
                (_, "oneOf") => k.one_of = self.schema_list(value, at, keyword)?,
                (Draft::D2020, "prefixItems") => {
                    k.prefix_items = self.schema_list(value, at, keyword)?
                }
                (Draft::D7, "items") if value.is_array() => {
                    k.prefix_items = self.schema_list(value, at, keyword)?
                }
                (_, "items") => k.items = Some(self.schema(value, at, keyword, &child(keyword))?),
                (Draft::D7, "additionalItems") => {
                    additional_items = Some(self.schema(value, at, keyword, &child(keyword))?)
                }
                (Draft::D2020, "unevaluatedItems") => {
                    k.unevaluated_items = Some(self.schema(value, at, keyword, &child(keyword))?)
                }
                (Draft::D2020, "unevaluatedProperties") => {
                    k.unevaluated_properties =
                        Some(self.schema(value, at, keyword, &child(keyword))?)
                }
                (Draft::D2020, "$dynamicRef") => {
                    let (target, anchor) = self.reference(value, at, keyword)?;
                    k.dynamic_ref = Some(DynamicRef { target, anchor });
                }
                (_, "$id" | "$anchor" | "$dynamicAnchor" | "$comment") if !value.is_string() => {
                    return Err(bad("must be a string"));
                }
                _ => {}
            }
        }
        // Draft 7: `additionalItems` applies only after an `items` array (draft-07
        // validation §6.4.2).
        if map.get("items").is_some_and(Value::is_array) {
            k.items = additional_items;
        }
        Ok(k)
    }
}

const COUNT: &str = "must be a non-negative integer";

fn types(value: &Value) -> Option<u8> {
    let bit = |name: &Value| {
        let i = TYPES.iter().position(|t| Some(*t) == name.as_str())?;
        Some(1u8 << i)
    };
    match value {
        Value::Array(names) if !names.is_empty() => {
            names.iter().try_fold(0, |set, n| Some(set | bit(n)?))
        }
        Value::String(_) => bit(value),
        _ => None,
    }
}

fn number(value: &Value) -> Option<Number> {
    value.as_number().cloned()
}

/// A non-negative integer (`2.0` included, as the metaschemas allow).
fn count(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < u64::MAX as f64)
            .map(|f| f as u64)
    })
}

fn strings(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

fn string_lists(value: &Value) -> Option<Vec<(String, Vec<String>)>> {
    value
        .as_object()?
        .iter()
        .map(|(name, v)| Some((name.clone(), strings(v)?)))
        .collect()
}
