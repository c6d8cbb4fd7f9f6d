//! A queue from several producers to one consumer, in arrival order, with the consumer's
//! waker: [`Queue`]. The listen stream's socket readers send their events to it through an
//! [`Inbox`]; the SSE channel (`super::sse`) keeps its frames in one, ended by `last`.
//! (`futures_channel`'s channel would add its code to the Worker for each item type.)

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

/// The items not taken yet, whether the producers are done, and the consumer's waker.
pub(crate) struct Queue<T> {
    items: VecDeque<T>,
    finished: bool,
    waker: Option<Waker>,
}

impl<T> Default for Queue<T> {
    fn default() -> Self {
        Queue {
            items: VecDeque::new(),
            finished: false,
            waker: None,
        }
    }
}

impl<T> Queue<T> {
    /// Queues `item` (if any); `last` ends the queue. Nothing is queued once it ended.
    /// Returns the consumer's waker, to wake once the queue is no longer borrowed.
    pub(crate) fn push(&mut self, item: Option<T>, last: bool) -> Option<Waker> {
        if self.finished {
            return None;
        }
        if let Some(item) = item {
            self.items.push_back(item);
        }
        self.finished = last;
        self.waker.take()
    }

    /// The next item; `None` once the queue ended and is empty; pending (the waker kept)
    /// until then.
    pub(crate) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        match self.items.pop_front() {
            Some(item) => Poll::Ready(Some(item)),
            None if self.finished => Poll::Ready(None),
            None => {
                self.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.finished
    }
}

/// Pushes to the queue in `cell`, then wakes its consumer.
pub(crate) fn push<T>(cell: &RefCell<Queue<T>>, item: Option<T>, last: bool) {
    let waker = cell.borrow_mut().push(item, last);
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// The receiving end of a queue that never ends; senders see it gone once it is dropped.
pub(crate) struct Inbox<T>(Rc<RefCell<Queue<T>>>);

impl<T> Default for Inbox<T> {
    fn default() -> Self {
        Inbox(Rc::default())
    }
}

impl<T> Inbox<T> {
    pub(crate) fn sender(&self) -> Sender<T> {
        Sender(Rc::downgrade(&self.0))
    }

    /// The next item, when one comes (never `None`: nothing ends an inbox).
    pub(crate) async fn receive(&self) -> Option<T> {
        std::future::poll_fn(|cx| self.0.borrow_mut().poll_next(cx)).await
    }
}

/// A sending end.
pub(crate) struct Sender<T>(Weak<RefCell<Queue<T>>>);

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender(self.0.clone())
    }
}

impl<T> Sender<T> {
    /// Queues `item`; `false` once the inbox is dropped (nobody will take it).
    pub(crate) fn send(&self, item: T) -> bool {
        let Some(queue) = self.0.upgrade() else {
            return false;
        };
        push(&queue, Some(item), false);
        true
    }
}
