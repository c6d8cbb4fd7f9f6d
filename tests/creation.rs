//! Running tools and creating tasks under the principal's quotas (`src/server/creation.rs`),
//! on a platform that records each request as it starts and ends: a quota that decides
//! is asked before the task's object (a refused task is never created, a task not stored
//! gives its place back), a ledger that only indexes is asked at the same time as the
//! object, and an unlimited anonymous caller's task goes to its object alone. Reordering
//! any of these fails a test here. A 2025-11-25 task-augmented call is created the same
//! way (`legacy::task_ops::create`).
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{SID, working_task, yield_once};
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::jsonrpc;
use mcp_tasks_edge::legacy::task_ops;
use mcp_tasks_edge::ops::log::{Line, LogSettings};
use mcp_tasks_edge::quota::{LedgerRequest, Quotas};
use mcp_tasks_edge::server::creation::{Creating, Reply, acquire_run, store_new_task};
use mcp_tasks_edge::tasks::protocol::{ObjectRequest, RESULT_STATUS};
use mcp_tasks_edge::tasks::record::TaskRecord;
use serde_json::{Value, json};
use std::cell::RefCell;

/// Records "start …" when a request is sent and "end …" when it is answered, each
/// answered one poll after it starts (so two requests sent at once both start before
/// either ends). `refuse`: the ledger op refused (429); `unreachable`: the object's or
/// the ledger's failure.
#[derive(Default)]
struct Platform {
    log: RefCell<Vec<String>>,
    refuse: Option<&'static str>,
    object_down: bool,
    ledger_down: bool,
    printed: RefCell<Vec<String>>,
}

impl Platform {
    async fn exchange(&self, what: String) {
        self.log.borrow_mut().push(format!("start {what}"));
        yield_once().await;
        self.log.borrow_mut().push(format!("end {what}"));
    }

    fn log(&self) -> Vec<String> {
        self.log.borrow().clone()
    }
}

impl Creating for Platform {
    async fn ledger(&self, principal: &str, request: &LedgerRequest) -> Result<(), McpError> {
        let op = jsonrpc::payload(request)["op"].as_str().unwrap().to_owned();
        self.exchange(format!("ledger {op} {principal}")).await;
        if self.refuse == Some(op.as_str()) {
            return Err(McpError::TooManyRequests {
                limit: "QUOTA_LIVE_TASKS",
                max: 1,
                retry_after_s: 5,
            });
        }
        match self.ledger_down {
            true => Err(McpError::Internal("the ledger is unavailable".into())),
            false => Ok(()),
        }
    }

