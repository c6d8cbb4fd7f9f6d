//! `jsonrpc::read` and `jsonrpc::from_value` read as `serde_json::from_value` does, except
//! that a struct is read from an object only (`jsonrpc::top::Top`): same values, same
//! errors, and an array where a struct belongs is refused instead of read by position.

use mcp_tasks_edge::jsonrpc::{self, ErrorObject};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, PartialEq, Deserialize)]
struct Point {
    x: u32,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Plain,
    Sized(u32),
}

fn both<T: serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(value: Value) {
    let ours = jsonrpc::from_value::<T>(value.clone()).map_err(|e| e.to_string());
    let theirs = serde_json::from_value::<T>(value.clone()).map_err(|e| e.to_string());
    assert_eq!(ours, theirs, "{value}");
    let text = serde_json::to_vec(&value).unwrap();
    let read = jsonrpc::read::<T>(&text).map_err(|e| e.to_string());
    assert_eq!(read, theirs, "{value}");
}

#[test]
fn reads_as_serde_json_does() {
    for v in [
        json!({"x": 1}),
        json!({"x": 1, "tags": ["a"], "other": true}),
        json!({"x": -1}),
        json!({"x": "1"}),
        json!({}),
        json!(null),
        json!(7),
        json!(-7),
        json!(1.5),
        json!("text"),
        json!(true),
    ] {
        both::<Point>(v.clone());
        both::<Option<Point>>(v.clone());
        both::<Value>(v.clone());
        both::<Vec<u32>>(v.clone());
        both::<Kind>(v);
    }
    both::<Kind>(json!("plain"));
    both::<Kind>(json!({"sized": 3}));
    both::<Vec<Point>>(json!([{"x": 1}, {"x": 2}]));
    both::<ErrorObject>(json!({"code": -32602, "message": "m"}));
}

#[test]
fn a_struct_is_never_read_from_an_array() {
    // serde_json reads it by position; a stored or sent struct is always an object.
    assert!(serde_json::from_value::<Point>(json!([1, []])).is_ok());
    for read in [
        jsonrpc::from_value::<Point>(json!([1, []])),
        jsonrpc::read::<Point>(b"[1, []]"),
    ] {
        assert_eq!(
            read.unwrap_err().to_string(),
            "invalid type: sequence, expected struct Point"
        );
    }
    // Inside an object, as before (only the value read first is a `Top`).
    assert_eq!(
        jsonrpc::from_value::<Vec<Point>>(json!([{"x": 1}])).unwrap(),
        [Point { x: 1, tags: vec![] }]
    );
}

#[derive(Debug, PartialEq, Deserialize)]
struct Holder {
    #[serde(default, deserialize_with = "mcp_tasks_edge::jsonrpc::top::nested")]
    inner: Option<Point>,
}

#[derive(Debug, PartialEq, Deserialize)]
struct PlainHolder {
    #[serde(default)]
    inner: Option<Point>,
}

/// A field read through `top::nested` reads as serde's own, but never from an array.
#[test]
fn a_nested_struct_reads_as_serde_json_reads_it() {
    for v in [
        json!({}),
        json!({"inner": null}),
        json!({"inner": {"x": 2}}),
        json!({"inner": {"x": "2"}}),
        json!({"inner": 5}),
        json!({"inner": "text"}),
    ] {
        let ours = jsonrpc::from_value::<Holder>(v.clone())
            .map(|h| h.inner)
            .map_err(|e| e.to_string());
        let theirs = serde_json::from_value::<PlainHolder>(v.clone())
            .map(|h| h.inner)
            .map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{v}");
    }
    assert_eq!(
        jsonrpc::from_value::<Holder>(json!({"inner": [2, []]}))
            .unwrap_err()
            .to_string(),
        "invalid type: sequence, expected struct Point"
    );
}
