//! A Durable Object instance's mirror of one storage key: the value as the instance last
//! read or wrote it. A mirror of storage, not a second truth (docs/architecture.md,
//! invariant 4): only the object writes its storage, each write updates the mirror as it
//! is issued (so it is what a read would answer), a failed write forgets it, and a new
//! instance starts without it. The TaskObject mirrors its hot record, the PrincipalObject
//! its ledger, so a warm object answers without reading them again.

use super::bench;
use std::cell::RefCell;
use worker::{Result, Storage};

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
