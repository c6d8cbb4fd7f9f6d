//! A Durable Object instance's mirror of one storage key (`objects::mirror`, whose rules
//! these follow) on the object's storage: the key read with `get`, a [`Write`] issued as
//! one transaction, each in one crossing of the wasm boundary and one awaited promise
//! (wire.js; `worker`'s `Storage` takes a crossing per key, per call and per option, and
//! a promise per call). The TaskObject mirrors its hot record, the PrincipalObject its ledger,
//! the SessionObject its session, the UpstreamObject its record.

use super::bench;
use crate::objects::Write;
use crate::objects::mirror;
use js_sys::Promise;
use wasm_bindgen::prelude::*;
use worker::wasm_bindgen_futures::JsFuture;
use worker::worker_sys::DurableObjectStorage;
use worker::{Result, Storage};

#[wasm_bindgen(module = "/src/cloudflare/wire.js")]
extern "C" {
    /// `storage.get(key)`, in one crossing (wire.js).
    #[wasm_bindgen(catch, js_name = read)]
    fn store_read(
        storage: &DurableObjectStorage,
        key: &str,
    ) -> std::result::Result<Promise, JsValue>;

    /// The puts ([key, value, ...]), deletes and alarm of one write, issued together in
    /// one crossing (wire.js).
    #[wasm_bindgen(catch, js_name = write)]
    fn store_write(
        storage: &DurableObjectStorage,
        puts: Vec<String>,
        deletes: Vec<String>,
        at: Option<f64>,
        clear: bool,
    ) -> std::result::Result<Promise, JsValue>;
}

pub(super) struct Mirror {
    mirror: mirror::Mirror,
    /// For the bench counters: the class whose rows a read counts.
    class: &'static str,
}

impl Mirror {
    pub(super) fn new(key: &'static str, class: &'static str) -> Self {
        Mirror {
            mirror: mirror::Mirror::new(key),
            class,
        }
    }

    /// The value: the mirrored one, else read (and mirrored).
    pub(super) async fn get(&self, storage: &Storage) -> Result<Option<String>> {
        let key = self.mirror.key();
        let read = async {
            bench::rows_read(self.class, 1);
            let value = JsFuture::from(store_read(storage.as_raw(), key)?).await?;
            match value.as_string() {
                Some(text) => Ok(Some(text)),
                None if value.is_undefined() => Ok(None),
                None => Err(worker::Error::RustError(format!(
                    "the stored {key} is not a string"
                ))),
            }
        };
        self.mirror.get(read).await
    }

    /// Issues `write` as one transaction: puts, deletes and the alarm together, with no
    /// other await in between, so the runtime coalesces them. The mirror follows it.
    pub(super) async fn write(&self, storage: &Storage, write: Write) -> Result<()> {
        let issue = |write| issue(storage, self.class, write);
        self.mirror.write(write, issue).await
    }
}

async fn issue(storage: &Storage, class: &'static str, write: Write) -> Result<()> {
    if write.erase {
        bench::rows_written(class, 1);
        storage.delete_alarm().await?;
        bench::before_delete_all(class, storage).await;
        return storage.delete_all().await;
    }
    bench::rows_written(class, write.put.len() + write.delete.len());
    if write.alarm.is_some() {
        bench::rows_written(class, 1);
    }
    let puts: Vec<String> = write.put.into_iter().flat_map(|(k, v)| [k, v]).collect();
    let (at, clear) = match write.alarm {
        None => (None, false),
        Some(None) => (None, true),
        Some(Some(at_ms)) => (Some(at_ms as f64), false),
    };
    let issued = store_write(storage.as_raw(), puts, write.delete, at, clear)?;
    JsFuture::from(issued).await.map(drop).map_err(Into::into)
}
