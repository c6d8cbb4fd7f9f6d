//! The calls among the Worker and the objects (`tasks::calls`, `quota::calls`,
//! `legacy::subscribers`, `gateway::watch::ask`) through a double of the adapter's one
//! port, `Calls`, which records each call and answers as told: which object of which
//! class each call reaches, as whom, and what each reply means.

use mcp_tasks_edge::auth::ANONYMOUS;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::jsonrpc::ErrorCode;
use mcp_tasks_edge::legacy::subscribers;
use mcp_tasks_edge::quota::{self, LedgerRequest};
use mcp_tasks_edge::tasks::calls::{self, Call, CallError, Calls, Class};
use mcp_tasks_edge::tasks::protocol::{ObjectError, ObjectRequest, PRINCIPAL_HEADER};
use serde_json::{Value, json};
use std::cell::RefCell;

/// One call as the adapter was asked to send it.
#[derive(Debug, PartialEq)]
struct Sent {
    class: Class,
    name: String,
    url: String,
    headers: Vec<(String, String)>,
    body: Value,
}

/// Records every call; answers each with `reply`.
struct Double {
    sent: RefCell<Vec<Sent>>,
    reply: Result<(u16, Vec<u8>), CallError>,
}

impl Double {
    fn answering(status: u16, body: Value) -> Double {
        Double::replying(Ok((status, body.to_string().into_bytes())))
    }

    fn replying(reply: Result<(u16, Vec<u8>), CallError>) -> Double {
        Double {
            sent: RefCell::default(),
            reply,
        }
    }

    fn only(&self) -> Sent {
        let mut sent = self.sent.take();
        assert_eq!(sent.len(), 1, "one call: {sent:?}");
        sent.remove(0)
    }
}

impl Calls for Double {
    async fn call(&self, call: Call<'_>) -> Result<(u16, Vec<u8>), CallError> {
        self.sent.borrow_mut().push(Sent {
            class: call.class,
            name: call.name.to_owned(),
            url: call.url.to_owned(),
            headers: call
                .headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: serde_json::from_str(&call.body).expect("every call's body is JSON"),
        });
        self.reply.clone()
    }
}

fn get(task_id: &str) -> ObjectRequest {
    ObjectRequest::Get {
        task_id: task_id.into(),
    }
}

#[test]
fn a_task_call_reaches_the_task_named_by_its_id_as_its_caller() {
    let double = Double::answering(200, json!({"resultType": "complete"}));
    let answer = block_on(calls::task(&double, &get("t1"), "alice", Some("req-9")));
    assert_eq!(answer, Ok(json!({"resultType": "complete"})));
    let sent = double.only();
    assert_eq!((sent.class, sent.name.as_str()), (Class::Tasks, "t1"));
    assert_eq!(sent.body, json!({"op": "get", "taskId": "t1"}));
    assert!(
        sent.headers
            .contains(&(PRINCIPAL_HEADER.into(), "alice".into()))
    );
    assert!(
        sent.headers.iter().any(|(_, v)| v == "req-9"),
        "the request id is named"
    );
}

#[test]
fn an_anonymous_caller_reaches_each_task_as_that_tasks_own_principal() {
    let double = Double::answering(200, json!({}));
    let _ = block_on(calls::task(&double, &get("t1"), ANONYMOUS, None));
    let _ = block_on(calls::task(&double, &get("t2"), ANONYMOUS, None));
    let principals: Vec<String> = double
        .sent
        .take()
        .into_iter()
        .map(|s| {
            s.headers
                .into_iter()
                .find(|(n, _)| n == PRINCIPAL_HEADER)
                .unwrap()
                .1
        })
        .collect();
    assert_ne!(
        principals[0], principals[1],
        "one anonymous task cannot name another"
    );
    assert!(principals.iter().all(|p| p != ANONYMOUS));
}

#[test]
fn a_task_refusal_and_an_unreachable_object_stay_apart() {
    let refused = Double::answering(422, json!({"code": -32602, "message": "Task not found"}));
    let answer = block_on(calls::task(&refused, &get("t1"), "alice", None));
    assert!(matches!(answer, Err(ObjectError::Refused(e)) if e.code == ErrorCode(-32602)));
    let unbound = Double::replying(Err(CallError::Unbound(Class::Tasks)));
    let answer = block_on(calls::task(&unbound, &get("t1"), "alice", None));
    assert!(
        matches!(&answer, Err(ObjectError::Unreachable(why)) if why.contains("TASKS")),
        "{answer:?}"
    );
}

