//! Single-threaded concurrency (wasm has one thread) without an executor's code in the
//! Worker: [`join`] two futures, [`join_all`] of many, one [`until`] another is done, and
//! a queue from several producers to one consumer, in arrival order, with the consumer's
//! waker ([`Queue`], [`Inbox`]).
//! The adapter's listen stream and follower read their sockets' events from an
//! [`Inbox`], and its SSE channel keeps its frames in a [`Queue`], ended by `last`.
//! (`futures_channel`'s channel would add its code to the Worker for each item type;
//! `futures::future::join_all` switches to a `FuturesOrdered` past 30, whose code is in
//! the Worker for each use, several KB, whatever the length.)

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

/// Runs `a` and `b` concurrently: both outputs.
pub async fn join<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (pin!(a), pin!(b));
    let (mut x, mut y) = (None, None);
    poll_fn(|cx| {
        if x.is_none()
            && let Poll::Ready(out) = a.as_mut().poll(cx)
        {
            x = Some(out);
        }
        if y.is_none()
            && let Poll::Ready(out) = b.as_mut().poll(cx)
        {
            y = Some(out);
        }
        match (x.take(), y.take()) {
            (Some(a), Some(b)) => Poll::Ready((a, b)),
            (a, b) => {
                (x, y) = (a, b);
                Poll::Pending
            }
        }
    })
    .await
}

/// Runs `work` until `stop` resolves: its output, or `None` if `stop` came first (`work`
/// is polled first, so it wins when both are ready).
pub async fn until<A: Future>(work: A, stop: impl Future<Output = ()>) -> Option<A::Output> {
    let (mut work, mut stop) = (pin!(work), pin!(stop));
    poll_fn(|cx| {
        if let Poll::Ready(out) = work.as_mut().poll(cx) {
            return Poll::Ready(Some(out));
        }
        stop.as_mut().poll(cx).map(|()| None)
    })
    .await
}

/// Runs `futures` concurrently (the calls of a listen stream's batch of opens, or of a
/// page of tasks: at most a hundred); their outputs in order. Each wake polls those not
/// done yet.
pub async fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut pending: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = pending.iter().map(|_| None).collect();
    poll_fn(|cx| {
        let mut done = true;
        for (future, output) in pending.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => *output = Some(value),
                    Poll::Pending => done = false,
                }
            }
        }
        if done { Poll::Ready(()) } else { Poll::Pending }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

/// The items not taken yet, whether the producers are done, and the consumer's waker.
pub struct Queue<T> {
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
    pub fn push(&mut self, item: Option<T>, last: bool) -> Option<Waker> {
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
    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        match self.items.pop_front() {
            Some(item) => Poll::Ready(Some(item)),
            None if self.finished => Poll::Ready(None),
            None => {
                self.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }
}

/// Pushes to the queue in `cell`, then wakes its consumer.
pub fn push<T>(cell: &RefCell<Queue<T>>, item: Option<T>, last: bool) {
    let waker = cell.borrow_mut().push(item, last);
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// The receiving end of a queue that never ends; senders see it gone once it is dropped.
pub struct Inbox<T>(Rc<RefCell<Queue<T>>>);

impl<T> Default for Inbox<T> {
    fn default() -> Self {
        Inbox(Rc::default())
    }
}

impl<T> Inbox<T> {
    pub fn sender(&self) -> Sender<T> {
        Sender(Rc::downgrade(&self.0))
    }

    /// The next item, when one comes (never `None`: nothing ends an inbox).
    pub async fn receive(&self) -> Option<T> {
        std::future::poll_fn(|cx| self.0.borrow_mut().poll_next(cx)).await
    }
}

/// A sending end.
pub struct Sender<T>(Weak<RefCell<Queue<T>>>);

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender(self.0.clone())
    }
}

impl<T> Sender<T> {
    /// Queues `item`; `false` once the inbox is dropped (nobody will take it).
    pub fn send(&self, item: T) -> bool {
        let Some(queue) = self.0.upgrade() else {
            return false;
        };
        push(&queue, Some(item), false);
        true
    }
}
