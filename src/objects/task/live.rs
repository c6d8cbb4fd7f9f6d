//! A step that reports while it runs: the task object's runner drives the step and, in
//! between, what it reports (the decisions are `tasks::live`'s):
//!
//! ```text
//! step reports progress    ─▶ the task's message and numbers, written at most once per
//!                             PROGRESS_WRITE_MS (a step shorter than that writes none; the
//!                             latest report is always written, at the latest then)
//! step asks (ask_now)      ─▶ the task's input requests (input_required), written; the step
//!                             waits
//! a request wrote the task ─▶ answered? the answers go to the step; ended (a cancel)? the
//!   (Changed)                 step is dropped, and with it whatever it held open
//! ```
//!
//! The step is paused while an event is applied (it is simply not polled), so no write is
//! ever abandoned half-way. Single-threaded: the queue and the answer slot are `Rc`s.

use super::{RunError, Runtime, TaskPlatform, apply, load};
use crate::host::BoxFuture;
use crate::tasks::layout::Need;
use crate::tasks::live::{self, Outcome};
use crate::tools::{Progress, Report, Step, ToolError};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::rc::Rc;
use std::task::{Poll, Waker};

/// Progress is written to the task at most this often while a step runs.
pub const PROGRESS_WRITE_MS: u64 = 1_000;

type Answers = Result<Map<String, Value>, ToolError>;

/// What reaches the runner while a step runs.
pub enum Event {
    Progress(Report),
    Ask {
        requests: Map<String, Value>,
        reply: Slot,
    },
    /// A request wrote the task (answers, a cancel): read it again.
    Changed,
}

#[derive(Default)]
struct Queue {
    events: VecDeque<Event>,
    waker: Option<Waker>,
}

/// Where events are sent: the step's sinks, and the requests of the same instance.
#[derive(Clone, Default)]
pub struct Sender(Rc<RefCell<Queue>>);

impl Sender {
    /// Queues `event`, bounded: a report replaces one queued just before it (only the
    /// latest is ever written), and a change already queued stands for another (the task
    /// is read again either way). A step that reports in a loop without yielding, or a
    /// burst of requests, queues a few events, not one each.
    pub fn send(&self, event: Event) {
        let mut queue = self.0.borrow_mut();
        let events = &mut queue.events;
        match event {
            Event::Changed if events.iter().any(|e| matches!(e, Event::Changed)) => {}
            Event::Progress(_) if matches!(events.back(), Some(Event::Progress(_))) => {
                if let Some(last) = events.back_mut() {
                    *last = event;
                }
            }
            event => events.push_back(event),
        }
        if let Some(waker) = queue.waker.take() {
            waker.wake();
        }
    }

    /// How many events wait to be taken.
    pub fn queued(&self) -> usize {
        self.0.borrow().events.len()
    }

