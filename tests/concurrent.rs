//! Single-threaded concurrency (`src/concurrent.rs`): `join` and `join_all` run their
//! futures at once and answer in order; a queue hands its items over in arrival order,
//! wakes its consumer, ends once with `last`, and its senders see it gone once dropped.

use mcp_tasks_edge::concurrent::{Inbox, Queue, join, join_all, push};
use mcp_tasks_edge::host::block_on;
use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

/// Ready after `polls` polls, recording in `log` when it starts and ends.
async fn after(polls: u32, name: &str, log: &RefCell<Vec<String>>) -> String {
    log.borrow_mut().push(format!("start {name}"));
    let left = Cell::new(polls);
    poll_fn(|cx| match left.get() {
        0 => Poll::Ready(()),
        n => {
            left.set(n - 1);
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await;
    log.borrow_mut().push(format!("end {name}"));
    name.to_owned()
}

#[test]
fn join_runs_both_at_once_and_answers_both() {
    let log = RefCell::new(Vec::new());
    let (a, b) = block_on(join(after(3, "a", &log), after(1, "b", &log)));
    assert_eq!((a.as_str(), b.as_str()), ("a", "b"));
    assert_eq!(*log.borrow(), ["start a", "start b", "end b", "end a"]);
}

#[test]
fn join_all_answers_in_order_whatever_ends_first() {
    let log = RefCell::new(Vec::new());
    let names = ["slow", "quick", "middle"];
    let polls = [4, 0, 2];
    let all = block_on(join_all(
        names.iter().zip(polls).map(|(n, p)| after(p, n, &log)),
    ));
    assert_eq!(all, names);
    assert_eq!(
        log.borrow()[..3],
        ["start slow", "start quick", "end quick"]
    );
    assert!(block_on(join_all(Vec::<std::future::Ready<u8>>::new())).is_empty());
}

/// Counts its wakes.
struct Counter(AtomicUsize);

impl Wake for Counter {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_queue_hands_items_over_in_order_wakes_its_consumer_and_ends_once() {
    let counter = Arc::new(Counter(AtomicUsize::new(0)));
    let waker = Waker::from(counter.clone());
    let mut cx = Context::from_waker(&waker);
    let queue = RefCell::new(Queue::default());
    assert!(queue.borrow_mut().poll_next(&mut cx).is_pending());
    push(&queue, Some(1), false);
    push(&queue, Some(2), false);
    assert_eq!(
        counter.0.load(Ordering::SeqCst),
        1,
        "the waiting consumer is woken"
    );
    push(&queue, None, true);
    push(&queue, Some(3), false);
    assert!(queue.borrow().is_finished());
    let mut next = || queue.borrow_mut().poll_next(&mut cx);
    assert_eq!(next(), Poll::Ready(Some(1)));
    assert_eq!(next(), Poll::Ready(Some(2)));
    assert_eq!(next(), Poll::Ready(None), "nothing is queued once it ended");
}

#[test]
fn an_inbox_takes_what_its_senders_send_until_it_is_dropped() {
    let inbox = Inbox::default();
    let (a, b) = (inbox.sender(), inbox.sender());
    assert!(a.send("one") && b.send("two"));
    assert_eq!(block_on(inbox.receive()), Some("one"));
    assert_eq!(block_on(inbox.receive()), Some("two"));
    drop(inbox);
    assert!(!a.send("three"), "nobody will take it");
}
