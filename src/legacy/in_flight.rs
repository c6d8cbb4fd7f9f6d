//! A session's tool calls in flight that `notifications/cancelled` can reach, by request
//! id (2025-11-25, basic/utilities/cancellation). Bounded: a client with more calls in
//! flight than [`CALLS_IN_FLIGHT`] gets no cancel for the newest (a cancellation MAY be
//! ignored). Each call is forgotten when its [`Forget`] drops (answered, or its future
//! dropped). `R` is what cancels a call on the platform (a promise's resolver).

use crate::jsonrpc::RequestId;
use std::cell::RefCell;
use std::rc::Rc;

/// How many calls in flight a session keeps.
pub const CALLS_IN_FLIGHT: usize = 64;

struct Call<R> {
    /// Which track this is: two calls may carry the same id (a client's mistake), and
    /// one answered must not forget the other.
    serial: u64,
    id: RequestId,
    cancel: R,
}

struct Calls<R> {
    calls: Vec<Call<R>>,
    serial: u64,
}

pub struct InFlight<R>(Rc<RefCell<Calls<R>>>);

impl<R> Default for InFlight<R> {
    fn default() -> Self {
        InFlight(Rc::new(RefCell::new(Calls {
            calls: Vec::new(),
            serial: 0,
        })))
    }
}

impl<R> InFlight<R> {
    /// Tracks call `id`, cancelled with `cancel`: `None` past the bound (nobody can cancel
    /// it by id, and `cancel` is dropped).
    pub fn track(&self, id: &RequestId, cancel: R) -> Option<Forget<R>> {
        let mut calls = self.0.borrow_mut();
        if calls.calls.len() >= CALLS_IN_FLIGHT {
            return None;
        }
        calls.serial += 1;
        let serial = calls.serial;
        let id = id.clone();
        calls.calls.push(Call { serial, id, cancel });
        Some(Forget {
            calls: InFlight(self.0.clone()),
            serial,
        })
    }

    /// The client cancelled call `id`: how to cancel it, once (the oldest call of that id;
    /// `None` for an unknown or answered call, ignored as the spec allows). `1` and `"1"`
    /// are different requests: `RequestId` keeps the kind.
    pub fn cancel(&self, id: &RequestId) -> Option<R> {
        let mut calls = self.0.borrow_mut();
        let at = calls.calls.iter().position(|call| call.id == *id)?;
        Some(calls.calls.remove(at).cancel)
    }

    /// How many calls are tracked.
    pub fn len(&self) -> usize {
        self.0.borrow().calls.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Forgets its call when dropped.
pub struct Forget<R> {
    calls: InFlight<R>,
    serial: u64,
}

impl<R> Drop for Forget<R> {
    fn drop(&mut self) {
        let serial = self.serial;
        let mut calls = self.calls.0.borrow_mut();
        calls.calls.retain(|call| call.serial != serial);
    }
}
