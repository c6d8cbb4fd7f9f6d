//! A Durable Object instance's mirror of one storage key: the value as the instance last
//! read or wrote it. A mirror of storage, not a second truth (docs/architecture.md,
//! invariant 4): only the object writes its storage, each write goes through the mirror
//! ([`Mirror::write`]: updated as it is issued, so it is what a read would answer), a
//! failed write forgets it, and a new instance starts without it. The TaskObject mirrors
//! its hot record, the PrincipalObject its ledger, the SessionObject its session, so a
//! warm object answers without reading them again.

use super::bench;
use crate::objects::Write;
use futures_util::future::try_join3;
use js_sys::{Object, Reflect};
use std::cell::RefCell;
use wasm_bindgen::JsValue;
use worker::{Result, ScheduledTime, Storage};

pub(super) struct Mirror {
    key: &'static str,
    /// For the bench counters: the class whose rows a read counts.
    class: &'static str,
    /// `None`: not known yet; `Some(None)`: absent.
    known: RefCell<Option<Option<String>>>,
}

impl Mirror {
    pub(super) fn new(key: &'static str, class: &'static str) -> Self {
        Mirror {
            key,
            class,
            known: RefCell::new(None),
        }
    }

    /// The value: the mirrored one, else read (and mirrored).
    pub(super) async fn get(&self, storage: &Storage) -> Result<Option<String>> {
        let known = self.known.borrow().clone();
        if let Some(value) = known {
            return Ok(value);
        }
        bench::rows_read(self.class, 1);
        let read = super::js_api::storage_get_text(storage, self.key).await?;
        // A write issued while the read was in flight is newer than what it answered.
        Ok(self.known.borrow_mut().get_or_insert(read).clone())
    }

    /// A write of the key (`None`: its deletion) is being issued.
    pub(super) fn wrote(&self, value: Option<String>) {
        *self.known.borrow_mut() = Some(value);
    }

    /// A write failed: what storage holds is unknown again.
    pub(super) fn forget(&self) {
        *self.known.borrow_mut() = None;
    }
}

impl Mirror {
    /// Issues `write` as one transaction: puts, deletes and the alarm together, with no
    /// other await in between, so the runtime coalesces them. The mirror follows it, and
    /// is forgotten if the write fails.
    pub(super) async fn write(&self, storage: &Storage, write: Write) -> Result<()> {
        let written = self.issue(storage, write).await;
        if written.is_err() {
            self.forget();
        }
        written
    }

    async fn issue(&self, storage: &Storage, write: Write) -> Result<()> {
        if write.erase {
            self.wrote(None);
            bench::rows_written(self.class, 1);
            storage.delete_alarm().await?;
            bench::before_delete_all(self.class, storage).await;
            return storage.delete_all().await;
        }
        bench::rows_written(self.class, write.put.len() + write.delete.len());
        let puts = Object::new();
        let putting = !write.put.is_empty();
        for (key, value) in write.put {
            if key == self.key {
                self.wrote(Some(value.clone()));
            }
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
            bench::rows_written(self.class, 1);
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
}
