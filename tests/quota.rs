//! The per-principal quota ledger, natively: windows, live tasks, streams, idempotence
//! and deadlines.

use mcp_tasks_edge::quota::{
    self, IndexEntry, LIST_PAGE, Ledger, LedgerRequest, MAX_INDEXED, Quotas, STREAM_LEASE_MS,
    WINDOW_MS, cursor_ok, index_key, index_value, read_index, read_page,
};

mod common;
use common::ledger::LedgerObject;

const T0: u64 = 1_000_000;

fn quotas(per_minute: Option<u64>, live: Option<u64>, streams: Option<u64>) -> Quotas {
    Quotas {
        tasks_per_minute: per_minute,
        live_tasks: live,
        listen_streams: streams,
        sessions: None,
    }
}

fn acquire(id: &str, until: Option<u64>, q: Quotas) -> LedgerRequest {
    LedgerRequest::AcquireTask {
        task_id: id.into(),
        until_ms: until,
        quotas: q,
        counted: false,
        index: true,
    }
}

fn release(id: &str) -> LedgerRequest {
    LedgerRequest::ReleaseTask { task_id: id.into() }
}

#[test]
fn live_tasks_are_limited_and_freed_when_tasks_end() {
    let q = quotas(None, Some(2), None);
    let mut l = Ledger::default();
    l.apply(&acquire("a", None, q), T0).unwrap();
    l.apply(&acquire("b", None, q), T0).unwrap();
    let e = l.apply(&acquire("c", None, q), T0).unwrap_err();
    assert_eq!((e.limit.as_str(), e.max), ("QUOTA_LIVE_TASKS", 2));
    assert!(e.retry_after_s >= 1);
    // Idempotent: acquiring a held task again and releasing twice change nothing.
    l.apply(&acquire("a", None, q), T0).unwrap();
    l.apply(&release("a"), T0).unwrap();
    l.apply(&release("a"), T0).unwrap();
    l.apply(&acquire("c", None, q), T0).unwrap();
    assert!(l.apply(&acquire("d", None, q), T0).is_err());
}

#[test]
fn a_lost_release_holds_a_slot_only_until_the_task_expires() {
    let q = quotas(None, Some(1), None);
    let mut l = Ledger::default();
    l.apply(&acquire("a", Some(T0 + 5000), q), T0).unwrap();
    assert!(l.apply(&acquire("b", None, q), T0 + 4999).is_err());
    l.apply(&acquire("b", None, q), T0 + 5000).unwrap();
}

#[test]
fn tasks_per_minute_is_a_sliding_window() {
    let q = quotas(Some(3), None, None);
    let mut l = Ledger::default();
    l.apply(&acquire("a", None, q), T0).unwrap();
    l.apply(&acquire("b", None, q), T0 + 20_000).unwrap();
    l.apply(&acquire("c", None, q), T0 + 40_000).unwrap();
    let e = l.apply(&acquire("d", None, q), T0 + 50_000).unwrap_err();
    assert_eq!(e.limit, "QUOTA_TASKS_PER_MINUTE");
    assert_eq!(e.retry_after_s, 10, "until the oldest leaves the window");
    l.apply(&acquire("d", None, q), T0 + WINDOW_MS).unwrap();
    assert!(l.apply(&acquire("e", None, q), T0 + WINDOW_MS).is_err());
    // A refusal records nothing.
    assert_eq!(l.created.len(), 3);
}

#[test]
fn listen_streams_are_leased_renewed_and_released() {
    let q = quotas(None, None, Some(1));
    let s = |id: &str| LedgerRequest::AcquireStream {
        stream_id: id.into(),
        quotas: q,
    };
    let mut l = Ledger::default();
    l.apply(&s("one"), T0).unwrap();
    let e = l.apply(&s("two"), T0).unwrap_err();
    assert_eq!(e.limit, "QUOTA_LISTEN_STREAMS");
    // Renewing the held stream is allowed and extends its lease.
    l.apply(&s("one"), T0 + STREAM_LEASE_MS - 1).unwrap();
    assert!(l.apply(&s("two"), T0 + STREAM_LEASE_MS + 1).is_err());
    l.apply(
        &LedgerRequest::ReleaseStream {
            stream_id: "one".into(),
        },
        T0 + 1,
    )
    .unwrap();
    l.apply(&s("two"), T0 + 2).unwrap();
    // A stream never released frees its slot when its lease runs out.
    l.apply(&s("three"), T0 + 2 + STREAM_LEASE_MS).unwrap();
    let e = l.apply(&s("four"), T0 + 3 + STREAM_LEASE_MS).unwrap_err();
    assert_eq!(e.to_error().http_status(), 429);
}

