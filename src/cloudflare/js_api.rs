//! KV, D1 and Durable Object storage `list` called on the runtime's JavaScript objects,
//! their options built with `Reflect::set` and D1's rows walked into JSON values.
//! `worker`'s helpers for these go through `serde_wasm_bindgen`, whose (de)serializers
//! would be linked into every Worker (docs/architecture.md "What keeps the Worker
//! small"). The error messages are the ones `worker`'s helpers give.

use crate::host::HostError;
use js_sys::{Array, Object, Promise, Reflect};
use serde_json::{Map, Value};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use worker::wasm_bindgen_futures::JsFuture;
use worker::worker_sys::{D1PreparedStatement, D1Result, DurableObjectStorage};

#[wasm_bindgen]
extern "C" {
    /// A KV namespace binding (the Workers KV runtime API; `worker_sys` has none).
    pub(super) type KvNamespace;

    #[wasm_bindgen(method, catch)]
    fn get(this: &KvNamespace, key: &str, options: &Object) -> Result<Promise, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn put(
        this: &KvNamespace,
        key: &str,
        value: &str,
        options: &Object,
    ) -> Result<Promise, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn delete(this: &KvNamespace, key: &str) -> Result<Promise, JsValue>;
}

/// The largest integer a JavaScript number holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

async fn settle(promise: Result<Promise, JsValue>) -> Result<JsValue, JsValue> {
    JsFuture::from(promise?).await
}

/// A plain object holding `fields` (the options of a runtime call).
fn options(fields: &[(&str, JsValue)]) -> Result<Object, JsValue> {
    let object = Object::new();
    for (name, value) in fields {
        Reflect::set(&object, &JsValue::from_str(name), value)?;
    }
    Ok(object)
}

/// `n` as a JavaScript number; `Err` (serde_wasm_bindgen's words) when it would round.
fn js_number(n: &serde_json::Number) -> Result<f64, String> {
    let unsafe_integer = || format!("{n} can't be represented as a JavaScript number");
    if let Some(u) = n.as_u64() {
        return (u <= MAX_SAFE_INTEGER)
            .then_some(u as f64)
            .ok_or_else(unsafe_integer);
    }
    if let Some(i) = n.as_i64() {
        return (i.unsigned_abs() <= MAX_SAFE_INTEGER)
            .then_some(i as f64)
            .ok_or_else(unsafe_integer);
    }
    Ok(n.as_f64().unwrap_or(f64::NAN))
}

/// The KV namespace bound as `binding`, if `env` has an object by that name.
pub(super) fn kv_namespace(env: &worker::Env, binding: &str) -> Option<KvNamespace> {
    let value = Reflect::get(env, &JsValue::from_str(binding)).ok()?;
    value.is_object().then(|| value.unchecked_into())
}

fn kv_error(e: JsValue) -> HostError {
    HostError::Storage(format!("js error: {e:?}"))
}

/// The text stored at `key` (`None`: no such key).
pub(super) async fn kv_get(ns: &KvNamespace, key: &str) -> Result<Option<String>, HostError> {
    let text = options(&[("type", JsValue::from_str("text"))]).map_err(kv_error)?;
    let value = settle(ns.get(key, &text)).await.map_err(kv_error)?;
    Ok(value.as_string())
}

/// Stores `value` as text at `key`, to expire `ttl_seconds` from now when given.
pub(super) async fn kv_put(
    ns: &KvNamespace,
    key: &str,
    value: &str,
    ttl_seconds: Option<u64>,
) -> Result<(), HostError> {
    let ttl = match ttl_seconds {
        Some(ttl) => {
            let seconds = js_number(&ttl.into()).map_err(HostError::Storage)?;
            vec![("expirationTtl", JsValue::from_f64(seconds))]
        }
        None => Vec::new(),
    };
    let options = options(&ttl).map_err(kv_error)?;
    settle(ns.put(key, value, &options))
        .await
        .map(drop)
        .map_err(kv_error)
}

pub(super) async fn kv_delete(ns: &KvNamespace, key: &str) -> Result<(), HostError> {
    settle(ns.delete(key)).await.map(drop).map_err(kv_error)
}

/// A statement parameter as D1 binds it: null, a boolean, a number (only one it holds
/// exactly), a string, an array (of bytes: a BLOB); an object becomes a `Map`, which D1
/// refuses, as it did when `serde_wasm_bindgen` converted it.
pub(super) fn d1_param(value: &Value) -> Result<JsValue, HostError> {
    Ok(match value {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(
            // "Error: …" as when serde_wasm_bindgen's error was shown.
            js_number(n)
                .map_err(|e| HostError::Storage(format!("bad D1 parameter: Error: {e}")))?,
        ),
        Value::String(s) => JsValue::from_str(s),
        Value::Array(items) => {
            let array = Array::new();
            for item in items {
                array.push(&d1_param(item)?);
            }
            array.into()
        }
        Value::Object(fields) => {
            let map = js_sys::Map::new();
            for (name, item) in fields {
                map.set(&JsValue::from_str(name), &d1_param(item)?);
            }
            map.into()
        }
    })
}

fn js_error(e: JsValue) -> HostError {
    HostError::Storage(worker::Error::from(e).to_string())
}

