//! What the result-shape tests share (tests/wire_results.rs, tests/wire_results_catalog.rs):
//! well-formed answers to input requests, as a client would give them, and the outcome of
//! one request with its task created as the adapter would.

use super::object::ID;
use super::{body, ctx, run_action};
use mcp_tasks_edge::http::HttpRequest;
use mcp_tasks_edge::server::{Action, Server};
use serde_json::{Map, Value, json};

/// A value of `schema`'s type (its `const`, the first enum value or `oneOf`/`anyOf`
/// alternative, a property-complete object).
pub fn sample(schema: &Value) -> Value {
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    for choice in ["oneOf", "anyOf"] {
        if let Some(first) = schema.get(choice).and_then(|e| e.get(0)) {
            return sample(first);
        }
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => json!("x"),
        Some("number") | Some("integer") => json!(1),
        Some("boolean") => json!(true),
        Some("array") => json!([]),
        Some("object") | None => {
            let mut object = Map::new();
            if let Some(Value::Object(properties)) = schema.get("properties") {
                for (name, property) in properties {
                    object.insert(name.clone(), sample(property));
                }
            }
            Value::Object(object)
        }
        Some(_) => Value::Null,
    }
}

/// A well-formed answer to an input request, as a client would give it.
pub fn answer(request: &Value) -> Value {
    match request["method"].as_str() {
        Some("elicitation/create") if request["params"]["mode"] == "url" => {
            json!({ "action": "accept" })
        }
        Some("elicitation/create") => {
            json!({ "action": "accept", "content": sample(&request["params"]["requestedSchema"]) })
        }
        Some("sampling/createMessage") => json!({ "role": "assistant", "model": "test-model",
            "content": { "type": "text", "text": "an answer" } }),
        Some("roots/list") => json!({ "roots": [{ "uri": "file:///tmp/project", "name": "p" }] }),
        other => panic!("unknown input request method {other:?}"),
    }
}

pub fn answers(requests: &Value) -> Value {
    let mut out = Map::new();
    for (key, request) in requests.as_object().unwrap() {
        out.insert(key.clone(), answer(request));
    }
    Value::Object(out)
}

/// The result (or error) of one request, with tasks created as the adapter would.
pub enum Outcome {
    Body(u16, Value),
    Task(Box<mcp_tasks_edge::tasks::record::TaskRecord>),
}

pub fn outcome(s: &Server, request: &HttpRequest) -> Outcome {
    match run_action(s, s.handle(request, &ctx())) {
        Action::Respond(r) => Outcome::Body(r.status, body(&r)),
        Action::CreateTask { mut record, .. } => {
            record.assign_id(ID.into());
            Outcome::Task(record)
        }
        other => panic!("unexpected action {other:?}"),
    }
}
