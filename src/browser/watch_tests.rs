//! Native tests of `watchMyTasks`' decisions: the watchers of `hub_state` (which tasks
//! they follow and until when), the stream's bound, and the listings of `my_tasks.rs`.

use super::hub_state::{HubState, MAX_STREAMED};
use super::hub_tests::{ids, task};
use super::my_tasks::{DEFAULT_RELIST_MS, Listing, MAX_PAGES, relist_interval};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

#[test]
fn a_watcher_follows_the_calls_tasks_and_the_listed_ones_until_each_ends() {
    let mut hub = HubState::default();
    hub.add_driver("before");
    hub.offer(&task("before", "working", "t1"));
    let (key, known) = hub.add_watcher();
    assert_eq!(known.len(), 1, "a task a call already follows, at once");
    // A task a call starts joins: its first state goes to the watcher.
    assert_eq!(hub.add_driver("mine"), vec![key]);
    assert_eq!(
        hub.offer(&task("mine", "working", "t2")).unwrap().1,
        vec![key]
    );
    // A listing's tasks join; one already known is handed over at once.
    hub.add_listener(ids(&["other"]));
    hub.offer(&task("other", "input_required", "t1"));
    let known = hub.watch_listed(key, &ids(&["other", "elsewhere"]));
    assert_eq!(known.len(), 1, "the known state of 'other'");
    assert_eq!(
        hub.offer(&task("elsewhere", "working", "t3")).unwrap().1,
        vec![key]
    );
    assert_eq!(
        hub.selection(),
        ids(&["before", "elsewhere", "mine", "other"])
            .into_iter()
            .collect::<BTreeSet<String>>()
    );
    // The terminal state goes out once; then the watcher forgets the task.
    assert_eq!(
        hub.offer(&task("elsewhere", "completed", "t4")).unwrap().1,
        vec![key]
    );
    assert!(!hub.watches(key, "elsewhere") && hub.has_ended("elsewhere"));
    assert!(
        hub.last("elsewhere").is_none(),
        "nobody follows it: its state is dropped"
    );
    // A listing read before the end does not bring it back, nor does its stale state.
    assert!(hub.watch_listed(key, &ids(&["elsewhere"])).is_empty());
    assert!(!hub.watches(key, "elsewhere"));
    assert!(hub.add_driver("elsewhere").is_empty());
    // Closed: nothing is delivered to it any more.
    hub.remove_listener(key);
    assert!(
        hub.offer(&task("mine", "working", "t5"))
            .unwrap()
            .1
            .is_empty()
    );
}

#[test]
fn beyond_the_bound_a_stream_takes_the_calls_tasks_then_the_newest_and_the_rest_is_polled() {
    let mut hub = HubState::default();
    let (key, _) = hub.add_watcher();
    let listed: Vec<String> = (0..MAX_STREAMED + 5).map(|n| format!("t{n:03}")).collect();
    hub.watch_listed(key, &listed);
    for (n, id) in listed.iter().enumerate() {
        hub.offer(&task(
            id,
            "working",
            &format!("2026-01-01T00:{:02}:{:02}Z", n / 60, n % 60),
        ));
    }
    hub.add_driver("t000"); // the oldest, but a call of this page follows it
    let selection = hub.selection();
    assert_eq!(selection.len(), MAX_STREAMED);
    assert!(selection.contains("t000"), "the page's own call first");
    for oldest in ["t001", "t002", "t003", "t004", "t005"] {
        assert!(
            !selection.contains(oldest),
            "{oldest} waits beyond the bound"
        );
    }
    let (_, streamed) = hub.begin_reopen().unwrap();
    assert_eq!(streamed.len(), MAX_STREAMED);
    hub.opened();
    assert!(hub.overflowing());
    assert!(hub.start_poller());
    assert_eq!(
        hub.poll_round(),
        Some(ids(&["t001", "t002", "t003", "t004", "t005"]))
    );
    // A streamed task ends: the newest of the waiting ones takes its place.
    hub.offer(&task("t104", "completed", "2026-01-01T01:00:00Z"));
    assert!(hub.schedule_after_end());
    hub.scheduled_done();
    let (_, streamed) = hub.begin_reopen().unwrap();
    assert!(streamed.contains(&"t005".to_owned()) && !streamed.contains(&"t004".to_owned()));
    hub.opened();
    // Once everything fits, the poller stops.
    for id in ["t001", "t002", "t003", "t004"] {
        hub.offer(&task(id, "completed", "2026-01-01T01:00:00Z"));
    }
    assert!(!hub.overflowing());
    assert_eq!(hub.poll_round(), None);
}

