//! `publish_report` renders its pages a step each, then asks; it is declared as a tool that
//! asks (`Tool::asks`), so a task of a client that cannot be asked is refused up front.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::host::fake::FakeHost;
use mcp_tasks_edge::host::{Host, block_on};
use mcp_tasks_edge::prelude::*;
use mcp_tasks_edge_demo::server;

fn step(call: Call) -> Step {
    let server = server();
    let tool = server.registry.get("publish_report").expect("registered");
    assert!(tool.may_ask());
    block_on(tool.step(call, Host::new(FakeHost::new())))
}

#[test]
fn it_renders_page_by_page_then_asks_and_publishes() {
    let args = json!({ "pages": 2, "delayMs": 50 });
    let Step::Continue {
        checkpoint: Some(one),
        status_message,
        resume_after_ms,
        ..
    } = step(Call::new(args.clone()))
    else {
        panic!("the first page")
    };
    assert_eq!(
        (one.clone(), status_message.as_deref(), resume_after_ms),
        (json!(1), Some("Rendered page 1/2"), 50)
    );
    let Step::Continue {
        checkpoint: Some(two),
        resume_after_ms: 0,
        ..
    } = step(Call::new(args.clone()).checkpoint_at(one))
    else {
        panic!("the last page")
    };
    let Step::NeedInput(asked) = step(Call::new(args.clone()).checkpoint_at(two.clone())) else {
        panic!("the question")
    };
    assert_eq!(
        asked["publish"]["params"]["message"],
        "2 pages are rendered. Publish the report?"
    );
    let answered = Call::new(args.clone())
        .checkpoint_at(two.clone())
        .answered(json!({ "publish": { "action": "accept", "content": { "publish": true } } }));
    assert!(
        matches!(step(answered), Step::Complete(r) if r["content"][0]["text"] == "Published 2 pages.")
    );
    let kept = Call::new(args)
        .checkpoint_at(two)
        .answered(json!({ "publish": { "action": "decline" } }));
    assert!(
        matches!(step(kept), Step::Complete(r) if r["content"][0]["text"] == "Kept 2 pages as a draft.")
    );
}
