//! A 2025-11-25 session's server→client requests (`src/legacy/asking.rs`): each request
//! goes out on the call's stream under a fresh id, tagged with its task; the answers come
//! back by id, keyed as asked; an error answer, a timeout or a dropped ask leaves nothing
//! waiting, and a late answer is given back.

use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::BoxFuture;
use mcp_tasks_edge::jsonrpc::{ErrorCode, ErrorObject};
use mcp_tasks_edge::legacy::asking::{ANSWER_TIMEOUT_MS, Asking, Pending, SessionAsker};
use mcp_tasks_edge::server::call::Asker;
use serde_json::{Map, Value, json};
use std::cell::{Cell, RefCell};
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// A stream that records what it sent, draws ids in order, and has one timer the test
/// fires (remembering the timeout asked for).
#[derive(Clone, Default)]
struct Fake {
    sent: Rc<RefCell<Vec<Value>>>,
    drawn: Rc<Cell<u32>>,
    fired: Rc<Cell<bool>>,
    timeouts: Rc<RefCell<Vec<u64>>>,
}

impl Asking for Fake {
    fn new_id(&self) -> Result<String, McpError> {
        self.drawn.set(self.drawn.get() + 1);
        Ok(format!("q{}", self.drawn.get()))
    }

    fn send(&self, message: &[u8]) {
        self.sent
            .borrow_mut()
            .push(serde_json::from_slice(message).unwrap());
    }

    fn sleep(&self, ms: u64) -> BoxFuture<'static, ()> {
        self.timeouts.borrow_mut().push(ms);
        let fired = self.fired.clone();
        Box::pin(poll_fn(move |_| match fired.get() {
            true => Poll::Ready(()),
            false => Poll::Pending,
        }))
    }
}

type Asked<'a> = Pin<Box<dyn Future<Output = Result<Map<String, Value>, McpError>> + 'a>>;

fn poll(ask: &mut Asked<'_>) -> Poll<Result<Map<String, Value>, McpError>> {
    ask.as_mut().poll(&mut Context::from_waker(Waker::noop()))
}

fn requests() -> Map<String, Value> {
    let mut requests = Map::new();
    for (key, message) in [("name", "Your name?"), ("color", "Your color?")] {
        let request = json!({"method": "elicitation/create", "params": {"message": message}});
        requests.insert(key.into(), request);
    }
    requests
}

fn asker(fake: &Fake, related_task: Option<&str>) -> SessionAsker<Fake> {
    SessionAsker {
        channel: Some(fake.clone()),
        pending: Pending::default(),
        related_task: related_task.map(str::to_owned),
    }
}

#[test]
fn each_request_goes_out_under_its_own_id_and_the_answers_come_back_keyed_as_asked() {
    let fake = Fake::default();
    let asker = asker(&fake, Some("t1"));
    let mut ask: Asked = asker.ask(requests());
    assert!(poll(&mut ask).is_pending());
    let sent = fake.sent.borrow().clone();
    assert_eq!(sent.len(), 2, "both requests go out before any answer");
    // Keys in the map's order: "color", then "name".
    assert_eq!(sent[0]["id"], "q1");
    assert_eq!(sent[0]["method"], "elicitation/create");
    assert_eq!(sent[0]["params"]["message"], "Your color?");
    assert_eq!(sent[1]["id"], "q2");
    for message in &sent {
        let tag = &message["params"]["_meta"]["io.modelcontextprotocol/related-task"];
        assert_eq!(tag["taskId"], "t1", "tagged with the task asked for");
    }
    assert_eq!(asker.pending.len(), 2);
    // Answered in the other order: each reaches its request.
    assert!(
        asker
            .pending
            .deliver(
                "q2",
                Ok(json!({"action": "accept", "content": {"n": "Ada"}}))
            )
            .is_none()
    );
    assert!(poll(&mut ask).is_pending());
    assert!(
        asker
            .pending
            .deliver("q1", Ok(json!({"action": "decline"})))
            .is_none()
    );
    let Poll::Ready(Ok(answers)) = poll(&mut ask) else {
        panic!("both answered: the ask is done");
    };
    assert_eq!(answers["color"], json!({"action": "decline"}));
    assert_eq!(answers["name"]["content"]["n"], "Ada");
    assert!(asker.pending.is_empty(), "nothing waits any more");
    assert_eq!(*fake.timeouts.borrow(), vec![ANSWER_TIMEOUT_MS; 2]);
}

#[test]
fn an_error_answer_fails_the_ask_and_leaves_nothing_waiting() {
    let fake = Fake::default();
    let asker = asker(&fake, None);
    let mut ask: Asked = asker.ask(requests());
    assert!(poll(&mut ask).is_pending());
    let untagged = &fake.sent.borrow()[0]["params"];
    assert!(untagged.get("_meta").is_none(), "no task: no tag");
    let refusal = ErrorObject {
        code: ErrorCode::INVALID_PARAMS,
        message: "no".into(),
        data: None,
    };
    asker.pending.deliver("q1", Err(refusal.clone()));
    match poll(&mut ask) {
        Poll::Ready(Err(McpError::Wire(error))) => assert_eq!(error, refusal),
        other => panic!("the client's error is the ask's: {other:?}"),
    }
    assert!(
        asker.pending.is_empty(),
        "the other request is forgotten too"
    );
    let late = Ok(json!({"action": "accept"}));
    assert_eq!(
        asker.pending.deliver("q2", late.clone()),
        Some(late),
        "given back"
    );
}

#[test]
fn a_client_that_never_answers_fails_the_ask_after_the_timeout() {
    let fake = Fake::default();
    let asker = asker(&fake, None);
    let mut ask: Asked = asker.ask(requests());
    assert!(poll(&mut ask).is_pending());
    assert!(
        poll(&mut ask).is_pending(),
        "no answer, no timeout: still waiting"
    );
    fake.fired.set(true);
    match poll(&mut ask) {
        Poll::Ready(Err(McpError::Internal(why))) => {
            assert_eq!(why, "the client did not answer \"color\" within 600 s")
        }
        other => panic!("a timeout fails the ask: {other:?}"),
    }
    assert!(asker.pending.is_empty());
}

#[test]
fn an_ask_dropped_mid_way_forgets_its_requests() {
    let fake = Fake::default();
    let asker = asker(&fake, None);
    let mut ask: Asked = asker.ask(requests());
    assert!(poll(&mut ask).is_pending());
    assert_eq!(asker.pending.len(), 2);
    drop(ask);
    assert!(
        asker.pending.is_empty(),
        "a tasks/result that stops asking leaves none"
    );
    assert!(asker.pending.deliver("q1", Ok(json!({}))).is_some());
}

#[test]
fn a_client_without_a_stream_cannot_be_asked() {
    let fake = Fake::default();
    let asker = SessionAsker::<Fake> {
        channel: None,
        pending: Pending::default(),
        related_task: None,
    };
    let mut ask: Asked = asker.ask(requests());
    match poll(&mut ask) {
        Poll::Ready(Err(error @ McpError::NotAcceptable(_))) => {
            assert_eq!(error.http_status(), 406)
        }
        other => panic!("406 without a stream: {other:?}"),
    }
    assert!(fake.sent.borrow().is_empty());
    assert_eq!(fake.drawn.get(), 0, "no id drawn");
}

#[test]
fn an_answer_nothing_waits_for_is_given_back() {
    let pending = Pending::default();
    let answer = Ok(json!({"action": "accept"}));
    assert_eq!(pending.deliver("unknown", answer.clone()), Some(answer));
}
