//! Listing a caller's tasks and an operator's requests (`src/server/my_tasks.rs`,
//! `src/server/operator.rs`) on an index and task objects that record what they were
//! asked: a page reads its index page, then every listed task at once, without
//! `resultType`, skipping one it cannot read; an anonymous caller lists nothing; a cursor
//! this server did not give is -32602 before the index is read; an operator's request
//! reaches the task's object and is logged with how it ended.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{body, server};
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::jsonrpc::{self, RequestId};
use mcp_tasks_edge::ops::admin::AdminRequest;
use mcp_tasks_edge::ops::log::{Line, LogSettings};
use mcp_tasks_edge::quota::{LedgerRequest, index_key};
use mcp_tasks_edge::server::Envelope;
use mcp_tasks_edge::server::creation::{Creating, Reply};
use mcp_tasks_edge::server::my_tasks::{Index, page};
use mcp_tasks_edge::server::operator;
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use serde_json::{Value, json};
use std::cell::RefCell;

const LIVE: &str = "00000000000000000000000000000001";
const GONE: &str = "00000000000000000000000000000002";

/// The index lists `LIVE` and `GONE`; only `LIVE`'s object answers.
#[derive(Default)]
struct Objects {
    asked: RefCell<Vec<String>>,
    printed: RefCell<Vec<Value>>,
    index_down: bool,
}

impl Index for Objects {
    async fn index(
        &self,
        principal: &str,
        before: Option<&str>,
    ) -> Result<(Vec<String>, Option<String>), String> {
        self.asked
            .borrow_mut()
            .push(format!("index {principal} {before:?}"));
        match self.index_down {
            true => Err("no ledger".into()),
            false => Ok((vec![LIVE.into(), GONE.into()], Some(index_key(1, LIVE)))),
        }
    }
}

impl Creating for Objects {
    async fn ledger(&self, _: &str, _: &LedgerRequest) -> Result<(), McpError> {
        unreachable!("listing counts nothing")
    }

    async fn forward(&self, principal: &str, request: &ObjectRequest) -> Reply {
        let op = jsonrpc::payload(request)["op"].as_str().unwrap().to_owned();
        self.asked
            .borrow_mut()
            .push(format!("{op} {} as {principal}", request.task_id()));
        let task = json!({ "taskId": LIVE, "status": "working", "resultType": "complete" });
        let reply = match (request.task_id(), op.as_str()) {
            (LIVE, "inspect") => ObjectReply::Result(json!({ "task": task })),
            (LIVE, _) => ObjectReply::Result(task),
            _ => ObjectReply::Error(McpError::TaskNotFound.to_wire()),
        };
        Ok(reply.encode())
    }

    fn print(&self, line: Line) {
        let text = line.render(&LogSettings::default()).unwrap();
        self.printed
            .borrow_mut()
            .push(serde_json::from_str(&text).unwrap());
    }
}

#[test]
fn a_page_reads_its_index_then_each_task_as_the_caller_skipping_the_unreadable() {
    let o = Objects::default();
    let (tasks, next) = block_on(page(&o, "alice", None)).unwrap();
    assert_eq!(
        tasks,
        [json!({ "taskId": LIVE, "status": "working" })],
        "no resultType"
    );
    assert_eq!(next.as_deref(), Some(index_key(1, LIVE).as_str()));
    let asked = o.asked.borrow();
    assert_eq!(asked[0], "index alice None");
    assert_eq!(
        asked[1..],
        [
            format!("get {LIVE} as alice"),
            format!("get {GONE} as alice")
        ]
    );
}

#[test]
fn an_anonymous_caller_lists_nothing_and_a_foreign_cursor_is_refused_unread() {
    let o = Objects::default();
    assert_eq!(
        block_on(page(&o, "anonymous", None)).unwrap(),
        (vec![], None)
    );
    assert!(o.asked.borrow().is_empty(), "nothing asked");
    for cursor in ["7", "idx:12:x", &"9".repeat(300)] {
        let error = block_on(page(&o, "alice", Some(cursor))).unwrap_err();
        assert_eq!(error.to_wire().code.0, -32602, "{cursor}");
    }
    assert!(o.asked.borrow().is_empty());
    let down = Objects {
        index_down: true,
        ..Objects::default()
    };
    let error = block_on(page(&down, "alice", None)).unwrap_err();
    assert!(
        error
            .to_wire()
            .message
            .contains("the task index is unavailable: no ledger")
    );
}

fn admin(o: &Objects, request: AdminRequest) -> Value {
    let (server, envelope) = (server(), Envelope::default());
    let id = RequestId::Number(1);
    body(&block_on(operator::perform(
        &server,
        o,
        "admin:ops",
        &id,
        request,
        &envelope,
    )))
}

#[test]
fn an_operators_requests_reach_the_tasks_objects_and_are_logged_with_how_they_ended() {
    let o = Objects::default();
    let got = admin(
        &o,
        AdminRequest::Get {
            task_id: LIVE.into(),
        },
    );
    assert_eq!(got["result"]["task"]["taskId"], LIVE);
    admin(
        &o,
        AdminRequest::Cancel {
            task_id: GONE.into(),
        },
    );
    let listed = admin(
        &o,
        AdminRequest::List {
            principal: "alice".into(),
            cursor: None,
        },
    );
    assert_eq!(
        listed["result"]["tasks"].as_array().unwrap().len(),
        1,
        "the gone one skipped"
    );
    let asked = o.asked.borrow();
    assert_eq!(
        asked[..2],
        [
            format!("inspect {LIVE} as admin:ops"),
            format!("operator_cancel {GONE} as admin:ops")
        ]
    );
    assert_eq!(asked[2], "index alice None");
    let printed = o.printed.borrow();
    let outcomes: Vec<&str> = printed
        .iter()
        .map(|l| l["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["ok", "not_found", "ok"]);
    assert!(
        o.printed
            .borrow()
            .iter()
            .all(|l| l["event"] == "admin" && l["principal"].is_string())
    );
}
