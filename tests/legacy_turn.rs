//! A session's `tasks/result` turn (`src/legacy/turn.rs`) on a scripted follow of its task
//! and recording streams: a streamed answer carries the task's status notifications and
//! sends the client's answers to the task as `tasks/update` from the principal that
//! reaches it; an answer that cannot stream offers the task's questions on the session's
//! GET streams; a follow that ends without the result is an error naming the task, and a
//! task another principal owns is unknown.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::channel::Fake;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::{BoxFuture, block_on};
use mcp_tasks_edge::legacy::Questions;
use mcp_tasks_edge::legacy::replay::GetStreams;
use mcp_tasks_edge::legacy::result_loop::result;
use mcp_tasks_edge::legacy::resumable::Streams;
use mcp_tasks_edge::legacy::turn::{Following, Turn};
use mcp_tasks_edge::server::call::Asker;
use mcp_tasks_edge::tasks::protocol::{ObjectError, ObjectRequest};
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

const TID: &str = "00112233445566778899aabbccddeeff";

/// The task's states in turn, and the requests sent to its object.
#[derive(Default)]
struct Script {
    states: VecDeque<Result<Value, ObjectError>>,
    sent: Rc<RefCell<Vec<String>>>,
}

impl Following for Script {
    async fn next(&mut self) -> Option<Result<Value, ObjectError>> {
        self.states.pop_front()
    }

    async fn send(&mut self, request: ObjectRequest, principal: &str) -> Result<Value, McpError> {
        let ObjectRequest::Update {
            task_id,
            input_responses,
        } = request
        else {
            panic!("a turn sends only its answers");
        };
        let keys = input_responses.keys().cloned().collect::<Vec<_>>();
        let line = format!("update {task_id} {} as {principal}", keys.join(","));
        self.sent.borrow_mut().push(line);
        Ok(json!({}))
    }
}

/// The client answers every question at once.
struct Answers;

impl Asker for Answers {
    fn ask(
        &self,
        asked: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Map<String, Value>, McpError>> {
        let answers = asked
            .keys()
            .map(|k| (k.clone(), json!({ "action": "accept" })));
        Box::pin(std::future::ready(Ok(answers.collect())))
    }
}

fn task(status: &str, extra: Value) -> Value {
    common::task_state(TID, status, extra)
}

fn asking() -> Value {
    let question = json!({ "method": "elicitation/create", "params": { "mode": "form",
        "message": "Go?", "requestedSchema": { "type": "object" } } });
    task(
        "input_required",
        json!({ "inputRequests": { "confirm": question } }),
    )
}

fn completed() -> Value {
    task(
        "completed",
        json!({ "result": { "content": [], "isError": false } }),
    )
}

fn next_id() -> String {
    "q-1".into()
}

/// A turn of `states` as `alice`, on a session with `get_streams` open.
fn turn(
    states: Vec<Result<Value, ObjectError>>,
    get_streams: &[Fake],
) -> (Turn<Script, Fake>, Rc<RefCell<Vec<String>>>) {
    let script = Script {
        states: states.into(),
        ..Script::default()
    };
    let sent = script.sent.clone();
    let streams = Rc::new(RefCell::new(GetStreams::default()));
    for stream in get_streams {
        streams.borrow_mut().push(stream.clone());
    }
    let questions = Rc::new(RefCell::new(Questions::default()));
    let (task_id, principal) = (TID.to_owned(), "alice".to_owned());
    let turn = Turn::new(task_id, principal, script, streams, questions, next_id);
    (turn, sent)
}

#[test]
fn a_streamed_turn_carries_the_statuses_and_sends_the_answers_as_the_reaching_principal() {
    let client = Fake::default();
    let (turn, sent) = turn(vec![Ok(asking()), Ok(completed())], &[]);
    let mut turn = turn.streamed(Streams::default().open(client.clone()));
    let answer = block_on(result(&mut turn, Some(&Answers), None)).unwrap();
    assert_eq!(answer["isError"], false, "the call's own result: {answer}");
    assert_eq!(*sent.borrow(), [format!("update {TID} confirm as alice")]);
    let statuses = client
        .messages()
        .iter()
        .map(|m| m["params"]["status"].clone())
        .collect::<Vec<_>>();
    assert_eq!(
        statuses,
        [json!("input_required"), json!("completed")],
        "{:?}",
        client.messages()
    );
}

#[test]
fn a_turn_that_cannot_stream_offers_the_questions_on_the_get_streams() {
    let get_stream = Fake::default();
    let (mut turn, sent) = turn(
        vec![Ok(asking()), Ok(completed())],
        std::slice::from_ref(&get_stream),
    );
    block_on(result(&mut turn, None, None)).unwrap();
    let offered = get_stream.messages();
    assert_eq!(offered.len(), 1, "{offered:?}");
    assert_eq!(
        (offered[0]["id"].clone(), offered[0]["method"].clone()),
        (json!("q-1"), json!("elicitation/create"))
    );
    assert!(
        sent.borrow().is_empty(),
        "the answer comes on the session, not here"
    );
}

#[test]
fn a_follow_that_ends_without_the_result_names_the_task_and_a_strangers_task_is_unknown() {
    let (mut ended, _) = turn(vec![], &[]);
    let error = block_on(result(&mut ended, None, None)).unwrap_err();
    assert!(
        matches!(&error, McpError::Internal(why) if why.contains(TID)),
        "{error:?}"
    );
    let unknown = ObjectError::Refused(McpError::TaskNotFound.to_wire());
    let (mut theirs, _) = turn(vec![Err(unknown)], &[]);
    let error = block_on(result(&mut theirs, None, None)).unwrap_err();
    assert_eq!(error.to_wire(), McpError::TaskNotFound.to_wire());
}
