//! The official schemas (tests/fixtures/schema) and checks against them, shared by the
//! wire tests.

use serde_json::{Value, json};

pub const CORE: &str = include_str!("../fixtures/schema/mcp-2026-07-28.json");
pub const TASKS_SCHEMA: &str = include_str!("../fixtures/schema/ext-tasks.json");

pub fn errors_of(schema: &str, def: &str, instance: &Value) -> Vec<String> {
    let mut root: Value = serde_json::from_str(schema).unwrap();
    root["$ref"] = json!(format!("#/$defs/{def}"));
    let validator = jsonschema::validator_for(&root).unwrap();
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

pub fn assert_valid(schema: &str, def: &str, instance: &Value, context: &str) {
    let errors = errors_of(schema, def, instance);
    assert!(
        errors.is_empty(),
        "{context}: {def} invalid: {errors:?}\n{instance}"
    );
}

/// Checks a JSON-RPC error response: the envelope, and the shape its code has in the schema.
pub fn check_error(body: &Value, context: &str) {
    assert_valid(CORE, "JSONRPCErrorResponse", body, context);
    let specific = match body["error"]["code"].as_i64() {
        Some(-32700) => Some("ParseError"),
        Some(-32600) => Some("InvalidRequestError"),
        Some(-32601) => Some("MethodNotFoundError"),
        Some(-32602) => Some("InvalidParamsError"),
        Some(-32603) => Some("InternalError"),
        _ => None,
    };
    if let Some(def) = specific {
        assert_valid(CORE, def, &body["error"], context);
    }
    let whole = match body["error"]["code"].as_i64() {
        Some(-32020) => Some("HeaderMismatchError"),
        Some(-32021) => Some("MissingRequiredClientCapabilityError"),
        Some(-32022) => Some("UnsupportedProtocolVersionError"),
        _ => None,
    };
    if let Some(def) = whole {
        assert_valid(CORE, def, body, context);
    }
}

pub fn check_result(result: &Value, def: &str, context: &str) {
    assert_valid(CORE, "Result", result, context);
    assert_valid(CORE, def, result, context);
}
