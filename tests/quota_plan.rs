//! The quota planner (`quota::plan`) as a table: a stored ledger and a request in, the
//! reply and the effects out (the ledger to store, index keys to put and delete, entries
//! to trim, the alarm). `tests/quota.rs` follows the ledger through whole scenarios.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::pairs::Pairs;
use mcp_tasks_edge::quota::{
    self, Ledger, LedgerRequest, MAX_INDEXED, Quotas, RETRY_SLOT_S, STREAM_LEASE_MS, WINDOW_MS,
    index_key, index_value,
};
use serde_json::json;

const T0: u64 = 1_000_000;

fn q(per_minute: Option<u64>, live: Option<u64>, streams: Option<u64>) -> Quotas {
    Quotas {
        tasks_per_minute: per_minute,
        live_tasks: live,
        listen_streams: streams,
        sessions: Some(1),
    }
}

fn acquire(id: &str, until: Option<u64>, quotas: Quotas, index: bool) -> LedgerRequest {
    LedgerRequest::AcquireTask {
        task_id: id.into(),
        until_ms: until,
        quotas,
        counted: false,
        index,
    }
}

fn stored(ledger: Ledger) -> Option<String> {
    Some(serde_json::to_string(&ledger).unwrap())
}

fn held(entries: &[(&str, u64)]) -> Pairs<String, u64> {
    entries.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn entry(created: u64, id: &str, until: u64) -> (String, String) {
    (index_key(created, id), index_value(until))
}

/// (what, the stored ledger, the request, now, the index as listed, the plan expected).
type Row = (
    &'static str,
    Option<String>,
    LedgerRequest,
    u64,
    Option<Vec<(String, String)>>,
    Expect,
);

/// What a plan must be.
#[derive(Default)]
struct Expect {
    /// The refusal: (limit, retry after seconds).
    exceeded: Option<(&'static str, u64)>,
    /// Whether the ledger is written.
    stores: bool,
    put: Vec<(String, String)>,
    delete: Vec<String>,
    trim: usize,
    alarm: Option<u64>,
    /// The listed task ids (`ListTasks` only).
    tasks: Option<Vec<&'static str>>,
}

#[test]
fn plans_by_ledger_and_request() {
    let none = q(None, None, None);
    let two_live = q(None, Some(2), None);
    let live_a = Ledger {
        live: held(&[("a", T0 + 10_000)]),
        ..Ledger::default()
    };
    let streams = Ledger {
        streams: held(&[("s", T0 + STREAM_LEASE_MS)]),
        ..Ledger::default()
    };
    // Format 1 kept the index inside the value (`tasks`: id → [created, until]).
    let format_1 =
        json!({ "created": [], "live": {}, "streams": {}, "tasks": { "a": [T0, T0 + 500] } });
    let listed = vec![entry(T0, "a", T0 + 500), entry(T0 - 5, "old", T0 - 1)];
    #[rustfmt::skip]
    let rows: Vec<Row> = vec![
        ("a new ledger's first task: indexed, alarm at the window's end",
         None, acquire("a", Some(T0 + 500), q(Some(5), Some(5), None), true), T0, None,
         Expect { stores: true, put: vec![entry(T0, "a", T0 + 500)], alarm: Some(T0 + WINDOW_MS), ..Expect::default() }),
        ("a task without TTL is indexed for ever: no alarm",
         None, acquire("a", None, none, true), T0, None,
         Expect { stores: true, put: vec![entry(T0, "a", u64::MAX)], ..Expect::default() }),
        ("nothing limited, nothing indexed: no write",
         None, acquire("a", None, none, false), T0, None, Expect::default()),
        ("the per-minute window is full: refused, nothing recorded",
         stored(Ledger { created: vec![T0, T0], ..Ledger::default() }),
         acquire("b", None, q(Some(2), None, None), true), T0 + 10, None,
         Expect { exceeded: Some(("QUOTA_TASKS_PER_MINUTE", (WINDOW_MS - 10).div_ceil(1000))), ..Expect::default() }),
        ("the window passed: the run counts in a new one",
         stored(Ledger { created: vec![T0, T0], ..Ledger::default() }),
         LedgerRequest::AcquireRun { quotas: q(Some(2), None, None) }, T0 + WINDOW_MS, None,
         Expect { stores: true, alarm: Some(T0 + 2 * WINDOW_MS), ..Expect::default() }),
        ("live tasks at the limit: refused",
         stored(Ledger { live: held(&[("a", T0 + 10_000), ("b", T0 + 10_000)]), ..Ledger::default() }),
         acquire("c", None, two_live, true), T0, None,
         Expect { exceeded: Some(("QUOTA_LIVE_TASKS", RETRY_SLOT_S)), ..Expect::default() }),
        ("a task already held: idempotent, not indexed twice",
         stored(live_a.clone()), acquire("a", Some(T0 + 10_000), two_live, true), T0, None,
         Expect::default()),
        ("a release frees the place",
         stored(live_a.clone()), LedgerRequest::ReleaseTask { task_id: "a".into() }, T0, None,
         Expect { stores: true, ..Expect::default() }),
        ("releasing what nothing holds: no write",
         stored(live_a.clone()), LedgerRequest::ReleaseTask { task_id: "zzz".into() }, T0, None,
         Expect::default()),
        ("an expired place is dropped by any request",
         stored(live_a), LedgerRequest::ReleaseTask { task_id: "zzz".into() }, T0 + 10_000, None,
         Expect { stores: true, ..Expect::default() }),
        ("a stream takes a leased place",
         None, LedgerRequest::AcquireStream { stream_id: "s".into(), quotas: q(None, None, Some(1)) }, T0, None,
         Expect { stores: true, alarm: Some(T0 + STREAM_LEASE_MS), ..Expect::default() }),
        ("a second stream over the limit: refused",
         stored(streams.clone()), LedgerRequest::AcquireStream { stream_id: "t".into(), quotas: q(None, None, Some(1)) }, T0, None,
         Expect { exceeded: Some(("QUOTA_LISTEN_STREAMS", RETRY_SLOT_S)), ..Expect::default() }),
        ("renewing a held stream moves its lease and the alarm",
         stored(streams), LedgerRequest::AcquireStream { stream_id: "s".into(), quotas: q(None, None, Some(1)) }, T0 + 1000, None,
         Expect { stores: true, alarm: Some(T0 + 1000 + STREAM_LEASE_MS), ..Expect::default() }),
        ("sessions at the limit: retry when the soonest idles out",
         stored(Ledger { sessions: held(&[("x", T0 + 3000)]), ..Ledger::default() }),
         LedgerRequest::AcquireSession { session_id: "y".into(), until_ms: T0 + 9000, quotas: none }, T0, None,
         Expect { exceeded: Some(("QUOTA_SESSIONS", 3)), ..Expect::default() }),
        ("listing answers the live entries and deletes the expired ones",
         stored(Ledger { indexed: 2, index_until_ms: T0 + 500, ..Ledger::default() }),
         LedgerRequest::ListTasks { before: None }, T0 + 3, Some(listed),
         Expect { stores: true, delete: vec![index_key(T0 - 5, "old")], tasks: Some(vec!["a"]), ..Expect::default() }),
        ("a full index: the oldest entry is trimmed",
         stored(Ledger { indexed: MAX_INDEXED, index_until_ms: u64::MAX, ..Ledger::default() }),
         acquire("n", None, none, true), T0, None,
         Expect { put: vec![entry(T0, "n", u64::MAX)], trim: 1, ..Expect::default() }),
        ("a format-1 index moves to keys on any request",
         Some(format_1.to_string()), LedgerRequest::ReleaseTask { task_id: "zzz".into() }, T0, None,
         Expect { stores: true, put: vec![entry(T0, "a", T0 + 500)], alarm: Some(T0 + 500), ..Expect::default() }),
    ];
    for (name, stored, request, now, listed, expect) in rows {
        let plan = quota::plan(stored.as_deref(), &request, now, listed).unwrap();
        let exceeded = plan.reply.exceeded.as_ref();
        assert_eq!(
            exceeded.map(|e| (e.limit.as_str(), e.retry_after_s)),
            expect.exceeded,
            "{name}"
        );
        assert_eq!(plan.ledger.is_some(), expect.stores, "{name}: stores");
        assert_eq!(plan.put, expect.put, "{name}: put");
        assert_eq!(plan.delete, expect.delete, "{name}: delete");
        assert_eq!(plan.trim, expect.trim, "{name}: trim");
        assert_eq!(plan.alarm, expect.alarm, "{name}: alarm");
        let tasks: Option<Vec<&str>> = plan
            .reply
            .tasks
            .as_ref()
            .map(|t| t.iter().map(String::as_str).collect());
        assert_eq!(tasks, expect.tasks, "{name}: tasks");
    }
}

#[test]
fn a_ledger_that_does_not_decode_is_never_reset() {
    let release = LedgerRequest::ReleaseTask {
        task_id: "a".into(),
    };
    let e = quota::plan(Some("{not json"), &release, T0, None).unwrap_err();
    assert!(e.contains("does not decode"), "{e}");
    assert!(quota::expired(Some("[]"), T0).is_err());
}

#[test]
fn the_object_deletes_itself_once_everything_is_over() {
    let ledger = Ledger {
        created: vec![T0],
        ..Ledger::default()
    };
    let stored = serde_json::to_string(&ledger).unwrap();
    assert_eq!(quota::expired(None, T0).unwrap(), None);
    assert_eq!(
        quota::expired(Some(&stored), T0 + WINDOW_MS - 1).unwrap(),
        Some(T0 + WINDOW_MS)
    );
    assert_eq!(quota::expired(Some(&stored), T0 + WINDOW_MS).unwrap(), None);
}