#[test]
fn a_ledger_refusal_is_the_429_naming_its_limit() {
    let exceeded = json!({"exceeded": {"limit": "QUOTA_LIVE_TASKS", "max": 2, "retryAfterS": 5}});
    let double = Double::answering(200, exceeded);
    let request = LedgerRequest::ReleaseTask {
        task_id: "t1".into(),
    };
    let refused = block_on(quota::calls::ledger(&double, "alice", &request));
    let Err(McpError::TooManyRequests {
        limit,
        max,
        retry_after_s,
    }) = refused
    else {
        panic!("not a 429: {refused:?}");
    };
    assert_eq!((limit, max, retry_after_s), ("QUOTA_LIVE_TASKS", 2, 5));
    let sent = double.only();
    assert_eq!(
        (sent.class, sent.name.as_str()),
        (Class::Principals, "alice")
    );
}

#[test]
fn an_anonymous_tasks_ledger_is_the_anonymous_callers_one() {
    let double = Double::answering(200, json!({}));
    let _ = block_on(calls::task_call(&double, &get("t1"), ANONYMOUS, None));
    let as_task = double
        .only()
        .headers
        .into_iter()
        .find(|(n, _)| n == PRINCIPAL_HEADER)
        .unwrap()
        .1;
    let request = LedgerRequest::ReleaseTask {
        task_id: "t1".into(),
    };
    assert_eq!(
        block_on(quota::calls::ledger(&double, &as_task, &request)),
        Ok(())
    );
    assert_eq!(double.only().name, ANONYMOUS);
}

#[test]
fn without_the_principals_binding_quotas_say_how_to_deploy() {
    let double = Double::replying(Err(CallError::Unbound(Class::Principals)));
    let request = LedgerRequest::ReleaseTask {
        task_id: "t1".into(),
    };
    let Err(McpError::Internal(why)) = block_on(quota::calls::ledger(&double, "alice", &request))
    else {
        panic!("not an internal error");
    };
    assert!(
        why.contains("PRINCIPALS") && why.contains("unlimited"),
        "{why}"
    );
}

#[test]
fn a_subscription_goes_to_its_resources_registry_and_a_full_one_refuses() {
    let double = Double::answering(200, json!({}));
    block_on(subscribers::set(&double, "file:///a", "s1", true)).expect("added");
    block_on(subscribers::set(&double, "file:///a", "s1", false)).expect("removed");
    let sent = double.sent.take();
    assert!(
        sent.iter()
            .all(|s| s.class == Class::Sessions && s.name == "resource:file:///a")
    );
    let ops: Vec<&str> = sent.iter().map(|s| s.headers[0].1.as_str()).collect();
    assert_eq!(ops, ["add", "remove"]);
    let full = Double::answering(
        422,
        json!({"code": -32602, "message": "too many subscribers"}),
    );
    let refused = block_on(subscribers::set(&full, "file:///a", "s2", true));
    assert!(matches!(refused, Err(McpError::Wire(e)) if e.code == ErrorCode(-32602)));
}

#[cfg(feature = "gateway")]
#[test]
fn a_watcher_unbound_is_none_and_its_answer_is_decoded() {
    use mcp_tasks_edge::gateway::watch;
    let unbound = Double::replying(Err(CallError::Unbound(Class::Watchers)));
    assert_eq!(block_on(watch::ask(&unbound, "up")), None);
    let double = Double::answering(200, json!({"sinceMs": 7, "changes": 2}));
    let heard = block_on(watch::ask(&double, "up"))
        .expect("bound")
        .expect("decoded");
    assert_eq!((heard.since_ms, heard.changes), (7, 2));
    let sent = double.only();
    assert_eq!((sent.class, sent.name.as_str()), (Class::Watchers, "up"));
    assert_eq!(sent.body, json!({"upstream": "up"}));
    let garbled = Double::answering(200, json!({"changes": "many"}));
    assert!(
        block_on(watch::ask(&garbled, "up"))
            .expect("bound")
            .is_err()
    );
}
