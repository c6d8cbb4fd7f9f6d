//! The subscription registry's writes (`src/legacy/subscribers.rs`): a resource's set of
//! subscribed sessions is bounded, and its object's storage is deleted when the last
//! subscriber leaves, so registries of URIs nobody listens to do not pile up.

use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::legacy::subscribers::{MAX_SUBSCRIBERS, Write, change};
use mcp_tasks_edge::pairs::SortedSet;

const URI: &str = "file:///a.txt";

fn set(ids: &[&str]) -> SortedSet<String> {
    ids.iter().map(|id| id.to_string()).collect()
}

#[test]
fn the_last_subscriber_leaving_deletes_the_registry() {
    assert_eq!(
        change(set(&[]), URI, "s1", true).unwrap(),
        Write::Store(set(&["s1"]))
    );
    assert_eq!(
        change(set(&["s1"]), URI, "s1", true).unwrap(),
        Write::Nothing
    );
    assert_eq!(
        change(set(&["s1", "s2"]), URI, "s1", false).unwrap(),
        Write::Store(set(&["s2"]))
    );
    assert_eq!(
        change(set(&["s2"]), URI, "s2", false).unwrap(),
        Write::Delete
    );
    // Unsubscribing from a registry that holds nothing (never subscribed, or already
    // empty) stores nothing: it deletes whatever is left.
    assert_eq!(change(set(&[]), URI, "s9", false).unwrap(), Write::Delete);
    assert_eq!(
        change(set(&["s1"]), URI, "s9", false).unwrap(),
        Write::Nothing
    );
}

#[test]
fn a_full_registry_refuses_a_new_session_naming_the_resource() {
    let full: SortedSet<String> = (0..MAX_SUBSCRIBERS).map(|i| format!("{i:032x}")).collect();
    let Err(McpError::InvalidParams(why)) = change(full.clone(), URI, "new", true) else {
        panic!("a full registry takes no new session")
    };
    assert!(
        why.contains(URI) && why.contains(&MAX_SUBSCRIBERS.to_string()),
        "{why}"
    );
    // Sessions already in it may subscribe again, and leave.
    let member = format!("{:032x}", 7);
    assert_eq!(
        change(full.clone(), URI, &member, true).unwrap(),
        Write::Nothing
    );
    assert!(
        matches!(change(full, URI, &member, false).unwrap(), Write::Store(s) if s.len() == MAX_SUBSCRIBERS - 1)
    );
}