#[test]
fn unlimited_counts_nothing_and_requests_round_trip() {
    let q = quotas(None, None, None);
    let mut l = Ledger::default();
    for i in 0..1000 {
        let entry = l.apply(&acquire(&i.to_string(), None, q), T0).unwrap();
        assert!(entry.is_some(), "every new task gets an index entry");
    }
    // Nothing is counted; the tasks are only indexed (tasks/list), as keys of their own.
    assert!(l.created.is_empty() && l.live.is_empty() && l.streams.is_empty());
    assert_eq!(l.indexed, 1000);
    let value = serde_json::to_string(&l).unwrap();
    assert!(value.len() < 120, "the ledger value stays small: {value}");
    assert!(!q.counts_tasks());
    let r = acquire("x", Some(5), Quotas::default());
    let text = serde_json::to_string(&r).unwrap();
    assert_eq!(serde_json::from_str::<LedgerRequest>(&text).unwrap(), r);
    assert!(text.contains("\"op\":\"acquireTask\""), "{text}");
}

/// The index as storage holds it: every entry `apply` asked to write, minus releases'
/// (none: ending a task does not unlist it).
fn stored(entries: &[IndexEntry]) -> Vec<(String, String)> {
    entries
        .iter()
        .map(|e| (e.key.clone(), index_value(e.until_ms)))
        .collect()
}

