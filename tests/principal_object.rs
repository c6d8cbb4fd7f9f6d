//! The principal object's runner (`objects::principal`) on the in-memory platform of
//! `common::ledger`: what it reads, in which order, and that it writes once.

mod common;
use common::ledger::{Call, LedgerObject};
use mcp_tasks_edge::objects::Write;
use mcp_tasks_edge::objects::principal::{LEDGER_KEY, LedgerError};
use mcp_tasks_edge::quota::{INDEX_PREFIX, LIST_PAGE, LedgerRequest, MAX_INDEXED, Quotas, Reply};

const T0: u64 = 1_000_000;

fn quotas(live: Option<u64>) -> Quotas {
    Quotas {
        tasks_per_minute: None,
        live_tasks: live,
        listen_streams: None,
        sessions: None,
    }
}

fn acquire(id: &str, until_ms: Option<u64>, live: Option<u64>) -> LedgerRequest {
    LedgerRequest::AcquireTask {
        task_id: id.into(),
        until_ms,
        quotas: quotas(live),
        counted: false,
        index: true,
    }
}

fn written(calls: &[Call]) -> &Write {
    match calls.last() {
        Some(Call::Write(write)) => write,
        other => panic!("expected a write last, got {other:?}"),
    }
}

#[test]
fn a_task_is_counted_indexed_and_its_alarm_set_in_one_write_after_one_read() {
    let mut object = LedgerObject::at(T0);
    let (reply, calls) = object.ask(&acquire("a", Some(T0 + 60_000), Some(2)));
    assert_eq!(reply, Ok(Reply::default()));
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0], Call::Ledger);
    let write = written(&calls);
    let keys: Vec<&str> = write.put.iter().map(|(k, _)| k.as_str()).collect();
    assert!(keys.contains(&LEDGER_KEY), "{keys:?}");
    assert!(keys.iter().any(|k| k.starts_with(INDEX_PREFIX)), "{keys:?}");
    assert!(write.delete.is_empty() && !write.erase);
    assert_eq!(
        write.alarm,
        Some(object.alarm),
        "the alarm is in the same write"
    );
    assert!(object.alarm.is_some_and(|at| at >= T0 + 60_000));
    assert_eq!(object.index_rows().len(), 1);
}

#[test]
fn a_refusal_answers_the_limit_and_writes_nothing() {
    let mut object = LedgerObject::at(T0);
    object.ask(&acquire("a", None, Some(1))).0.unwrap();
    let before = object.rows.clone();
    let (reply, calls) = object.ask(&acquire("b", None, Some(1)));
    let exceeded = reply.unwrap().exceeded.expect("refused");
    assert_eq!(
        (exceeded.limit.as_str(), exceeded.max),
        ("QUOTA_LIVE_TASKS", 1)
    );
    assert_eq!(calls, [Call::Ledger]);
    assert_eq!(object.rows, before);
}

#[test]
fn a_listing_reads_its_page_before_it_plans_and_writes_nothing() {
    let mut object = LedgerObject::at(T0);
    for (n, id) in ["a", "b", "c"].into_iter().enumerate() {
        object.now = T0 + n as u64;
        object.ask(&acquire(id, None, None)).0.unwrap();
    }
    let (reply, calls) = object.ask(&LedgerRequest::ListTasks { before: None });
    let reply = reply.unwrap();
    assert_eq!(reply.tasks, Some(vec!["c".into(), "b".into(), "a".into()]));
    assert_eq!(reply.next, None);
    assert_eq!(
        calls,
        [
            Call::Ledger,
            Call::Index {
                newest: true,
                limit: LIST_PAGE + 1,
                before: None
            }
        ]
    );
}