    /// A step's sinks: its progress reports and `Call::ask_now` come to this runner.
    pub fn sinks(&self) -> Progress {
        let reports = self.clone();
        let asks = self.clone();
        let ask = move |requests: Map<String, Value>| -> BoxFuture<'static, Answers> {
            let reply = Slot::default();
            asks.send(Event::Ask {
                requests,
                reply: reply.clone(),
            });
            Box::pin(reply.take())
        };
        Progress::to(move |report| reports.send(Event::Progress(report.clone())))
            .asking_to(Rc::new(ask))
    }

    fn next(&self) -> impl Future<Output = Event> + '_ {
        poll_fn(|cx| {
            let mut queue = self.0.borrow_mut();
            match queue.events.pop_front() {
                Some(event) => Poll::Ready(event),
                None => {
                    queue.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
    }
}

#[derive(Default)]
struct SlotState {
    value: Option<Answers>,
    waker: Option<Waker>,
}

/// The answer to one question asked mid-step.
#[derive(Clone, Default)]
pub struct Slot(Rc<RefCell<SlotState>>);

impl Slot {
    fn put(&self, answers: Answers) {
        let mut state = self.0.borrow_mut();
        state.value = Some(answers);
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }

    fn take(self) -> impl Future<Output = Answers> {
        poll_fn(move |cx| {
            let mut state = self.0.borrow_mut();
            match state.value.take() {
                Some(answers) => Poll::Ready(answers),
                None => {
                    state.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
    }
}

enum Next {
    Done(Step),
    Event(Event),
    Flush,
}

/// Runs `step` (attempt `attempt`) to its end, applying what it reports meanwhile:
/// `Ok(None)` when the attempt stopped holding the task (a cancel won) and the step was
/// dropped.
pub async fn drive<P: TaskPlatform>(
    p: &mut P,
    rt: Runtime<'_>,
    attempt: u32,
    step: impl Future<Output = Step>,
    events: &Sender,
) -> Result<Option<Step>, RunError> {
    let host = p.host();
    let mut step = pin!(step);
    let mut last_write = p.now_ms();
    let mut pending: Option<Report> = None;
    // The keys the step waits on, and where their answers go.
    let mut waiting: Option<(Vec<String>, Slot)> = None;
    let mut timer: Option<BoxFuture<'static, ()>> = None;
    loop {
        let next = {
            let mut receive = pin!(events.next());
            poll_fn(|cx| {
                if let Poll::Ready(done) = step.as_mut().poll(cx) {
                    return Poll::Ready(Next::Done(done));
                }
                if let Poll::Ready(event) = receive.as_mut().poll(cx) {
                    return Poll::Ready(Next::Event(event));
                }
                if let Some(t) = timer.as_mut()
                    && t.as_mut().poll(cx).is_ready()
                {
                    return Poll::Ready(Next::Flush);
                }
                Poll::Pending
            })
            .await
        };
        let now = p.now_ms();
        let mut asking = None;
        let report;
        let event = match next {
            Next::Done(done) => return Ok(Some(done)),
            Next::Event(Event::Progress(latest)) => {
                let due = last_write.saturating_add(PROGRESS_WRITE_MS);
                if now < due {
                    pending = Some(latest);
                    if timer.is_none() {
                        let host = host.clone();
                        timer = Some(Box::pin(async move { host.sleep(due - now).await }));
                    }
                    continue;
                }
                timer = None;
                pending = None;
                last_write = now;
                report = latest;
                live::Event::Report(&report)
            }
            Next::Flush => {
                timer = None;
                last_write = now;
                match pending.take() {
                    Some(latest) => {
                        report = latest;
                        live::Event::Report(&report)
                    }
                    None => continue,
                }
            }
            Next::Event(Event::Ask { requests, reply }) => {
                // The question supersedes a report not yet written.
                pending = None;
                asking = Some(reply);
                live::Event::Ask(requests)
            }
            Next::Event(Event::Changed) => live::Event::Changed,
        };
        // Answers may be stored apart from the hot record.
        let need = match (&event, &waiting) {
            (live::Event::Changed, Some(_)) => Need::Step,
            _ => Need::Hot,
        };
        let current = load(p, need).await?;
        let record = current.as_ref().map(|s| s.record.clone());
        let keys = waiting.as_ref().map(|(keys, _)| keys.as_slice());
        let (effects, outcome) =
            live::plan(record, attempt, event, keys, now).map_err(RunError::Refused)?;
        if let Some(effects) = effects {
            apply(p, rt, current.as_ref(), effects, None).await?;
        }
        match outcome {
            Outcome::Nothing => {}
            Outcome::Asked(keys) => waiting = asking.map(|reply| (keys, reply)),
            Outcome::Refused(error) => {
                if let Some(reply) = asking {
                    reply.put(Err(error));
                }
            }
            Outcome::Answered(answers) => {
                if let Some((_, reply)) = waiting.take() {
                    reply.put(Ok(answers));
                }
            }
            Outcome::Gone => return Ok(None),
        }
    }
}
