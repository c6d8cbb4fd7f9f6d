//! The TaskObject's storage: reading the task (through the instance's mirror of its hot
//! record) and issuing a write of [`Effects`] as one transaction.

use super::TaskRunner;
use crate::cloudflare::bench::{self, TASK};
use crate::pairs::Pairs;
use crate::tasks::layout::{self, Need, Stored};
use crate::tasks::object::Effects;
use futures_util::future::try_join3;
use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;
use worker::{Result, ScheduledTime};

fn rust_error(e: impl std::fmt::Display) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

impl TaskRunner {
    /// Reads the task: the hot record, then the parts `need` names that it does not hold
    /// (one more read, none for a small task).
    pub(super) async fn load(&self, need: Need) -> Result<Option<Stored>> {
        let storage = &self.storage;
        let Some(hot) = self.hot.get(storage).await? else {
            return Ok(None);
        };
        let mut stored = layout::decode_hot(&hot).map_err(rust_error)?;
        let keys = layout::keys_for(&stored, need);
        let mut values = Pairs::new();
        if !keys.is_empty() {
            bench::rows_read(TASK, keys.len());
            let map = storage.get_multiple(keys).await?;
            for entry in map.entries() {
                let pair: js_sys::Array = entry?.into();
                if let (Some(key), Some(value)) = (pair.get(0).as_string(), pair.get(1).as_string())
                {
                    values.insert(key, value);
                }
            }
        }
        // Always: what the hot record holds inline (timeline entries) is filled in too.
        layout::fill(&mut stored, need, &values).map_err(rust_error)?;
        Ok(Some(stored))
    }

    /// Issues the write of `effects` (see [`Self::apply`]); the mirror of the hot record
    /// follows it, and is forgotten if the write fails.
    pub(super) async fn write(&self, before: Option<&Stored>, effects: Effects) -> Result<()> {
        let written = self.issue(before, effects).await;
        if written.is_err() {
            self.hot.forget();
        }
        written
    }

    async fn issue(&self, before: Option<&Stored>, effects: Effects) -> Result<()> {
        let storage = &self.storage;
        if effects.delete_all {
            self.hot.wrote(None);
            bench::rows_written(TASK, 1);
            storage.delete_alarm().await?;
            bench::before_delete_all(TASK, storage).await;
            return storage.delete_all().await;
        }
        let mut puts = Object::new();
        let mut deletes = Vec::new();
        if let Some(record) = &effects.store {
            let (parts, dirty) = effects.dirty.clone().over(before, record);
            let (writes, _) = layout::encode(record, &parts, &dirty);
            bench::rows_written(TASK, writes.put.len() + writes.delete.len());
            puts = Object::new();
            for (key, value) in writes.put {
                if key == layout::HOT_KEY {
                    self.hot.wrote(Some(value.clone()));
                }
                Reflect::set(&puts, &JsValue::from_str(&key), &JsValue::from_str(&value))?;
            }
            deletes = writes.delete;
        }
        let put = async {
            if effects.store.is_some() {
                storage.put_multiple_raw(puts).await
            } else {
                Ok(())
            }
        };
        let delete = async {
            if deletes.is_empty() {
                Ok(0)
            } else {
                storage.delete_multiple(deletes).await
            }
        };
        if effects.alarm.is_some() {
            bench::rows_written(TASK, 1);
        }
        let alarm = async {
            match effects.alarm {
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