/// The rows of `statement` (D1's `all()`), each a JSON object. (Walked with
/// [`js_value`]: measured smaller than `JSON.stringify` and the JSON parser.)
pub(super) async fn d1_all(
    statement: &D1PreparedStatement,
) -> Result<Vec<Map<String, Value>>, HostError> {
    let result: D1Result = settle(statement.all())
        .await
        .map_err(js_error)?
        .unchecked_into();
    let Some(rows) = result.results().map_err(js_error)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for row in rows.iter() {
        match js_value(&row) {
            Value::Object(fields) => out.push(fields),
            other => {
                return Err(HostError::Storage(format!(
                    "D1 rows are not objects: {other}"
                )));
            }
        }
    }
    Ok(out)
}

/// A JavaScript value as JSON, read as `serde_wasm_bindgen` read it: a safe integer as an
/// integer, other numbers as floats (NaN and infinities as null), arrays and plain objects
/// element by element, anything else (null, undefined) as null.
fn js_value(v: &JsValue) -> Value {
    if let Some(b) = v.as_bool() {
        return Value::Bool(b);
    }
    if let Some(n) = v.as_f64() {
        if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER as f64 {
            return Value::from(n as i64);
        }
        return serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number);
    }
    if let Some(s) = v.as_string() {
        return Value::String(s);
    }
    // `Array.isArray`, not `instanceof`: true of an array from any realm.
    if Array::is_array(v) {
        let mut items = Vec::new();
        for item in v.unchecked_ref::<Array>().iter() {
            items.push(js_value(&item));
        }
        return Value::Array(items);
    }
    if v.is_object() {
        let mut fields = Map::new();
        for entry in Object::entries(v.unchecked_ref()).iter() {
            let pair: Array = entry.unchecked_into();
            if let Some(name) = pair.get(0).as_string() {
                fields.insert(name, js_value(&pair.get(1)));
            }
        }
        return Value::Object(fields);
    }
    Value::Null
}

/// How `worker` shows an error of D1's own (its `Error::D1`).
#[derive(Debug)]
struct D1Error {
    #[allow(dead_code)] // read by the derived Debug only
    cause: JsValue,
}

/// `worker`'s reading of a failed D1 call: D1's own errors (message `D1…`) by their cause.
fn d1_error(e: JsValue) -> HostError {
    match e.dyn_ref::<js_sys::Error>() {
        Some(error) if String::from(error.message()).starts_with("D1") => {
            let error = D1Error {
                cause: error.cause(),
            };
            HostError::Storage(format!("D1: {error:#?}"))
        }
        _ => js_error(e),
    }
}

/// Runs `statement` (D1's `run()`); how many rows it changed (0 when D1 does not say).
pub(super) async fn d1_run(statement: &D1PreparedStatement) -> Result<u64, HostError> {
    let promise = statement.run().map_err(js_error)?;
    let result: D1Result = JsFuture::from(promise)
        .await
        .map_err(d1_error)?
        .unchecked_into();
    let Ok(meta) = result.meta() else {
        return Ok(0);
    };
    let changes = Reflect::get(&meta, &JsValue::from_str("changes")).map_err(js_error)?;
    Ok(changes.as_f64().map_or(0, |n| n as u64))
}

/// The Durable Object storage's `list(options)`: entries whose key starts with `prefix`,
/// descending when `reverse`, at most `limit`, before the key `end` when given.
pub(super) async fn storage_list(
    storage: &DurableObjectStorage,
    prefix: &str,
    reverse: bool,
    limit: Option<usize>,
    end: Option<&str>,
) -> worker::Result<js_sys::Map> {
    let mut fields = vec![
        ("prefix", JsValue::from_str(prefix)),
        ("reverse", JsValue::from_bool(reverse)),
    ];
    if let Some(limit) = limit {
        fields.push(("limit", JsValue::from_f64(limit as f64)));
    }
    if let Some(end) = end {
        fields.push(("end", JsValue::from_str(end)));
    }
    let listed = settle(storage.list_with_options(options(&fields)?)).await?;
    Ok(listed.dyn_into::<js_sys::Map>()?)
}

/// The value stored at `key` (Durable Object storage; `undefined` when absent), read as
/// `get([key])` answers it: `worker`'s `Storage::get` decodes through `serde_wasm_bindgen`.
async fn storage_get(storage: &worker::Storage, key: &str) -> worker::Result<JsValue> {
    let map = storage.get_multiple(vec![key]).await?;
    Ok(map.get(&JsValue::from_str(key)))
}

fn not_stored_as(key: &str, what: &str) -> worker::Error {
    worker::Error::RustError(format!("the stored {key} is not {what}"))
}

/// The strings of the array stored at `key`, added to `into` (nothing when absent).
pub(super) async fn storage_get_strings(
    storage: &worker::Storage,
    key: &str,
    into: &mut impl Extend<String>,
) -> worker::Result<()> {
    let value = storage_get(storage, key).await?;
    if value.is_undefined() {
        return Ok(());
    }
    let array = value
        .dyn_into::<Array>()
        .map_err(|_| not_stored_as(key, "an array of strings"))?;
    for item in array.iter() {
        let text = item
            .as_string()
            .ok_or_else(|| not_stored_as(key, "an array of strings"))?;
        into.extend([text]);
    }
    Ok(())
}

/// Stores `items` at `key` as an array of strings.
pub(super) async fn storage_put_strings<'a>(
    storage: &worker::Storage,
    key: &str,
    items: impl IntoIterator<Item = &'a String>,
) -> worker::Result<()> {
    let array = Array::new();
    for item in items {
        array.push(&JsValue::from_str(item));
    }
    storage.put_raw(key, array).await
}
