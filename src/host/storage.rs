//! Typed helpers over a [`Platform`]'s KV and D1 bindings.

use super::{HostError, Platform};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A KV namespace: `host.kv("CACHE").get("key").await?`.
pub struct Kv<'a> {
    platform: &'a dyn Platform,
    binding: &'a str,
}

impl<'a> Kv<'a> {
    pub(super) fn new(platform: &'a dyn Platform, binding: &'a str) -> Self {
        Kv { platform, binding }
    }

    pub async fn get(&self, key: &str) -> Result<Option<String>, HostError> {
        self.platform.kv_get(self.binding, key).await
    }

    /// The value at `key` decoded from JSON.
    pub async fn get_json<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, HostError> {
        match self.get(key).await? {
            None => Ok(None),
            Some(text) => crate::jsonrpc::read(text.as_bytes())
                .map(Some)
                .map_err(|e| {
                    HostError::Decode(format!(
                        "KV {}/{key} is not the expected JSON: {e}",
                        self.binding
                    ))
                }),
        }
    }

    pub async fn put(&self, key: &str, value: impl Into<String>) -> Result<(), HostError> {
        self.platform
            .kv_put(self.binding, key, value.into(), None)
            .await
    }

    /// Stores `value` as JSON.
    pub async fn put_json<T: Serialize + ?Sized>(
        &self,
        key: &str,
        value: &T,
    ) -> Result<(), HostError> {
        let text = serde_json::to_string(value).map_err(|e| HostError::Decode(e.to_string()))?;
        self.put(key, text).await
    }

    /// Stores `value`; KV forgets it after `ttl_seconds` (KV's minimum is 60).
    pub async fn put_with_ttl(
        &self,
        key: &str,
        value: impl Into<String>,
        ttl_seconds: u64,
    ) -> Result<(), HostError> {
        self.platform
            .kv_put(self.binding, key, value.into(), Some(ttl_seconds))
            .await
    }

    pub async fn delete(&self, key: &str) -> Result<(), HostError> {
        self.platform.kv_delete(self.binding, key).await
    }
}

/// A D1 database: `host.d1("DB").query("SELECT * FROM t WHERE id = ?1", vec![json!(7)]).await?`.
pub struct D1<'a> {
    platform: &'a dyn Platform,
    binding: &'a str,
}

impl<'a> D1<'a> {
    pub(super) fn new(platform: &'a dyn Platform, binding: &'a str) -> Self {
        D1 { platform, binding }
    }

    /// The rows of a statement, as JSON objects.
    pub async fn query(
        &self,
        sql: &str,
        params: Vec<Value>,
    ) -> Result<Vec<Map<String, Value>>, HostError> {
        self.platform.d1_query(self.binding, sql, params).await
    }

    /// The rows decoded into `T`.
    pub async fn query_as<T: DeserializeOwned>(
        &self,
        sql: &str,
        params: Vec<Value>,
    ) -> Result<Vec<T>, HostError> {
        self.query(sql, params)
            .await?
            .into_iter()
            .map(|row| {
                crate::jsonrpc::from_value(Value::Object(row)).map_err(|e| {
                    HostError::Decode(format!("a row of D1 {} does not fit: {e}", self.binding))
                })
            })
            .collect()
    }

    /// Runs a statement; returns how many rows it changed.
    pub async fn execute(&self, sql: &str, params: Vec<Value>) -> Result<u64, HostError> {
        self.platform.d1_execute(self.binding, sql, params).await
    }
}
