//! A Durable Object instance's mirror of one storage key (`objects::mirror`, whose rules
//! these follow) on the object's storage: the key read with `get`, a [`Write`] issued as
//! one transaction. The TaskObject mirrors its hot record, the PrincipalObject its ledger,
//! the SessionObject its session, the UpstreamObject its record.

use super::bench;
use crate::objects::Write;
use crate::objects::mirror;
use futures_util::future::try_join3;
use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;
use worker::{Result, ScheduledTime, Storage};

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
            super::js_api::storage_get_text(storage, key).await
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
    let puts = Object::new();
    let putting = !write.put.is_empty();
    for (key, value) in write.put {
        Reflect::set(&puts, &JsValue::from_str(&key), &JsValue::from_str(&value))?;
    }
    let put = async {
        if putting {
            storage.put_multiple_raw(puts).await
        } else {
            Ok(())
        }
    };
    let delete = async {
        if write.delete.is_empty() {
            Ok(0)
        } else {
            storage.delete_multiple(write.delete).await
        }
    };
    if write.alarm.is_some() {
        bench::rows_written(class, 1);
    }
    let alarm = async {
        match write.alarm {
            None => Ok(()),
            Some(None) => storage.delete_alarm().await,
            Some(Some(at_ms)) => {
                let at = js_sys::Date::new(&JsValue::from_f64(at_ms as f64));
                storage.set_alarm(ScheduledTime::new(at)).await
            }
        }
    };
    try_join3(put, delete, alarm).await.map(drop)
}
