//! A watcher's open sockets (`server::fanin::OpenSockets`): a reopened socket's
//! generation, so a late event of the socket it replaced is not taken for the new one's.

use mcp_tasks_edge::server::fanin::OpenSockets;

#[test]
fn a_replaced_sockets_late_events_are_passed_over() {
    let mut open = OpenSockets::default();
    let (first, replaced) = open.add("t1", "socket 1");
    assert_eq!(replaced, None);
    assert!(open.is_current("t1", first));
    // Reopened after a loss: the old socket is handed back to be closed.
    let (second, replaced) = open.add("t1", "socket 2");
    assert_eq!(replaced, Some("socket 1"));
    assert!(
        !open.is_current("t1", first),
        "the replaced socket's late event"
    );
    assert!(open.is_current("t1", second));
    // Another task's socket of the same generation number is not this one's.
    let (other, _) = open.add("t2", "socket 3");
    assert!(!open.is_current("t1", other));
    assert!(open.is_current("t2", other));
}

#[test]
fn a_removed_socket_is_no_longer_current_and_drain_empties() {
    let mut open = OpenSockets::default();
    let (g1, _) = open.add("t1", 1);
    let (g2, _) = open.add("t2", 2);
    assert_eq!(open.remove("t1"), Some(1));
    assert_eq!(open.remove("t1"), None);
    assert!(!open.is_current("t1", g1));
    assert_eq!(open.drain().collect::<Vec<_>>(), vec![2]);
    assert!(!open.is_current("t2", g2));
}
