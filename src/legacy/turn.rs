//! One `tasks/result` ([`super::result_loop`]) on a platform's follow of its task and the
//! session's streams, once for every platform: what each of [`Waiting`]'s needs means for
//! a session. The task is followed as every follower does (`server::follower`, here
//! without a deadline: `tasks/result` blocks until the task ends, `Follower::of_server`);
//! the answers go to it as `tasks/update`; a streamed answer's messages go on its stream;
//! while the loop asks, the session's GET streams hold the same questions back, and an
//! answer that cannot stream offers them there (`legacy::questions`).

use super::Questions;
use super::notices::offered;
use super::replay::GetStreams;
use super::result_loop::Waiting;
use super::resumable::{Channel, Stream};
use crate::error::McpError;
use crate::tasks::protocol::{ObjectError, ObjectRequest};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// What a turn needs of the platform: the follow of one task, and its object.
// Single threaded, as `legacy::object::SessionPlatform`.
#[allow(async_fn_in_trait)]
pub trait Following {
    /// The task's next state (the current one first), or its object's refusal; `None`
    /// once the follow is over (a follow without a deadline says why first).
    async fn next(&mut self) -> Option<Result<Value, ObjectError>>;
    /// The task object's answer to `request`, sent as `principal`.
    async fn send(&mut self, request: ObjectRequest, principal: &str) -> Result<Value, McpError>;
}

/// One `tasks/result` of `task_id`, as `principal` (the one that reaches it).
pub struct Turn<F, C> {
    task_id: String,
    principal: String,
    follow: F,
    /// A streamed answer's stream.
    stream: Option<Stream<C>>,
    streams: Rc<RefCell<GetStreams<C>>>,
    questions: Rc<RefCell<Questions>>,
    /// A fresh id for a question sent on a GET stream (the platform's CSPRNG).
    new_id: fn() -> String,
}

impl<F, C> Turn<F, C> {
    /// A turn on the session's GET `streams` and their `questions`.
    pub fn new(
        task_id: String,
        principal: String,
        follow: F,
        streams: Rc<RefCell<GetStreams<C>>>,
        questions: Rc<RefCell<Questions>>,
        new_id: fn() -> String,
    ) -> Self {
        Turn {
            task_id,
            principal,
            follow,
            stream: None,
            streams,
            questions,
            new_id,
        }
    }

    /// Answered on `stream`, which carries the task's messages.
    pub fn streamed(mut self, stream: Stream<C>) -> Self {
        self.stream = Some(stream);
        self
    }
}

impl<F: Following, C: Channel> Waiting for Turn<F, C> {
    fn task_id(&self) -> &str {
        &self.task_id
    }

    async fn get(&mut self) -> Result<Value, McpError> {
        match self.follow.next().await {
            Some(state) => state.map_err(McpError::from),
            // A follow without a deadline ends only after telling why (`NotFound`).
            None => Err(McpError::Internal(format!(
                "the follow of task {} ended without its result",
                self.task_id
            ))),
        }
    }

    async fn update(&mut self, input_responses: Map<String, Value>) -> Result<(), McpError> {
        let update = ObjectRequest::Update {
            task_id: self.task_id.clone(),
            input_responses,
        };
        self.follow.send(update, &self.principal).await.map(drop)
    }

    fn send(&mut self, message: Value) {
        if let Some(out) = &self.stream {
            out.send(message.to_string().as_bytes());
        }
    }

    fn asking(&mut self, asking: bool) {
        self.questions.borrow_mut().asking(&self.task_id, asking);
    }

    fn offer(&mut self, task: &Value) -> bool {
        offered(&self.streams, &self.questions, task, self.new_id)
    }
}
