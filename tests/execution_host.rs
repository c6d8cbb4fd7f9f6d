//! What a task step reaches through its host: outgoing connections decided by the allow
//! list before any is made, and resource updates a step announces. The execution model of
//! steps: tests/execution.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::host::AllowList;
use mcp_tasks_edge::tools::{Call, Step};
use serde_json::json;

#[test]
fn the_allow_list_decides_before_any_connection() {
    let allow = AllowList::parse("api.example.com, 127.0.0.1:*, localhost:8080, [::1]:*").unwrap();
    for ok in [
        "https://api.example.com/x",
        "http://127.0.0.1:9999/",
        "http://localhost:8080/a",
        "http://[::1]:1/",
    ] {
        assert!(allow.check(ok).is_ok(), "{ok}");
    }
    for refused in [
        "https://api.example.com:8443/",
        "http://localhost:8081/",
        "ftp://127.0.0.1/",
        "http://evil.test/",
        "not a url",
    ] {
        assert!(allow.check(refused).is_err(), "{refused}");
    }
    assert!(
        AllowList::parse("")
            .unwrap()
            .check("http://127.0.0.1/")
            .is_err()
    );
    assert!(AllowList::parse("host:port").is_err());
}
#[test]
fn a_step_can_announce_a_resource_update() {
    use mcp_tasks_edge::host::{Host, block_on, fake::FakeHost};
    let fake = FakeHost::new();
    let s = server();
    let tool = s.registry.get("test_update_resource").unwrap();
    let step = block_on(tool.step(
        Call::new(json!({ "uri": "test://watched" })),
        Host::new(fake.clone()),
    ));
    assert_eq!(step, Step::text("Announced an update of test://watched."));
    assert_eq!(fake.updated_resources(), ["test://watched"]);
}
