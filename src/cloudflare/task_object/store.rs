//! The TaskObject's rows: the hot record through the instance's mirror of it, the other
//! rows, and a [`Write`] issued as one transaction (puts, deletes and the alarm together,
//! with no other await in between, so the runtime coalesces them).

use super::TaskRunner;
use crate::cloudflare::bench::{self, TASK};
use crate::objects::task::Write;
use crate::pairs::Pairs;
use crate::tasks::layout;
use futures_util::future::try_join3;
use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;
use worker::{Result, ScheduledTime};

impl TaskRunner {
    /// The hot record's row, from the mirror once known.
    pub(super) async fn hot_row(&self) -> Result<Option<String>> {
        self.hot.get(&self.storage).await
    }

    /// The rows of `keys` that exist.
    pub(super) async fn rows(&self, keys: Vec<String>) -> Result<Pairs<String, String>> {
        bench::rows_read(TASK, keys.len());
        let map = self.storage.get_multiple(keys).await?;
        let mut values = Pairs::new();
        for entry in map.entries() {
            let pair: js_sys::Array = entry?.into();
            if let (Some(key), Some(value)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
                values.insert(key, value);
            }
        }
        Ok(values)
    }

    /// Issues `write`; the mirror of the hot record follows it, and is forgotten if the
    /// write fails.
    pub(super) async fn write(&self, write: Write) -> Result<()> {
        let written = self.issue(write).await;
        if written.is_err() {
            self.hot.forget();
        }
        written
    }

    async fn issue(&self, write: Write) -> Result<()> {
        let storage = &self.storage;
        if write.erase {
            self.hot.wrote(None);
            bench::rows_written(TASK, 1);
            storage.delete_alarm().await?;
            bench::before_delete_all(TASK, storage).await;
            return storage.delete_all().await;
        }
        bench::rows_written(TASK, write.put.len() + write.delete.len());
        let puts = Object::new();
        let putting = !write.put.is_empty();
        for (key, value) in write.put {
            if key == layout::HOT_KEY {
                self.hot.wrote(Some(value.clone()));
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
            bench::rows_written(TASK, 1);
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
