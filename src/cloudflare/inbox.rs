//! A queue from several tasks to one: the listen stream's socket readers send their
//! events, the stream takes them in arrival order. (`futures_channel`'s channel would add
//! its code to the Worker for the event type.)

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};
use std::task::{Poll, Waker};

struct Queue<T> {
    items: VecDeque<T>,
    waker: Option<Waker>,
}

/// The receiving end; senders see the queue gone once it is dropped.
pub(crate) struct Inbox<T>(Rc<RefCell<Queue<T>>>);

impl<T> Default for Inbox<T> {
    fn default() -> Self {
        Inbox(Rc::new(RefCell::new(Queue {
            items: VecDeque::new(),
            waker: None,
        })))
    }
}

impl<T> Inbox<T> {
    pub(crate) fn sender(&self) -> Sender<T> {
        Sender(Rc::downgrade(&self.0))
    }

    /// The next item, when one comes.
    pub(crate) async fn receive(&self) -> T {
        std::future::poll_fn(|cx| {
            let mut queue = self.0.borrow_mut();
            match queue.items.pop_front() {
                Some(item) => Poll::Ready(item),
                None => {
                    queue.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await
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
        let waker = {
            let mut queue = queue.borrow_mut();
            queue.items.push_back(item);
            queue.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        true
    }
}