#[test]
fn a_full_index_drops_its_oldest_row_in_the_same_write() {
    let mut object = LedgerObject::at(T0);
    for n in 0..MAX_INDEXED {
        object.now = T0 + n;
        object
            .ask(&acquire(&format!("t{n}"), None, None))
            .0
            .unwrap();
    }
    let oldest = object.index_rows()[0].clone();
    object.now += 1;
    let (reply, calls) = object.ask(&acquire("newest", None, None));
    assert_eq!(reply, Ok(Reply::default()));
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(calls[0], Call::Ledger);
    assert_eq!(
        calls[1],
        Call::Index {
            newest: false,
            limit: 1,
            before: None
        }
    );
    let write = written(&calls);
    assert_eq!(write.delete, std::slice::from_ref(&oldest));
    assert_eq!(object.index_rows().len() as u64, MAX_INDEXED);
    assert!(!object.rows.contains_key(&oldest));
}

#[test]
fn the_alarm_erases_an_expired_ledger_and_otherwise_looks_again_later() {
    let mut object = LedgerObject::at(T0);
    object
        .ask(&acquire("a", Some(T0 + 5_000), Some(5)))
        .0
        .unwrap();
    let deadline = object.alarm.expect("an alarm");
    // Early (a retried or stale alarm): nothing is erased, the alarm is set again.
    object.now = T0 + 1_000;
    let (done, calls) = object.alarm_fired();
    done.unwrap();
    assert_eq!(
        calls,
        [
            Call::Ledger,
            Call::Write(Write {
                alarm: Some(Some(deadline)),
                ..Write::default()
            })
        ]
    );
    assert!(object.rows.contains_key(LEDGER_KEY));
    // Past every deadline: the object leaves nothing behind.
    object.now = deadline;
    let (done, calls) = object.alarm_fired();
    done.unwrap();
    assert_eq!(
        calls,
        [
            Call::Ledger,
            Call::Write(Write {
                erase: true,
                ..Write::default()
            })
        ]
    );
    assert!(object.rows.is_empty() && object.alarm.is_none());
}

#[test]
fn a_ledger_that_does_not_decode_is_an_error_and_nothing_is_written() {
    let mut object = LedgerObject::at(T0);
    object.rows.insert(LEDGER_KEY.into(), "{not json".into());
    let (reply, calls) = object.ask(&acquire("a", None, Some(1)));
    assert!(matches!(reply, Err(LedgerError::Corrupt(_))), "{reply:?}");
    assert_eq!(calls, [Call::Ledger]);
    let (alarm, calls) = object.alarm_fired();
    assert!(matches!(alarm, Err(LedgerError::Corrupt(_))), "{alarm:?}");
    assert_eq!(calls, [Call::Ledger]);
    assert_eq!(object.rows[LEDGER_KEY], "{not json");
}

#[test]
fn a_failed_write_is_an_error_not_a_grant() {
    let mut object = LedgerObject::at(T0);
    object.broken = true;
    let (reply, calls) = object.ask(&acquire("a", None, Some(1)));
    assert!(matches!(reply, Err(LedgerError::Storage(_))), "{reply:?}");
    assert!(matches!(calls.as_slice(), [Call::Ledger, Call::Write(_)]));
}

#[test]
fn a_request_is_answered_as_every_object_answers_and_a_bad_one_is_an_internal_error() {
    use mcp_tasks_edge::host::block_on;
    use mcp_tasks_edge::objects::principal::serve;
    use mcp_tasks_edge::tasks::protocol::ObjectReply;
    let mut object = LedgerObject::at(T0);
    let body = serde_json::to_vec(&acquire("a", None, Some(1))).unwrap();
    let ObjectReply::Result(granted) = block_on(serve(&mut object, Ok(body))) else {
        panic!("granted");
    };
    assert!(granted.get("exceeded").is_none(), "{granted}");
    for body in [
        Ok(b"{\"op\":\"steal\"}".to_vec()),
        Err("the body was cut".into()),
    ] {
        let ObjectReply::Error(error) = block_on(serve(&mut object, body)) else {
            panic!("refused");
        };
        assert_eq!(error.code.0, -32603);
        assert!(
            error
                .message
                .contains("a ledger request that does not decode"),
            "{}",
            error.message
        );
    }
    object.broken = true;
    let body = serde_json::to_vec(&acquire("b", None, Some(5))).unwrap();
    let ObjectReply::Error(error) = block_on(serve(&mut object, Ok(body))) else {
        panic!("a failed write is no grant");
    };
    assert_eq!(error.code.0, -32603);
}