#[test]
fn a_stream_that_opens_after_a_break_or_polling_is_a_reconnect() {
    let mut hub = HubState::default();
    hub.add_listener(ids(&["a"]));
    hub.begin_reopen().unwrap();
    assert!(!hub.opened(), "the first stream");
    hub.stream_ended(false);
    hub.begin_reopen().unwrap();
    assert!(hub.opened() && hub.reconnects() == 1);
    hub.acknowledged(BTreeSet::from(["a".to_owned()]), &ids(&["a"]));
    hub.add_listener(ids(&["b"]));
    hub.begin_reopen().unwrap();
    assert!(!hub.opened(), "a reopen for a new task is not a reconnect");
    hub.cannot_stream();
    hub.begin_reopen().unwrap();
    assert!(
        hub.opened() && hub.reconnects() == 2,
        "a stream again after polling"
    );
    // While polling, a task's end does not retry the stream.
    hub.cannot_stream();
    hub.offer(&task("a", "completed", "t1"));
    assert!(!hub.schedule_after_end());
}

fn page(tasks: &[Map<String, Value>], next: Option<&str>) -> Map<String, Value> {
    let mut page = json!({ "resultType": "complete", "tasks": tasks });
    if let Some(next) = next {
        page["nextCursor"] = next.into();
    }
    page.as_object().cloned().unwrap()
}

#[test]
fn a_listing_keeps_the_unfinished_tasks_and_stops_within_its_bounds() {
    // The first listing: every page up to MAX_PAGES.
    let mut first = Listing::new(None);
    let one = page(
        &[
            task("w", "working", "t9"),
            task("c", "completed", "t8"),
            task("i", "input_required", "t7"),
        ],
        Some("p2"),
    );
    assert_eq!(first.page(&one).unwrap().as_deref(), Some("p2"));
    for n in 2..MAX_PAGES {
        assert!(
            first.page(&page(&[], Some("more"))).unwrap().is_some(),
            "page {n}"
        );
    }
    assert_eq!(
        first.page(&page(&[], Some("more"))).unwrap(),
        None,
        "the bound"
    );
    let found = first.finish();
    let names = |tasks: &[Map<String, Value>]| -> Vec<String> {
        tasks
            .iter()
            .map(|t| t["taskId"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        (names(&found.unfinished), found.newest.as_deref()),
        (vec!["w".to_owned(), "i".to_owned()], Some("t9"))
    );
    assert_eq!(
        names(&found.all),
        ["w", "c", "i"],
        "the store gets the finished too"
    );
    let since = found.newest;
    // A later one stops at the page that reaches what the first saw.
    let mut later = Listing::new(since);
    let newer = page(&[task("n", "working", "u1")], Some("p2"));
    assert_eq!(later.page(&newer).unwrap().as_deref(), Some("p2"));
    let reached = page(
        &[
            task("n2", "working", "t95"),
            task("w", "working", "t9"),
            task("old", "working", "t1"),
        ],
        Some("p3"),
    );
    assert_eq!(later.page(&reached).unwrap(), None);
    let found = later.finish();
    assert_eq!(
        (found.unfinished.len(), found.newest.as_deref()),
        (4, Some("u1"))
    );
    // Nothing new: the since stays.
    let mut quiet = Listing::new(Some("u1".into()));
    assert_eq!(quiet.page(&page(&[], None)).unwrap(), None);
    assert_eq!(quiet.finish().newest.as_deref(), Some("u1"));
    // Not a page: an error.
    let mut bad = Listing::new(None);
    assert_eq!(bad.page(&Map::new()).unwrap_err().code, -32600);
}

#[test]
fn the_relist_interval_is_bounded() {
    assert_eq!(relist_interval(None), DEFAULT_RELIST_MS);
    assert_eq!(relist_interval(Some(f64::NAN)), DEFAULT_RELIST_MS);
    assert_eq!(relist_interval(Some(10.0)), 1_000);
    assert_eq!(relist_interval(Some(2_500.0)), 2_500);
    assert_eq!(relist_interval(Some(1e12)), 3_600_000);
}
