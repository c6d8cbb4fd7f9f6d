//! A tool that may ask the user (`Tool::asks`, `Tool::ask_in_task`) is refused at the call,
//! before any step runs, when the call would become a task of a client that cannot be
//! asked: -32021 naming elicitation, in both eras. A client without the Tasks extension
//! still gets a job (its question answered with `job_answer`).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use mcp_tasks_edge::server::{Action, Server};
use mcp_tasks_edge::tools::{Call, Step, TaskSupport, Tool};
use serde_json::{Value, json};
use std::cell::Cell;
use std::rc::Rc;

fn server(steps: Rc<Cell<u32>>) -> Server {
    let counted = move |_call: Call, _host| {
        steps.set(steps.get() + 1);
        std::future::ready(Ok(Step::wait(std::time::Duration::from_secs(1))))
    };
    Server::builder("asks")
        .tool(
            Tool::new("late_question", "Works, then asks")
                .task(TaskSupport::Optional)
                .asks()
                .run_json(counted),
        )
        .build()
}

fn call(server: &Server, capabilities: Value) -> Action {
    let params = json!({ "name": "late_question", "arguments": {}, "_meta": meta(capabilities) });
    server.handle(&post("tools/call", params), &ctx())
}

#[test]
fn a_tasks_client_that_cannot_be_asked_is_refused_before_any_step() {
    let steps = Rc::new(Cell::new(0));
    let server = server(steps.clone());
    let refused = call(&server, json!({ "extensions": { TASKS: {} } }));
    let Action::Respond(response) = refused else {
        panic!("{refused:?}")
    };
    let error = &body(&response)["error"];
    assert_eq!(error["code"], -32021);
    assert!(
        error["message"].as_str().unwrap().contains("elicitation"),
        "{error}"
    );
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({ "elicitation": {} })
    );
    assert_eq!(steps.get(), 0, "no step ran");
    // Declaring elicitation, it runs (and becomes a task).
    let action = run_action(
        &server,
        call(
            &server,
            json!({ "extensions": { TASKS: {} }, "elicitation": {} }),
        ),
    );
    assert!(matches!(action, Action::CreateTask { .. }), "{action:?}");
    assert_eq!(steps.get(), 1);
    // Without the extension: a job, whose question job_answer answers.
    let action = run_action(&server, call(&server, json!({})));
    assert!(matches!(action, Action::Detach { .. }), "{action:?}");
}

#[test]
fn tools_that_ask_in_their_task_say_so_too() {
    let tool = Tool::new("t", "").ask_in_task();
    assert!(tool.may_ask());
    assert!(!Tool::new("u", "").may_ask());
}
