//! A small JSON Schema 2020-12 validator for tool arguments.
//!
//! Tools declare their `inputSchema`; `tools/call` checks arguments against it before the
//! tool runs and answers -32602 with the first violation (the schema's example
//! `InvalidParamsError/invalid-tool-arguments`). It covers the keywords tool schemas use
//! in practice: `type`, `properties`, `required`, `additionalProperties`, `enum`,
//! `const`, `minimum`/`maximum`, `minLength`/`maxLength`, `items`, `minItems`/`maxItems`.
//! Unknown keywords are annotations and pass. Depth is bounded (basic/index
//! "Composition-Keyword Resource Use").

use serde_json::Value;

const MAX_DEPTH: usize = 32;

/// Validates `instance` against `schema`; `Err` names the first violation and its path.
pub fn validate(schema: &Value, instance: &Value) -> Result<(), String> {
    check(schema, instance, "", 0)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn has_type(instance: &Value, wanted: &str) -> bool {
    let actual = type_name(instance);
    actual == wanted || (wanted == "number" && actual == "integer")
}

fn at(path: &str) -> String {
    if path.is_empty() {
        "arguments".into()
    } else {
        format!("arguments{path}")
    }
}

fn check(schema: &Value, instance: &Value, path: &str, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "{}: schema nesting is too deep to validate",
            at(path)
        ));
    }
    let schema = match schema {
        Value::Bool(true) => return Ok(()),
        Value::Bool(false) => return Err(format!("{}: no value is allowed here", at(path))),
        Value::Object(o) => o,
        _ => return Ok(()),
    };
    match schema.get("type") {
        Some(Value::String(t)) if !has_type(instance, t) => {
            return Err(format!(
                "{}: expected {t}, got {}",
                at(path),
                type_name(instance)
            ));
        }
        Some(Value::Array(ts))
            if !ts
                .iter()
                .filter_map(Value::as_str)
                .any(|t| has_type(instance, t)) =>
        {
            return Err(format!(
                "{}: {} is not one of the allowed types",
                at(path),
                type_name(instance)
            ));
        }
        _ => {}
    }
    if let Some(Value::Array(options)) = schema.get("enum")
        && !options.contains(instance)
    {
        return Err(format!(
            "{}: {instance} is not one of {}",
            at(path),
            Value::Array(options.clone())
        ));
    }
    if let Some(expected) = schema.get("const")
        && expected != instance
    {
        return Err(format!("{}: must equal {expected}", at(path)));
    }
    if let Some(n) = instance.as_f64() {
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            return Err(format!("{}: {n} is less than the minimum {min}", at(path)));
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            return Err(format!(
                "{}: {n} is greater than the maximum {max}",
                at(path)
            ));
        }
    }
    if let Some(s) = instance.as_str() {
        let len = s.chars().count() as u64;
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
            && len < min
        {
            return Err(format!("{}: must be at least {min} characters", at(path)));
        }
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
            && len > max
        {
            return Err(format!("{}: must be at most {max} characters", at(path)));
        }
    }
    if let Some(items) = instance.as_array() {
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
            && (items.len() as u64) < min
        {
            return Err(format!("{}: must have at least {min} items", at(path)));
        }
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
            && items.len() as u64 > max
        {
            return Err(format!("{}: must have at most {max} items", at(path)));
        }
        if let Some(item_schema) = schema.get("items") {
            for (i, item) in items.iter().enumerate() {
                check(item_schema, item, &format!("{path}[{i}]"), depth + 1)?;
            }
        }
    }
    if let Some(object) = instance.as_object() {
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(name) {
                    return Err(format!("{}: missing required property '{name}'", at(path)));
                }
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, value) in object {
            let child_path = format!("{path}.{key}");
            match properties.and_then(|p| p.get(key)) {
                Some(child) => check(child, value, &child_path, depth + 1)?,
                None => {
                    if let Some(additional) = schema.get("additionalProperties") {
                        if additional == &Value::Bool(false) {
                            return Err(format!("{}: unexpected property '{key}'", at(path)));
                        }
                        check(additional, value, &child_path, depth + 1)?;
                    }
                }
            }
        }
    }
    Ok(())
}
