//! Server→client requests of a 2025-11-25 session: a step's input requests go out on a
//! response stream, and the client's answers come back as POSTs to the same object. Each
//! request's id is 128 random bits, so nobody can guess one to answer in the owner's
//! place (and answers are taken only from the session's principal: `legacy::plan`).

use super::Stream;
use crate::cloudflare::new_task_id;
use crate::error::McpError;
use crate::host::BoxFuture;
use crate::jsonrpc::ErrorObject;
use crate::legacy::tasks::tag_related;
use crate::server::call::Asker;
use futures_util::future::{Either, select};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::rc::Rc;
use std::task::{Poll, Waker};
use std::time::Duration;
use worker::Delay;

/// How long a step waits for the client to answer a server→client request.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(600);

/// An answer slot: the client's `result` (or `error`) and the waiting task's waker.
type Slot = Rc<RefCell<(Option<Result<Value, ErrorObject>>, Option<Waker>)>>;

/// Requests awaiting the client's answer, by id (memory: they belong to response streams
/// this instance is serving). Bounded by the steps waiting on them, each removed when
/// answered or timed out: a few, so a list searched in turn (a `BTreeMap` of its own
/// would add its whole B-tree code to the Worker).
#[derive(Clone, Default)]
pub(crate) struct Pending(Rc<RefCell<Vec<(String, Slot)>>>);

impl Pending {
    fn slot(&self, request_id: &str) -> Option<Slot> {
        let pending = self.0.borrow();
        let (_, slot) = pending.iter().find(|(id, _)| id == request_id)?;
        Some(slot.clone())
    }

    fn remove(&self, request_id: &str) {
        self.0.borrow_mut().retain(|(id, _)| id != request_id);
    }

    /// Hands a client's answer to the step waiting for it; gives it back when nothing
    /// here waits for it (an answer to a question sent on a GET stream, or a late one).
    pub(crate) fn deliver(
        &self,
        request_id: &str,
        answer: Result<Value, ErrorObject>,
    ) -> Option<Result<Value, ErrorObject>> {
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
}

/// Sends a step's input requests to the client and waits for the answers.
pub(crate) struct SessionAsker {
    /// The response stream the requests travel on; `None` for a client that takes no
    /// stream (its `Accept` refuses one), which therefore cannot be asked.
    pub(crate) channel: Option<Stream>,
    pub(crate) pending: Pending,
    /// Tags the requests with a task (legacy `tasks/result`).
    pub(crate) related_task: Option<String>,
}

/// Forgets the requests of an `ask` that ends or is dropped (a `tasks/result` stops
/// asking when the task moves on without these answers): nothing waits for them then.
struct Forget<'a>(&'a Pending, Vec<String>);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        for id in &self.1 {
            self.0.remove(id);
        }
    }
}

async fn wait(slot: Slot) -> Option<Result<Value, ErrorObject>> {
    let answer = std::future::poll_fn(|cx| {
        let mut slot = slot.borrow_mut();
        match slot.0.take() {
            Some(answer) => Poll::Ready(answer),
            None => {
                slot.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    });
    match select(Box::pin(answer), Box::pin(Delay::from(ANSWER_TIMEOUT))).await {
        Either::Left((answer, _)) => Some(answer),
        Either::Right(_) => None,
    }
}

impl Asker for SessionAsker {
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
                let id = new_task_id().map_err(|e| McpError::Internal(e.to_string()))?;
                let mut params =
                    (request.get("params").cloned()).unwrap_or_else(|| Value::Object(Map::new()));
                if let Some(task_id) = &self.related_task {
                    tag_related(&mut params, task_id);
                }
                let message = crate::jsonrpc::server_request(&id, &request["method"], params);
                let slot: Slot = Rc::default();
                self.pending.remove(&id);
                self.pending.0.borrow_mut().push((id.clone(), slot.clone()));
                forget.1.push(id.clone());
                channel.send(message.to_string().as_bytes());
                waiting.push((key, id, slot));
            }
            let mut answers = Map::new();
            let mut failure = None;
            for (key, _, slot) in waiting {
                let answer = if failure.is_none() {
                    wait(slot).await
                } else {
                    None
                };
                match answer {
                    Some(Ok(result)) => {
                        answers.insert(key, result);
                    }
                    Some(Err(error)) => failure = failure.or(Some(McpError::Wire(error))),
                    None if failure.is_none() => {
                        failure = Some(McpError::Internal(format!(
                            "the client did not answer {key:?} within {} s",
                            ANSWER_TIMEOUT.as_secs()
                        )));
                    }
                    None => {}
                }
            }
            match failure {
                Some(e) => Err(e),
                None => Ok(answers),
            }
        })
    }
}
