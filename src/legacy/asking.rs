//! Server→client requests of a 2025-11-25 session, decided here on any platform: a step's
//! input requests go out on the call's response stream as JSON-RPC requests, and the
//! client's answers come back as POSTs to the same session object, which hands each to
//! the ask waiting for it ([`Pending::deliver`]). What the platform gives is [`Asking`]:
//! a fresh id, the stream, and a timer.
//!
//! ```text
//! ask(requests)     ─▶ each: an id (128 random bits, so nobody answers in the owner's
//!                      place by guessing one), tagged with its task (tasks/result), sent
//! POST {"id": …}    ─▶ deliver: the waiting ask takes it; nothing waits? given back
//!                      (an answer to a question sent on a GET stream, or a late one)
//! answers, in turn  ─▶ all results: the answers, keyed as asked; the first error answer,
//!                      or ANSWER_TIMEOUT_MS without one: the ask fails with it
//! ```
//!
//! Answers are taken only from the session's principal (`legacy::plan`).

use super::tasks::tag_related;
use crate::error::McpError;
use crate::host::BoxFuture;
use crate::jsonrpc::ErrorObject;
use crate::server::call::Asker;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::{Poll, Waker};

/// How long a step waits for the client to answer a server→client request.
pub const ANSWER_TIMEOUT_MS: u64 = 600_000;

/// A client's answer to one request: its `result`, or its `error`.
pub type Answer = Result<Value, ErrorObject>;

/// What the session object gives an ask: ids, the response stream, a timer.
pub trait Asking {
    /// A fresh request id (128 random bits).
    fn new_id(&self) -> Result<String, McpError>;
    /// Sends one JSON-RPC message on the call's response stream.
    fn send(&self, message: &[u8]);
    /// Resolves after `ms`.
    fn sleep(&self, ms: u64) -> BoxFuture<'static, ()>;
}

/// An answer slot: the client's answer and the waiting ask's waker.
type Slot = Rc<RefCell<(Option<Answer>, Option<Waker>)>>;

/// Requests awaiting the client's answer, by id (memory: they belong to response streams
/// this instance is serving). Bounded by the asks waiting on them, each removed when
/// answered or timed out: a few, so a list searched in turn (a `BTreeMap` of its own
/// would add its whole B-tree code to the Worker).
#[derive(Clone, Default)]
pub struct Pending(Rc<RefCell<Vec<(String, Slot)>>>);

impl Pending {
    fn slot(&self, request_id: &str) -> Option<Slot> {
        let pending = self.0.borrow();
        let (_, slot) = pending.iter().find(|(id, _)| id == request_id)?;
        Some(slot.clone())
    }

    fn remove(&self, request_id: &str) {
        self.0.borrow_mut().retain(|(id, _)| id != request_id);
    }

    /// Hands a client's answer to the ask waiting for it; gives it back when nothing
    /// here waits for it (an answer to a question sent on a GET stream, or a late one).
    pub fn deliver(&self, request_id: &str, answer: Answer) -> Option<Answer> {
        let Some(slot) = self.slot(request_id) else {
            return Some(answer);
        };
        let waker = {
            let mut slot = slot.borrow_mut();
            slot.0 = Some(answer);
            slot.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        None
    }

    /// How many requests await an answer.
    pub fn len(&self) -> usize {
        self.0.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Forgets the requests of an ask that ends or is dropped (a `tasks/result` stops asking
/// when the task moves on without these answers): nothing waits for them then.
struct Forget<'a>(&'a Pending, Vec<String>);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        for id in &self.1 {
            self.0.remove(id);
        }
    }
}

/// The answer put in `slot`, or `None` after `timeout`.
async fn wait(slot: Slot, timeout: BoxFuture<'static, ()>) -> Option<Answer> {
    let mut timeout = timeout;
    poll_fn(|cx| {
        let mut slot = slot.borrow_mut();
        if let Some(answer) = slot.0.take() {
            return Poll::Ready(Some(answer));
        }
        slot.1 = Some(cx.waker().clone());
        timeout.as_mut().poll(cx).map(|()| None)
    })
    .await
}

/// Sends a step's input requests to the client and waits for the answers.
pub struct SessionAsker<C> {
    /// The call's response stream; `None` for a client that takes no stream (its
    /// `Accept` refuses one), which therefore cannot be asked.
    pub channel: Option<C>,
    pub pending: Pending,
    /// Tags the requests with a task (legacy `tasks/result`).
    pub related_task: Option<String>,
}

impl<C: Asking> Asker for SessionAsker<C> {
    fn ask(
        &self,
        requests: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Map<String, Value>, McpError>> {
        Box::pin(async move {
            let Some(channel) = &self.channel else {
                return Err(McpError::NotAcceptable(
                    "This call, which asks the client for input on its response stream,".into(),
                ));
            };
            let mut waiting = Vec::new();
            let mut forget = Forget(&self.pending, Vec::new());
            for (key, request) in requests {
                let id = channel.new_id()?;
                let mut params =
                    (request.get("params").cloned()).unwrap_or_else(|| Value::Object(Map::new()));
                if let Some(task_id) = &self.related_task {
                    tag_related(&mut params, task_id);
                }
                let message = crate::jsonrpc::server_request(&id, &request["method"], params);
                let slot: Slot = Rc::default();
                self.pending.remove(&id);
                self.pending.0.borrow_mut().push((id.clone(), slot.clone()));
                forget.1.push(id);
                channel.send(message.to_string().as_bytes());
                waiting.push((key, slot));
            }
            let mut answers = Map::new();
            for (key, slot) in waiting {
                match wait(slot, channel.sleep(ANSWER_TIMEOUT_MS)).await {
                    Some(Ok(result)) => {
                        answers.insert(key, result);
                    }
                    Some(Err(error)) => return Err(McpError::Wire(error)),
                    None => {
                        return Err(McpError::Internal(format!(
                            "the client did not answer {key:?} within {} s",
                            ANSWER_TIMEOUT_MS / 1000
                        )));
                    }
                }
            }
            Ok(answers)
        })
    }
}
