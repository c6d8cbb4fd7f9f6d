//! Native tests of the shared listen stream's decisions (`hub_state.rs`); the stream
//! itself runs in real browsers in tests/browser.

use super::hub_state::{AfterStream, HubState};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// A `DetailedTask` created and last updated `at` (watch_tests.rs shares these helpers).
pub(super) fn task(id: &str, status: &str, at: &str) -> Map<String, Value> {
    let mut t = json!({ "taskId": id, "status": status, "createdAt": at,
                        "lastUpdatedAt": at, "ttlMs": null });
    if status == "completed" {
        t["result"] = json!({ "content": [] });
    }
    t.as_object().cloned().unwrap()
}

pub(super) fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn states_are_passed_on_once_and_never_go_back() {
    let mut hub = HubState::default();
    let (key, known) = hub.add_listener(ids(&["a"]));
    assert!(known.is_empty());
    let (first, keys) = hub.offer(&task("a", "working", "t1")).unwrap();
    assert_eq!(
        (first["status"].as_str(), keys),
        (Some("working"), vec![key])
    );
    assert!(
        hub.offer(&task("a", "working", "t1")).is_none(),
        "the same state twice"
    );
    let mut with_transport = task("a", "working", "t1");
    with_transport.insert("resultType".into(), json!("task"));
    assert!(
        hub.offer(&with_transport).is_none(),
        "transport fields do not make a state new"
    );
    assert!(hub.offer(&task("a", "completed", "t3")).is_some());
    assert!(
        hub.offer(&task("a", "working", "t2")).is_none(),
        "an older state after a newer one"
    );
    assert!(
        hub.offer(&task("a", "working", "t4")).is_none(),
        "nothing follows a terminal state"
    );
    // A later listener gets the known state at once.
    let (_, known) = hub.add_listener(ids(&["a", "b"]));
    assert_eq!(known.len(), 1);
    // A state nobody listens to is kept for drivers but goes to no callback.
    let (_, keys) = hub.offer(&task("z", "working", "t1")).unwrap();
    assert!(keys.is_empty());
}

#[test]
fn one_stream_for_every_unfinished_task_reopened_when_one_is_added() {
    let mut hub = HubState::default();
    hub.add_driver("a");
    assert!(hub.schedule(), "a new task schedules a reopen");
    assert!(!hub.schedule(), "once: what is added meanwhile joins it");
    hub.scheduled_done();
    let (generation, streamed) = hub.begin_reopen().unwrap();
    assert_eq!(streamed, ids(&["a"]));
    hub.opened();
    assert!(
        hub.begin_reopen().is_none(),
        "the open stream already covers the same set"
    );
    hub.acknowledged(BTreeSet::from(["a".to_owned()]), &streamed);
    assert!(hub.covers("a") && !hub.covers("b"));
    let (_, _) = hub.add_listener(ids(&["b"]));
    assert!(hub.schedule());
    hub.scheduled_done();
    let (newer, streamed) = hub.begin_reopen().unwrap();
    assert!(newer > generation && !hub.is_current(generation) && hub.is_current(newer));
    assert_eq!(streamed, ids(&["a", "b"]));
    // Finished tasks leave the set; when none is left, the stream just closes.
    hub.offer(&task("a", "completed", "t1"));
    hub.offer(&task("b", "completed", "t1"));
    let (_, streamed) = hub.begin_reopen().unwrap();
    assert!(streamed.is_empty());
    assert!(!hub.covers("a"));
}

#[test]
fn unacknowledged_ids_get_no_callbacks() {
    let mut hub = HubState::default();
    let (key, _) = hub.add_listener(ids(&["mine", "theirs"]));
    hub.acknowledged(
        BTreeSet::from(["mine".to_owned()]),
        &ids(&["mine", "theirs"]),
    );
    assert!(
        hub.offer(&task("theirs", "working", "t1"))
            .unwrap()
            .1
            .is_empty()
    );
    assert_eq!(
        hub.offer(&task("mine", "working", "t1")).unwrap().1,
        vec![key]
    );
}

#[test]
fn a_broken_stream_reopens_three_times_backing_off_then_polls() {
    let mut hub = HubState::default();
    hub.add_listener(ids(&["a"]));
    assert_eq!(hub.connection(), "live");
    for delay in [500, 1000, 2000] {
        hub.begin_reopen().unwrap();
        hub.opened();
        assert_eq!(hub.stream_ended(false), AfterStream::ReopenAfter(delay));
        assert_eq!((hub.mode(), hub.connection()), ("stream", "reconnecting"));
    }
    hub.begin_reopen().unwrap();
    hub.opened();
    assert_eq!(hub.stream_ended(false), AfterStream::Poll);
    assert_eq!((hub.mode(), hub.connection()), ("polling", "polling"));
    assert!(hub.start_poller());
    assert!(!hub.start_poller(), "one poller");
    assert_eq!(hub.poll_round(), Some(ids(&["a"])));
    // A task the server forgot is dropped from the poll.
    hub.unknown_task("a");
    assert_eq!(hub.poll_round(), Some(vec![]));
    // A stream that opens again stops the poller; an ack resets the failures.
    hub.add_listener(ids(&["c"]));
    hub.begin_reopen().unwrap();
    hub.opened();
    assert_eq!(hub.poll_round(), None);
    assert!(hub.start_poller(), "a stopped poller may start again");
    hub.acknowledged(BTreeSet::from(["c".to_owned()]), &ids(&["c"]));
    assert_eq!(hub.connection(), "live", "acknowledged: live again");
    assert_eq!(hub.stream_ended(false), AfterStream::ReopenAfter(500));
    assert_eq!(hub.stream_ended(true), AfterStream::Schedule);
}

#[test]
fn drivers_poll_their_own_and_states_are_forgotten_when_unfollowed() {
    let mut hub = HubState::default();
    hub.add_driver("d");
    let (key, _) = hub.add_listener(ids(&["d", "l"]));
    hub.cannot_stream();
    assert_eq!(hub.mode(), "polling");
    assert!(!hub.covers("d"));
    hub.start_poller();
    assert_eq!(
        hub.poll_round(),
        Some(ids(&["l"])),
        "the driver polls d itself"
    );
    hub.offer(&task("d", "working", "t1"));
    hub.offer(&task("l", "working", "t1"));
    hub.remove_driver("d");
    assert!(hub.last("d").is_some(), "the listener still follows d");
    hub.remove_listener(key);
    assert!(
        hub.last("d").is_none() && hub.last("l").is_none(),
        "the map stays bounded"
    );
    assert!(hub.wanted().is_empty());
}
