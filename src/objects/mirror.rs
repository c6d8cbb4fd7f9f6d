//! An object instance's mirror of one storage key: the value as the instance last read or
//! wrote it, so a warm object answers without reading it again. A mirror of storage, not a
//! second truth (docs/architecture.md, invariant 4): only the object writes its storage,
//! each write goes through the mirror ([`Mirror::write`]: followed as it is issued, so the
//! mirror is what a read would answer), a failed write forgets it, and a new instance
//! starts without it. The platform reads and issues; these rules are the same for every
//! object that mirrors a key (the task's hot record, the principal's ledger, a session).

use super::Write;
use std::cell::RefCell;

pub struct Mirror {
    key: &'static str,
    /// `None`: not known yet; `Some(None)`: absent.
    known: RefCell<Option<Option<String>>>,
}

impl Mirror {
    pub fn new(key: &'static str) -> Mirror {
        Mirror {
            key,
            known: RefCell::new(None),
        }
    }

    pub fn key(&self) -> &'static str {
        self.key
    }

    /// The value: the mirrored one, else what `read` answers (then mirrored, unless a
    /// write was issued while it was in flight: that write is newer than the read).
    pub async fn get<E>(
        &self,
        read: impl Future<Output = Result<Option<String>, E>>,
    ) -> Result<Option<String>, E> {
        if let Some(value) = self.known.borrow().clone() {
            return Ok(value);
        }
        let read = read.await?;
        Ok(self.known.borrow_mut().get_or_insert(read).clone())
    }

    /// Issues `write` with `issue`, the mirror following it from the moment it is issued;
    /// if it fails, what storage holds is unknown again.
    pub async fn write<E, F: Future<Output = Result<(), E>>>(
        &self,
        write: Write,
        issue: impl FnOnce(Write) -> F,
    ) -> Result<(), E> {
        self.follow(&write);
        let written = issue(write).await;
        if written.is_err() {
            *self.known.borrow_mut() = None;
        }
        written
    }

    /// What storage holds of the key once `write` is applied.
    fn follow(&self, write: &Write) {
        let mut known = self.known.borrow_mut();
        if write.erase || write.delete.iter().any(|key| key == self.key) {
            *known = Some(None);
        }
        if let Some((_, value)) = write.put.iter().rev().find(|(key, _)| key == self.key) {
            *known = Some(Some(value.clone()));
        }
    }
}
