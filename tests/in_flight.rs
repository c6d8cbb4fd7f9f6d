//! A session's calls in flight that `notifications/cancelled` reaches
//! (`legacy::in_flight`): bounded, each cancelled once, forgotten when answered.

use mcp_tasks_edge::jsonrpc::RequestId;
use mcp_tasks_edge::legacy::in_flight::{CALLS_IN_FLIGHT, InFlight};

fn number(n: i64) -> RequestId {
    RequestId::Number(n)
}

#[test]
fn a_call_is_cancelled_once_by_its_own_id() {
    let calls = InFlight::default();
    let _one = calls.track(&number(1), "cancel 1").unwrap();
    let _text = calls.track(&RequestId::String("1".into()), "cancel \"1\"");
    // `1` and `"1"` are different requests.
    assert_eq!(
        calls.cancel(&RequestId::String("1".into())),
        Some("cancel \"1\"")
    );
    assert_eq!(calls.cancel(&number(1)), Some("cancel 1"));
    assert_eq!(calls.cancel(&number(1)), None);
    assert_eq!(calls.cancel(&number(2)), None);
}

#[test]
fn an_answered_call_is_forgotten() {
    let calls = InFlight::default();
    let answered = calls.track(&number(1), ()).unwrap();
    drop(answered);
    assert!(calls.is_empty());
    assert_eq!(calls.cancel(&number(1)), None);
}

#[test]
fn the_calls_in_flight_are_bounded() {
    let calls = InFlight::default();
    let tracked: Vec<_> = (0..CALLS_IN_FLIGHT as i64)
        .map(|n| calls.track(&number(n), n).unwrap())
        .collect();
    // A flood of calls is not kept: the newest cannot be cancelled by id.
    assert!(calls.track(&number(-1), -1).is_none());
    assert_eq!(calls.len(), CALLS_IN_FLIGHT);
    assert_eq!(calls.cancel(&number(-1)), None);
    // One answered makes room again.
    drop(tracked);
    assert!(calls.is_empty());
    assert!(calls.track(&number(-1), -1).is_some());
}

#[test]
fn two_calls_with_one_id_are_kept_apart() {
    let calls = InFlight::default();
    let first = calls.track(&number(7), "first").unwrap();
    let _second = calls.track(&number(7), "second").unwrap();
    // The first answered: the second can still be cancelled.
    drop(first);
    assert_eq!(calls.cancel(&number(7)), Some("second"));
    assert!(calls.is_empty());
}
