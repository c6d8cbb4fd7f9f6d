//! JSON Schema validation (src/mcp/schema): one table row per keyword, each with an
//! instance it accepts and one it refuses with the exact message; schemas derived by
//! schemars from Rust types (`$ref`/`$defs`, `oneOf`/`anyOf` for enums and options);
//! what compiling refuses (remote `$ref`, unknown dialects, invalid schemas, the bounds).
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::mcp::schema::{MAX_INSTANCE_DEPTH, MAX_SCHEMA_DEPTH, MAX_SUBSCHEMAS, Schema};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

fn check(schema: &Value, instance: &Value) -> Result<(), String> {
    Schema::compile(schema)
        .unwrap_or_else(|e| panic!("{schema} does not compile: {e}"))
        .validate(instance)
}

/// (keyword, schema, an accepted instance, a refused instance, its message).
fn keyword_table() -> Vec<(&'static str, Value, Value, Value, &'static str)> {
    vec![
        ("type", json!({ "type": "string" }), json!("a"), json!(1), "(root): expected string, got integer (type)"),
        ("type list", json!({ "type": ["string", "null"] }), json!(null), json!(1.5), "(root): expected null or string, got number (type)"),
        ("enum", json!({ "properties": { "items": { "items": { "properties": { "kind": { "enum": ["a", "b"] } } } } } }),
            json!({ "items": [{ "kind": "a" }] }), json!({ "items": [{}, {}, { "kind": "c" }] }),
            r#"/items/2/kind: "c" is not one of ["a","b"] (enum)"#),
        ("const", json!({ "const": 3 }), json!(3), json!(4), "(root): must be 3 (const)"),
        ("required", json!({ "required": ["name"] }), json!({ "name": 1 }), json!({}), r#"(root): missing required property "name" (required)"#),
        ("required, two", json!({ "required": ["a", "b"] }), json!({ "a": 1, "b": 2 }), json!({}), r#"(root): missing required properties "a", "b" (required)"#),
        ("additionalProperties", json!({ "properties": { "a": {} }, "additionalProperties": false }),
            json!({ "a": 1 }), json!({ "a": 1, "x": 2 }), r#"(root): unexpected property "x" (additionalProperties)"#),
        ("additionalProperties schema", json!({ "additionalProperties": { "type": "integer" } }),
            json!({ "n": 1 }), json!({ "n": "1" }), "/n: expected integer, got string (type)"),
        ("patternProperties", json!({ "patternProperties": { "^x-": { "type": "string" } } }),
            json!({ "x-a": "s", "y": 1 }), json!({ "x-a": 1 }), "/x-a: expected string, got integer (type)"),
        ("propertyNames", json!({ "propertyNames": { "maxLength": 3 } }), json!({ "abc": 1 }), json!({ "abcd": 1 }),
            r#"(root): property name "abcd" is not allowed (propertyNames)"#),
        ("minProperties", json!({ "minProperties": 1 }), json!({ "a": 1 }), json!({}), "(root): needs at least 1 properties (minProperties)"),
        ("maxProperties", json!({ "maxProperties": 1 }), json!({ "a": 1 }), json!({ "a": 1, "b": 2 }), "(root): allows at most 1 properties (maxProperties)"),
        ("dependentRequired", json!({ "dependentRequired": { "card": ["cvv"] } }), json!({ "card": 1, "cvv": 2 }), json!({ "card": 1 }),
            r#"(root): "card" needs property "cvv" (dependentRequired)"#),
        ("dependentSchemas", json!({ "dependentSchemas": { "card": { "required": ["zip"] } } }), json!({ "card": 1, "zip": 2 }), json!({ "card": 1 }),
            r#"(root): missing required property "zip" (required)"#),
        ("minimum", json!({ "minimum": 1 }), json!(1), json!(0), "(root): 0 is less than 1 (minimum)"),
        ("maximum", json!({ "maximum": 1 }), json!(1), json!(2), "(root): 2 is greater than 1 (maximum)"),
        ("exclusiveMinimum", json!({ "exclusiveMinimum": 1 }), json!(1.5), json!(1), "(root): 1 is not greater than 1 (exclusiveMinimum)"),
        ("exclusiveMaximum", json!({ "exclusiveMaximum": 1 }), json!(0), json!(1), "(root): 1 is not less than 1 (exclusiveMaximum)"),
        ("multipleOf", json!({ "multipleOf": 3 }), json!(9), json!(10), "(root): 10 is not a multiple of 3 (multipleOf)"),
        ("minLength", json!({ "minLength": 2 }), json!("ab"), json!("é"), "(root): must be at least 2 characters (minLength)"),
        ("maxLength", json!({ "maxLength": 2 }), json!("éé"), json!("abc"), "(root): must be at most 2 characters (maxLength)"),
        ("pattern", json!({ "pattern": "^[a-z]+$" }), json!("abc"), json!("aB"), r#"(root): "aB" does not match "^[a-z]+$" (pattern)"#),
        ("items", json!({ "items": { "type": "integer" } }), json!([1, 2]), json!([1, "2"]), "/1: expected integer, got string (type)"),
        ("prefixItems", json!({ "prefixItems": [{ "type": "string" }], "items": false }), json!(["a"]), json!(["a", 1]),
            "/1: item not allowed (items)"),
        ("prefixItems type", json!({ "prefixItems": [{ "type": "string" }, { "type": "integer" }] }), json!(["a", 1, true]), json!([1]),
            "/0: expected string, got integer (type)"),
        ("minItems", json!({ "minItems": 1 }), json!([0]), json!([]), "(root): needs at least 1 items (minItems)"),
        ("maxItems", json!({ "maxItems": 1 }), json!([0]), json!([0, 1]), "(root): allows at most 1 items (maxItems)"),
        ("uniqueItems", json!({ "uniqueItems": true }), json!([1, 2]), json!([1, 2, 1]), "(root): items 0 and 2 are equal (uniqueItems)"),
        ("contains", json!({ "contains": { "const": "x" } }), json!(["x"]), json!(["y"]), "(root): no item matches (contains)"),
        ("minContains", json!({ "contains": { "const": "x" }, "minContains": 2 }), json!(["x", "x"]), json!(["x"]),
            "(root): 1 items match, at least 2 must (minContains)"),
        ("maxContains", json!({ "contains": { "const": "x" }, "maxContains": 1 }), json!(["x"]), json!(["x", "x"]),
            "(root): 2 items match, at most 1 may (maxContains)"),
        ("allOf", json!({ "allOf": [{ "type": "object" }, { "required": ["a"] }] }), json!({ "a": 1 }), json!({}),
            r#"(root): missing required property "a" (required)"#),
        ("anyOf", json!({ "properties": { "contact": { "anyOf": [{ "type": "string" }, { "type": "integer" }] } } }),
            json!({ "contact": 5 }), json!({ "contact": true }), "/contact: matches none of the alternatives (anyOf)"),
        ("oneOf none", json!({ "oneOf": [{ "type": "string" }, { "type": "integer" }] }), json!(1), json!(null),
            "(root): matches none of the alternatives (oneOf)"),
        ("oneOf both", json!({ "oneOf": [{ "type": "number" }, { "type": "integer" }] }), json!(1.5), json!(1),
            "(root): matches alternatives 0 and 1, exactly one must match (oneOf)"),
        ("not", json!({ "not": { "type": "null" } }), json!(0), json!(null), "(root): matches a schema it must not (not)"),
        ("if/then", json!({ "if": { "properties": { "m": { "const": "phone" } }, "required": ["m"] }, "then": { "required": ["phone"] }, "else": { "required": ["email"] } }),
            json!({ "m": "phone", "phone": "1" }), json!({ "m": "phone", "email": "e" }), r#"(root): missing required property "phone" (required)"#),
        ("if/else", json!({ "if": { "properties": { "m": { "const": "phone" } }, "required": ["m"] }, "then": { "required": ["phone"] }, "else": { "required": ["email"] } }),
            json!({ "email": "e" }), json!({ "m": "mail" }), r#"(root): missing required property "email" (required)"#),
        ("$ref to $defs", json!({ "$defs": { "kind": { "enum": ["a", "b"] } }, "properties": { "k": { "$ref": "#/$defs/kind" } } }),
            json!({ "k": "a" }), json!({ "k": "c" }), r#"/k: "c" is not one of ["a","b"] (enum)"#),
        ("$ref to $anchor", json!({ "$defs": { "n": { "$anchor": "num", "type": "number" } }, "items": { "$ref": "#num" } }),
            json!([1]), json!(["1"]), "/0: expected number, got string (type)"),
        ("recursive $ref", json!({ "properties": { "name": { "type": "string" }, "kids": { "items": { "$ref": "#" } } } }),
            json!({ "kids": [{ "kids": [] }] }), json!({ "kids": [{ "kids": [{ "name": 7 }] }] }), "/kids/0/kids/0/name: expected string, got integer (type)"),
        ("unevaluatedProperties", json!({ "properties": { "a": {} }, "anyOf": [{ "properties": { "b": {} } }], "unevaluatedProperties": false }),
            json!({ "a": 1, "b": 2 }), json!({ "a": 1, "c": 3 }), "/c: property not allowed (unevaluatedProperties)"),
        ("unevaluatedItems", json!({ "prefixItems": [{}], "unevaluatedItems": false }), json!([1]), json!([1, 2]),
            "/1: item not allowed (unevaluatedItems)"),
        ("false schema", json!({ "properties": { "gone": false } }), json!({}), json!({ "gone": 1 }), "/gone: no value is allowed here (false schema)"),
        ("format is an annotation in 2020-12", json!({ "type": "string", "format": "email" }), json!("not an email"), json!(1), "(root): expected string, got integer (type)"),
        ("items after prefixItems", json!({ "prefixItems": [{}, {}], "items": { "properties": { "n": { "type": "integer" } } } }),
            json!([0, 0, { "n": 1 }]), json!([0, 0, { "n": 1 }, { "n": "x" }]), "/3/n: expected integer, got string (type)"),
    ]
}

#[test]
fn every_keyword_accepts_and_refuses_with_its_message() {
    let mut wrong = Vec::new();
    for (name, schema, good, bad, message) in keyword_table() {
        // Every row is a tool-like schema too: wrapped as the type of one argument.
        if let Err(e) = check(&schema, &good) {
            wrong.push(format!("{name}: refused {good}: {e}"));
        }
        match check(&schema, &bad) {
            Err(e) if e == message => {}
            other => wrong.push(format!("{name}: {bad} gave {other:?}, expected {message:?}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn draft_07_is_honoured_by_its_dollar_schema() {
    // draft 7: `format` asserts, `dependencies` instead of dependentRequired.
    let schema = json!({ "$schema": "http://json-schema.org/draft-07/schema#", "format": "ipv4",
        "dependencies": { "a": ["b"] } });
    assert_eq!(check(&schema, &json!("10.0.0.1")), Ok(()));
    assert_eq!(
        check(&schema, &json!("10.0.0.300")),
        Err(r#"(root): "10.0.0.300" is not a valid ipv4 (format)"#.into())
    );
    assert_eq!(
        check(&schema, &json!({ "a": 1 })),
        Err(r#"(root): "a" needs property "b" (dependentRequired)"#.into())
    );
}

#[test]
fn echoed_values_names_and_paths_are_cut_short() {
    let long = "x".repeat(10_000);
    let e = check(&json!({ "enum": ["a"] }), &json!(long)).unwrap_err();
    assert!(e.len() < 200, "{e}");
    assert!(e.ends_with(r#"… is not one of ["a"] (enum)"#), "{e}");
    let e = check(
        &json!({ "additionalProperties": false }),
        &json!({ long.clone(): 1 }),
    )
    .unwrap_err();
    assert!(e.len() < 200, "{e}");
    let mut deep = json!({ long.clone(): 1 });
    for _ in 0..10 {
        deep = json!({ long.clone(): deep });
    }
    let e = check(&json!({ "type": "object", "additionalProperties": { "$ref": "#" } }), &deep).unwrap_err();
    assert!(e.len() < 300, "{e}");
    // JSON Pointer escapes ~ and /.
    let e = check(
        &json!({ "additionalProperties": { "type": "string" } }),
        &json!({ "a/b~c": 1 }),
    )
    .unwrap_err();
    assert_eq!(e, "/a~1b~0c: expected string, got integer (type)");
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
struct Order {
    customer: Customer,
    lines: Vec<Line>,
    /// An Option: schemars writes `"type": ["string", "null"]`.
    note: Option<String>,
    delivery: Delivery,
    priority: Priority,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Customer {
    name: String,
    email: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Line {
    sku: String,
    #[schemars(range(min = 1))]
    quantity: u32,
}

/// A data-carrying enum: schemars writes `oneOf`.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Delivery {
    Pickup { store: String },
    Courier { address: String },
}

/// A unit enum: schemars writes `enum`.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
enum Priority {
    Low,
    High,
}

fn order_schema() -> Value {
    let schema = schemars::schema_for!(Order).to_value();
    assert!(schema["$defs"]["Customer"].is_object(), "{schema:#}");
    assert_eq!(schema["properties"]["customer"]["$ref"], "#/$defs/Customer");
    schema
}

#[test]
fn schemas_derived_by_schemars_are_enforced_through_refs_and_one_of() {
    let schema = order_schema();
    let good = json!({ "customer": { "name": "Ada", "email": null }, "lines": [{ "sku": "a", "quantity": 2 }],
        "note": null, "delivery": { "kind": "pickup", "store": "Oslo" }, "priority": "high" });
    assert_eq!(check(&schema, &good), Ok(()));
    let with = |pointer: &str, value: Value| {
        let mut v = good.clone();
        *v.pointer_mut(pointer).unwrap() = value;
        check(&schema, &v)
    };
    assert_eq!(
        with("/customer/name", json!(7)),
        Err("/customer/name: expected string, got integer (type)".into())
    );
    assert_eq!(
        with("/lines/0/quantity", json!(0)),
        Err("/lines/0/quantity: 0 is less than 1 (minimum)".into())
    );
    assert_eq!(
        with("/note", json!(5)),
        Err("/note: expected null or string, got integer (type)".into())
    );
    assert_eq!(
        with("/delivery", json!({ "kind": "drone", "store": "x" })),
        Err("/delivery: matches none of the alternatives (oneOf)".into())
    );
    assert_eq!(
        with("/priority", json!("urgent")),
        Err(r#"/priority: "urgent" is not one of ["low","high"] (enum)"#.into())
    );
    assert_eq!(
        with("/customer", json!({})),
        Err(r#"/customer: missing required property "name" (required)"#.into())
    );
}

#[test]
fn remote_refs_and_unknown_dialects_are_refused_when_compiling() {
    for (schema, url) in [
        (json!({ "$ref": "https://example.com/s.json" }), "https://example.com/s.json"),
        (json!({ "properties": { "a": { "$ref": "http://127.0.0.1:9/x" } } }), "http://127.0.0.1:9/x"),
        (json!({ "$ref": "file:///etc/passwd" }), "file:///etc/passwd"),
        (json!({ "$ref": "other.json" }), "https://schema.invalid/other.json"),
        (json!({ "$schema": "https://example.com/my-dialect", "type": "object" }), "https://example.com/my-dialect"),
    ] {
        let e = Schema::compile(&schema).unwrap_err();
        assert_eq!(
            e,
            format!("{url} is outside the schema, and schemas are never fetched (remote $ref or unknown $schema)"),
            "{schema}"
        );
    }
    // A local reference that resolves nowhere, and a schema its metaschema refuses.
    let e = Schema::compile(&json!({ "$ref": "#/$defs/missing" })).unwrap_err();
    assert!(e.contains("$defs/missing"), "{e}");
    let e = Schema::compile(&json!({ "type": "strnig" })).unwrap_err();
    assert!(e.contains("type"), "{e}");
    let e = Schema::compile(&json!({ "minimum": "1" })).unwrap_err();
    assert!(e.contains("minimum"), "{e}");
}

#[test]
fn schema_and_instance_bounds() {
    let mut deep = json!({ "type": "object" });
    for _ in 0..MAX_SCHEMA_DEPTH {
        deep = json!({ "properties": { "a": deep } });
    }
    assert_eq!(
        Schema::compile(&deep).unwrap_err(),
        format!("the schema nests deeper than {MAX_SCHEMA_DEPTH} levels")
    );
    let wide: serde_json::Map<String, Value> = (0..MAX_SUBSCHEMAS)
        .map(|i| (format!("p{i}"), json!({ "type": "string" })))
        .collect();
    assert_eq!(
        Schema::compile(&json!({ "properties": wide })).unwrap_err(),
        format!("the schema has more than {MAX_SUBSCHEMAS} subschemas")
    );
    // Instances: MAX_INSTANCE_DEPTH nested containers pass, one more is refused.
    let recursive = Schema::compile(&json!({ "items": { "$ref": "#" } })).unwrap();
    let nested = |levels: usize| (1..levels).fold(json!([]), |inner, _| json!([inner]));
    assert_eq!(recursive.validate(&nested(MAX_INSTANCE_DEPTH)), Ok(()));
    assert_eq!(
        recursive.validate(&nested(MAX_INSTANCE_DEPTH + 1)),
        Err(format!(
            "(root): nests deeper than {MAX_INSTANCE_DEPTH} levels (depth limit)"
        ))
    );
}
