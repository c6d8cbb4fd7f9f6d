//! The TaskObject's rows: the hot record through the instance's mirror of it, the other
//! rows, and a [`Write`] issued as one transaction through the mirror (`Mirror::write`).

use super::TaskRunner;
use crate::cloudflare::bench::{self, TASK};
use crate::objects::task::Write;
use crate::pairs::Pairs;
use worker::Result;

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

    /// Issues `write` as one transaction; the mirror of the hot record follows it.
    pub(super) async fn write(&self, write: Write) -> Result<()> {
        self.hot.write(&self.storage, write).await
    }
}