/// Listing pages through the index by key: each page reads only its own entries (and one
/// more, to know whether more follow), and the cursor is the key it ends at.
#[test]
fn the_index_is_listed_a_page_at_a_time() {
    let entries: Vec<(String, String)> = (0..120u64)
        .map(|i| {
            (
                index_key(1000 + i, &format!("t{i:03}")),
                index_value(u64::MAX),
            )
        })
        .collect();
    // What the object reads: the newest LIST_PAGE + 1 before the cursor.
    let window = |before: Option<&str>| -> Vec<(String, String)> {
        let mut newest_first: Vec<_> = entries
            .iter()
            .filter(|(k, _)| before.is_none_or(|b| k.as_str() < b))
            .cloned()
            .collect();
        newest_first.reverse();
        newest_first.truncate(LIST_PAGE + 1);
        newest_first
    };
    let request = LedgerRequest::ListTasks { before: None };
    assert_eq!(quota::listing(&request), Some((None, LIST_PAGE + 1)));
    let (mut seen, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
    loop {
        let (live, expired, next) = read_page(window(cursor.as_deref()), 0);
        assert!(expired.is_empty() && live.len() <= LIST_PAGE);
        seen.extend(live);
        pages += 1;
        match next {
            Some(next) => {
                assert!(cursor_ok(&next), "{next}");
                cursor = Some(next);
            }
            None => break,
        }
    }
    assert_eq!(pages, 3);
    let expected: Vec<String> = (0..120).rev().map(|i| format!("t{i:03}")).collect();
    assert_eq!(seen, expected);
    // A cursor that cannot be an index key never reaches storage.
    for bad in [
        "50",
        "",
        "task:",
        "task:123:x",
        "task:00000000000012ab:x",
        "other:0000000000001000:t",
    ] {
        assert!(!cursor_ok(bad), "{bad}");
    }
    assert!(!cursor_ok(&index_key(1, &"x".repeat(300))));
}

#[test]
fn the_index_lists_every_task_until_it_expires_newest_first() {
    let mut ledger = Ledger::default();
    let unlimited = quotas(None, None, None);
    let mut entries = Vec::new();
    // Created out of id order, and two in the same millisecond.
    for (at, id) in [(100, "z"), (101, "b"), (102, "a"), (102, "c")] {
        let until = if id == "b" { Some(500) } else { None };
        entries.push(
            ledger
                .apply(&acquire(id, until, unlimited), at)
                .unwrap()
                .unwrap(),
        );
    }
    // Indexed even when nothing is counted, and ending a task does not unlist it.
    assert_eq!(ledger.apply(&release("c"), 200).unwrap(), None);
    let (live, expired) = read_index(stored(&entries), 200);
    assert_eq!(live, ["c", "a", "b", "z"]);
    assert!(expired.is_empty());
    // Past its expiry a task is gone from the list, and its key is to be deleted.
    let (live, expired) = read_index(stored(&entries), 500);
    assert_eq!(live, ["c", "a", "z"]);
    assert_eq!(expired, [index_key(101, "b")]);
    // A key that is not an entry is dropped rather than listed.
    let (live, expired) = read_index(vec![("task:junk".into(), "x".into())], 0);
    assert!(live.is_empty() && expired == ["task:junk"]);
}

#[test]
fn the_index_keeps_the_newest_max_indexed_entries() {
    let mut ledger = Ledger::default();
    let unlimited = quotas(None, None, None);
    for i in 0..MAX_INDEXED + 3 {
        ledger
            .apply(&acquire(&i.to_string(), None, unlimited), T0 + i)
            .unwrap();
    }
    // Three oldest entries to drop; the count is then at the bound.
    assert_eq!(ledger.trim_index(), 3);
    assert_eq!(ledger.indexed, MAX_INDEXED);
    assert_eq!(ledger.trim_index(), 0);
}

#[test]
fn a_format_1_index_moves_to_keys() {
    let stored = r#"{"created":[],"live":{},"streams":{},"tasks":{"a":[100,900],"b":[200,900]}}"#;
    let mut ledger: Ledger = serde_json::from_str(stored).unwrap();
    let entries = ledger.take_legacy_index();
    assert_eq!(
        entries,
        [
            IndexEntry {
                key: index_key(100, "a"),
                until_ms: 900
            },
            IndexEntry {
                key: index_key(200, "b"),
                until_ms: 900
            },
        ]
    );
    assert_eq!(ledger.indexed, 2);
    // The value written back no longer holds the index.
    assert!(!serde_json::to_string(&ledger).unwrap().contains("tasks"));
    assert!(ledger.take_legacy_index().is_empty());
}

#[test]
fn every_tool_run_counts_once_inline_or_as_a_task() {
    let q = quotas(Some(2), Some(10), None);
    let run = LedgerRequest::AcquireRun { quotas: q };
    let mut l = Ledger::default();
    l.apply(&run, T0).unwrap();
    // The run became a task: counted already, only its live slot is taken.
    let counted = LedgerRequest::AcquireTask {
        task_id: "t".into(),
        until_ms: None,
        quotas: q,
        counted: true,
        index: true,
    };
    l.apply(&counted, T0).unwrap();
    assert_eq!((l.created.len(), l.live.len()), (1, 1));
    l.apply(&run, T0 + 1).unwrap();
    let e = l.apply(&run, T0 + 2).unwrap_err();
    assert_eq!((e.limit.as_str(), e.max), ("QUOTA_TASKS_PER_MINUTE", 2));
    assert_eq!(e.retry_after_s, 60);
    // A task not preceded by a counted run (a 2025-11-25 task-augmented call) counts.
    let e = l.apply(&acquire("u", None, q), T0 + 3).unwrap_err();
    assert_eq!(e.limit, "QUOTA_TASKS_PER_MINUTE");
    assert!(l.apply(&run, T0 + WINDOW_MS).is_ok(), "the window slides");
}

#[test]
fn sessions_are_limited_renewed_released_and_expire() {
    let q = Quotas {
        sessions: Some(2),
        ..quotas(None, None, None)
    };
    let open = |id: &str, until: u64| LedgerRequest::AcquireSession {
        session_id: id.into(),
        until_ms: until,
        quotas: q,
    };
    let mut l = Ledger::default();
    l.apply(&open("a", T0 + 1000), T0).unwrap();
    l.apply(&open("b", T0 + 2000), T0).unwrap();
    let e = l.apply(&open("c", T0 + 3000), T0).unwrap_err();
    assert_eq!(
        (e.limit.as_str(), e.max, e.retry_after_s),
        ("QUOTA_SESSIONS", 2, 1)
    );
    // Renewing one held is never refused.
    l.apply(&open("a", T0 + 5000), T0).unwrap();
    l.apply(
        &LedgerRequest::ReleaseSession {
            session_id: "b".into(),
        },
        T0,
    )
    .unwrap();
    l.apply(&open("c", T0 + 3000), T0).unwrap();
    // Past its deadline a lost session no longer holds a place.
    l.apply(&open("d", T0 + 9000), T0 + 5000).unwrap();
    assert_eq!(l.sessions.keys().collect::<Vec<_>>(), ["d"]);
}

#[test]
fn trimming_counts_each_dropped_entry_once() {
    let ledger = Ledger {
        indexed: MAX_INDEXED + 2,
        index_until_ms: u64::MAX,
        ..Ledger::default()
    };
    let stored = serde_json::to_string(&ledger).unwrap();
    // Listing finds the oldest entry expired (deleted, uncounted), and the trim then reads
    // that same entry as the oldest: it must be neither deleted nor uncounted twice.
    let oldest = (index_key(1, "oldest"), index_value(2));
    let listed = vec![
        (index_key(T0, "new"), index_value(u64::MAX)),
        oldest.clone(),
    ];
    let mut plan = quota::plan(
        Some(&stored),
        &LedgerRequest::ListTasks { before: None },
        T0,
        Some(listed),
    )
    .unwrap();
    assert_eq!(plan.trim, 1);
    plan.trimmed(vec![oldest.clone()]).unwrap();
    assert_eq!(plan.delete, [oldest.0]);
    let after: Ledger = serde_json::from_str(plan.ledger.as_deref().unwrap()).unwrap();
    assert_eq!(after.indexed, MAX_INDEXED + 1);
}

#[test]
fn an_anonymous_sessions_runs_count_among_all_anonymous_runs() {
    let q = quotas(Some(2), Some(5), None);
    let session = "anonymous-session:0123456789abcdef0123456789abcdef";
    let run = LedgerRequest::AcquireRun { quotas: q };
    let shared = Some(LedgerRequest::AcquireRun { quotas: q });
    // A run inline, or a task not yet counted: one more run in the shared ledger.
    assert_eq!(quota::shared_run(session, &run), shared);
    assert_eq!(quota::shared_run(session, &acquire("t1", None, q)), shared);
    // A task whose run was counted, releases, streams, lists: the session's ledger only.
    let counted = LedgerRequest::AcquireTask {
        task_id: "t1".into(),
        until_ms: None,
        quotas: q,
        counted: true,
        index: true,
    };
    for request in [
        counted,
        release("t1"),
        LedgerRequest::ListTasks { before: None },
    ] {
        assert_eq!(quota::shared_run(session, &request), None, "{request:?}");
    }
    // No run quota, nothing to share; everyone else has one ledger.
    let unlimited = LedgerRequest::AcquireRun {
        quotas: quotas(None, Some(5), None),
    };
    assert_eq!(quota::shared_run(session, &unlimited), None);
    for principal in ["anonymous", "anonymous-task:t1", "key:alice", "oauth:abc"] {
        assert_eq!(quota::shared_run(principal, &run), None, "{principal}");
    }
    // So two sessions share the shared ledger's two runs a minute: the third is refused.
    let mut shared_ledger = LedgerObject::at(T0);
    for (n, allowed) in [(1, true), (2, true), (3, false)] {
        let request = quota::shared_run(session, &run).unwrap();
        shared_ledger.now = T0 + n;
        let reply = shared_ledger.ask(&request).0.unwrap();
        assert_eq!(reply.exceeded.is_none(), allowed, "run {n}");
    }
}
