//! JSON Schema validation (src/mcp/schema): one table row per keyword, each with an
//! instance it accepts and one it refuses with the exact message; schemas derived by
//! schemars from Rust types (`$ref`/`$defs`, `oneOf`/`anyOf` for enums and options);
//! what compiling refuses (remote `$ref`, unknown dialects, invalid schemas, the bounds).
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::mcp::schema::{
    MAX_INSTANCE_DEPTH, MAX_SCHEMA_DEPTH, MAX_STEPS, MAX_SUBSCHEMAS, STEPS_PER_VALUE, Schema,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

fn check(schema: &Value, instance: &Value) -> Result<(), String> {
    Schema::compile(schema)
        .unwrap_or_else(|e| panic!("{schema} does not compile: {e}"))
        .validate(instance)
}

/// One row per keyword (tests/fixtures/schema/keywords.json): a schema, an instance it
/// accepts, one it refuses, and the exact message of the refusal.
#[test]
fn every_keyword_accepts_and_refuses_with_its_message() {
    let rows: Vec<Value> =
        serde_json::from_str(include_str!("fixtures/schema/keywords.json")).unwrap();
    assert!(rows.len() > 40);
    let mut wrong = Vec::new();
    for row in rows {
        let (name, schema) = (&row["keyword"], &row["schema"]);
        let (good, bad, message) = (&row["valid"], &row["invalid"], &row["message"]);
        if let Err(e) = check(schema, good) {
            wrong.push(format!("{name}: refused {good}: {e}"));
        }
        match check(schema, bad) {
            Err(e) if message.as_str() == Some(e.as_str()) => {}
            other => wrong.push(format!("{name}: {bad} gave {other:?}, expected {message}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `multipleOf` is exact in the decimal each number prints as, at any magnitude: a
/// relative tolerance took every tiny number for a multiple of anything, and every huge
/// one too (the differential property test found 6.5e283 and 3).
#[test]
fn multiple_of_is_exact_in_the_decimal_reading() {
    for (instance, divisor, multiple) in [
        (json!(0.0075), json!(0.0001), true),
        (json!(19.99), json!(0.01), true),
        (json!(4.5), json!(1.5), true),
        (json!(4.5), json!(2), false),
        (json!(1e-300), json!(3), false),
        (json!(3e-300), json!(1e-300), true),
        (json!(6.544563636215538e283), json!(3), true),
        (json!(6.544563636215537e283), json!(3), false),
        (json!(1e300), json!(7), false),
        (json!(1e300), json!(0.5), true),
        (json!(1e300), json!(1.2345), false),
        (json!(18446744073709551615u64), json!(5), true),
        (json!(-7.5), json!(2.5), true),
        (json!(0.0), json!(0.3), true),
    ] {
        let verdict = check(&json!({ "multipleOf": divisor }), &instance);
        assert_eq!(
            verdict.is_ok(),
            multiple,
            "{instance} multipleOf {divisor}: {verdict:?}"
        );
    }
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
    let e = check(
        &json!({ "type": "object", "additionalProperties": { "$ref": "#" } }),
        &deep,
    )
    .unwrap_err();
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
        (
            json!({ "$ref": "https://example.com/s.json" }),
            "https://example.com/s.json",
        ),
        (
            json!({ "properties": { "a": { "$ref": "http://127.0.0.1:9/x" } } }),
            "http://127.0.0.1:9/x",
        ),
        (
            json!({ "$ref": "file:///etc/passwd" }),
            "file:///etc/passwd",
        ),
        (
            json!({ "$ref": "other.json" }),
            "https://schema.invalid/other.json",
        ),
    ] {
        let e = Schema::compile(&schema).unwrap_err();
        assert_eq!(
            e,
            format!(
                "{url} is outside the schema, and schemas are never fetched (remote $ref or unknown $schema)"
            ),
            "{schema}"
        );
    }
    // Dialects other than 2020-12 and draft 7, at the root or in a subschema.
    for (schema, uri) in [
        (
            json!({ "$schema": "https://example.com/my-dialect", "type": "object" }),
            "https://example.com/my-dialect",
        ),
        (
            json!({ "$schema": "https://json-schema.org/draft/2019-09/schema" }),
            "https://json-schema.org/draft/2019-09/schema",
        ),
        (
            json!({ "$defs": { "a": { "$id": "a", "$schema": "http://json-schema.org/draft-04/schema#" } } }),
            "http://json-schema.org/draft-04/schema#",
        ),
    ] {
        assert_eq!(
            Schema::compile(&schema).unwrap_err(),
            format!(
                "{uri} is not a supported dialect (unknown $schema): schemas are JSON Schema 2020-12 or draft 7"
            ),
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

#[test]
fn no_schema_and_instance_make_validation_run_unbounded() {
    // Each level tries both alternatives of an `anyOf` down a 40-deep array, 2^40 paths
    // naively: the evaluation budget ends it with a clear line.
    let schema = json!({ "anyOf": [{ "items": { "$ref": "#" } }, { "items": { "$ref": "#" }, "minItems": 0 }],
        "not": { "const": 0 } });
    let deep = (0..40).fold(json!([1]), |inner, _| json!([inner]));
    let budget = MAX_STEPS + 42 * STEPS_PER_VALUE;
    assert_eq!(
        check(&schema, &deep),
        Err(format!(
            "(root): needs more than {budget} schema evaluations (evaluation limit)"
        ))
    );
    // The budget grows with the instance: 60,000 objects (120,000 evaluations) against a plain
    // schema pass, and the same schema still refuses a bad one at the end.
    let plain = json!({ "items": { "type": "object", "properties": { "n": { "type": "integer" } },
        "required": ["n"], "additionalProperties": false } });
    let mut many: Vec<Value> = (0..60_000).map(|n| json!({ "n": n })).collect();
    assert_eq!(check(&plain, &Value::Array(many.clone())), Ok(()));
    many.push(json!({ "n": "x" }));
    assert_eq!(
        check(&plain, &Value::Array(many)),
        Err("/60000/n: expected integer, got string (type)".into())
    );
    // A reference back to itself at the same value is a loop, not a stack overflow.
    let looping = json!({ "$defs": { "a": { "$ref": "#/$defs/b" }, "b": { "$ref": "#/$defs/a" } },
        "$ref": "#/$defs/a" });
    assert_eq!(
        check(&looping, &json!(1)),
        Err("(root): the schema's references loop ($ref)".into())
    );
    // Patterns run in linear time: the classic catastrophic backtracking pattern on a long
    // near-miss finishes at once (a backtracking engine would take longer than the universe).
    let started = std::time::Instant::now();
    assert!(
        check(
            &json!({ "pattern": "^(a+)+$" }),
            &json!(format!("{}b", "a".repeat(5000)))
        )
        .is_err()
    );
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
}

#[test]
fn patterns_the_engine_would_read_differently_are_refused_when_compiling() {
    for (pattern, why) in [
        (r"^\p{L}+$", "Unicode character classes are not supported"),
        (r"^(?=a)", "look-around"),
        (r"(a)\1", "backreferences are not supported"),
        ("(", "open group without closing"),
    ] {
        let e = Schema::compile(&json!({ "pattern": pattern })).unwrap_err();
        assert!(
            e.starts_with(r#"the schema's "pattern" at (root): "#) && e.contains(why),
            "{pattern}: {e}"
        );
    }
    // ECMA-262 escapes that read the same run as written.
    assert_eq!(
        check(
            &json!({ "pattern": r"^\d{3}-\w+\s\/$" }),
            &json!("123-ab_c /")
        ),
        Ok(())
    );
}