    async fn forward(&self, principal: &str, request: &ObjectRequest) -> Reply {
        let ObjectRequest::Create { record } = request else {
            panic!("only creations here");
        };
        assert_eq!(record.owner(), principal, "sent as the task's owner");
        self.exchange(format!("create {principal}")).await;
        match self.object_down {
            true => Err("the object is gone".into()),
            false => Ok((RESULT_STATUS, br#"{"taskId":"t"}"#.to_vec())),
        }
    }

    fn print(&self, line: Line) {
        let text = line
            .render(&LogSettings::default())
            .expect("printed at the default level");
        self.printed.borrow_mut().push(text);
    }
}

fn record() -> Box<TaskRecord> {
    Box::new(working_task("slow_compute", Value::Null, Value::Null))
}

const UNLIMITED: Quotas = Quotas {
    tasks_per_minute: None,
    live_tasks: None,
    listen_streams: None,
    sessions: None,
};

fn store(p: &Platform, quotas: Quotas, principal: &str, counted: bool) -> Result<Reply, McpError> {
    block_on(store_new_task(p, quotas, principal, record(), counted))
}

#[test]
fn a_quota_that_decides_is_asked_before_the_object_and_a_refusal_creates_nothing() {
    let p = Platform::default();
    let reply = store(&p, Quotas::default(), "alice", true).unwrap();
    assert_eq!(reply.unwrap().0, RESULT_STATUS);
    let (ledger, create) = ("ledger acquireTask alice", "create alice");
    assert_eq!(
        p.log(),
        [
            format!("start {ledger}"),
            format!("end {ledger}"),
            format!("start {create}"),
            format!("end {create}")
        ]
    );
    let refused = Platform {
        refuse: Some("acquireTask"),
        ..Platform::default()
    };
    let error = store(&refused, Quotas::default(), "alice", true).unwrap_err();
    assert_eq!(error.http_status(), 429);
    assert_eq!(
        refused.log(),
        [format!("start {ledger}"), format!("end {ledger}")],
        "never created"
    );
    assert_eq!(refused.printed.borrow().len(), 1, "the refusal is logged");
}

#[test]
fn a_task_whose_object_did_not_store_it_gives_its_place_back() {
    let p = Platform {
        object_down: true,
        ..Platform::default()
    };
    let reply = store(&p, Quotas::default(), "alice", true).unwrap();
    assert_eq!(
        reply.unwrap_err(),
        "the object is gone",
        "the object's failure is answered"
    );
    let log = p.log();
    assert_eq!(log[2], "start create alice");
    assert_eq!(
        log[4..],
        [
            "start ledger releaseTask alice",
            "end ledger releaseTask alice"
        ]
    );
    assert!(p.printed.borrow().is_empty());
    // A release that fails too is said, not hidden.
    let p = Platform {
        object_down: true,
        ledger_down: false,
        refuse: Some("releaseTask"),
        ..Platform::default()
    };
    store(&p, Quotas::default(), "alice", true)
        .unwrap()
        .unwrap_err();
    let printed = p.printed.borrow();
    assert!(
        printed[0].contains("could not give back a task's quota place"),
        "{printed:?}"
    );
}

#[test]
fn a_ledger_that_only_indexes_is_asked_at_the_same_time_as_the_object() {
    // A run already counted, no live-task quota: nothing to refuse.
    let quotas = Quotas {
        live_tasks: None,
        ..Quotas::default()
    };
    let p = Platform::default();
    store(&p, quotas, "alice", true).unwrap().unwrap();
    let log = p.log();
    assert_eq!(
        log[..2],
        ["start ledger acquireTask alice", "start create alice"],
        "both sent before either is answered"
    );
    assert_eq!(log.len(), 4);
    // Unlimited: the same, for the index.
    let p = Platform {
        ledger_down: true,
        ..Platform::default()
    };
    let reply = store(&p, UNLIMITED, "alice", false).unwrap();
    assert!(reply.is_ok(), "the task exists and runs");
    let printed = p.printed.borrow();
    assert!(
        printed[0].contains("the task is not in its owner's index"),
        "{printed:?}"
    );
}

#[test]
fn an_unlimited_anonymous_callers_task_goes_to_its_object_alone_as_its_own_principal() {
    let p = Platform::default();
    store(&p, UNLIMITED, "anonymous", false).unwrap().unwrap();
    let owner = format!("anonymous-task:{SID}");
    assert_eq!(
        p.log(),
        [
            format!("start create {owner}"),
            format!("end create {owner}")
        ]
    );
    // With a quota, its own ledger counts it.
    let p = Platform::default();
    store(&p, Quotas::default(), "anonymous", false)
        .unwrap()
        .unwrap();
    assert_eq!(p.log()[0], format!("start ledger acquireTask {owner}"));
}

#[test]
fn a_run_is_counted_only_under_a_rate_quota() {
    let p = Platform::default();
    block_on(acquire_run(&p, Quotas::default(), "alice")).unwrap();
    assert_eq!(
        p.log(),
        [
            "start ledger acquireRun alice",
            "end ledger acquireRun alice"
        ]
    );
    let quotas = Quotas {
        tasks_per_minute: None,
        ..Quotas::default()
    };
    let p = Platform::default();
    block_on(acquire_run(&p, quotas, "alice")).unwrap();
    assert!(p.log().is_empty(), "nothing to count");
    let refused = Platform {
        refuse: Some("acquireRun"),
        ..Platform::default()
    };
    let error = block_on(acquire_run(&refused, Quotas::default(), "alice")).unwrap_err();
    assert_eq!(error.http_status(), 429);
    assert_eq!(json!(refused.printed.borrow().len()), 1);
}

#[test]
fn an_anonymous_sessions_run_takes_a_place_among_all_anonymous_runs_first() {
    let session = "anonymous-session:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let p = Platform::default();
    block_on(acquire_run(&p, Quotas::default(), session)).unwrap();
    let log = p.log();
    assert_eq!(
        log[0], "start ledger acquireRun anonymous",
        "the shared ledger first"
    );
    assert_eq!(log[2], format!("start ledger acquireRun {session}"));
    // Refused there: its own ledger is not asked, and the refusal is the caller's.
    let refused = Platform {
        refuse: Some("acquireRun"),
        ..Platform::default()
    };
    let error = block_on(acquire_run(&refused, Quotas::default(), session)).unwrap_err();
    assert_eq!(error.http_status(), 429);
    assert_eq!(refused.log().len(), 2, "one ledger asked");
    // A task of the session's whose run was not counted yet: the same.
    let p = Platform::default();
    store(&p, Quotas::default(), session, false)
        .unwrap()
        .unwrap();
    assert_eq!(p.log()[0], "start ledger acquireRun anonymous");
    assert_eq!(p.log()[2], format!("start ledger acquireTask {session}"));
}

#[test]
fn a_legacy_task_augmented_call_is_created_under_the_same_quotas() {
    let p = Platform::default();
    let created = block_on(task_ops::create(&p, Quotas::default(), record())).unwrap();
    let task = &created["task"];
    assert_eq!(task["taskId"], "t", "CreateTaskResult: {created}");
    assert!(
        task.get("ttl").is_some(),
        "the legacy Task's shape: {created}"
    );
    let log = p.log();
    assert!(log[0].starts_with("start ledger acquireTask"), "{log:?}");
    assert!(
        log[2].starts_with("start create"),
        "the quota first: {log:?}"
    );
    let refused = Platform {
        refuse: Some("acquireTask"),
        ..Platform::default()
    };
    let error = block_on(task_ops::create(&refused, Quotas::default(), record())).unwrap_err();
    assert_eq!(
        (error.http_status(), refused.log().len()),
        (429, 2),
        "never created"
    );
    let down = Platform {
        object_down: true,
        ..Platform::default()
    };
    let error = block_on(task_ops::create(&down, UNLIMITED, record())).unwrap_err();
    assert!(error.to_wire().message.contains("gone"), "{error:?}");
}
