//! Structured logs of the steps the Worker runs itself (`ops::log`, `server::drive`): an
//! inline run and a task's first step print `step.started` and `step.finished` like the
//! task object's steps, with the tool, the attempt, the duration on the host's clock, the
//! outcome and the caller's fingerprint; the adapter adds the request id. The core only
//! hands the lines over: `Server::run`'s `log` sink. At `info` (the default) a fast call
//! that completes prints nothing (Workers' own invocation log has it); a failed, an
//! `isError` or a slow one prints its `step.finished`.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::host::{Host, block_on, fake::FakeHost};
use mcp_tasks_edge::ops::log::{Level, Line, LogSettings, SLOW_INLINE_STEP_MS, fingerprint};
use mcp_tasks_edge::server::{Action, Config, Context, Server};
use mcp_tasks_edge::tools::{Call, Step, TaskSupport, Tool, ToolError};
use serde_json::json;
use std::cell::RefCell;
use std::time::Duration;

const ALICE: &str = "key:alice";

/// A step that takes 25 ms on the host's clock, then answers.
async fn quick(_call: Call, host: Host) -> Result<Step, ToolError> {
    host.sleep(25).await;
    Ok(Step::text("done"))
}

/// A step that takes as long as makes a call slow for the logs, then answers.
async fn slow(_call: Call, host: Host) -> Result<Step, ToolError> {
    host.sleep(SLOW_INLINE_STEP_MS).await;
    Ok(Step::text("done"))
}

/// A first step that continues after a wait: with tasks, it becomes a task.
fn waits(call: &Call) -> Step {
    if !call.has_checkpoint() {
        return Step::wait(Duration::from_secs(5)).checkpoint(json!(1));
    }
    Step::text("later")
}

fn tools_server(level: Level) -> Server {
    let mut config = Config::default();
    config.log.level = level;
    Server::builder("t")
        .config(config)
        .tools(vec![
            Tool::new("quick", "test").run_json(quick),
            Tool::new("slow", "test").run_json(slow),
            Tool::new("refuses", "test")
                .sync(|_| Step::Complete(mcp_tasks_edge::tools::error_result("no such file"))),
            Tool::new("waits", "test")
                .task(TaskSupport::Optional)
                .sync(waits),
            Tool::new("broken", "test")
                .sync(|_| Step::Fail(mcp_tasks_edge::tools::internal_error("the backend is down"))),
        ])
        .build()
}

/// Runs `tools/call` of `tool` as the Worker does, collecting the lines the adapter
/// would print (with the request id it adds).
fn run(server: &Server, tool: &str) -> (Action, Vec<String>) {
    let ctx = Context {
        principal: ALICE.into(),
        now_ms: NOW,
    };
    let request = post("tools/call", json!({ "name": tool, "arguments": {} }));
    let Action::Run(run) = server.handle(&request, &ctx) else {
        panic!("{tool} should run")
    };
    let host = Host::new(FakeHost::new().at(NOW));
    let lines: RefCell<Vec<Line>> = RefCell::default();
    let sink = |line: Line| lines.borrow_mut().push(line.request_id(Some("req-9")));
    let action = block_on(server.run(*run, &ctx, &host, &Default::default(), None, &sink));
    let debug = LogSettings {
        level: Level::Debug,
        payloads: false,
    };
    let rendered = lines
        .into_inner()
        .iter()
        .filter_map(|l| l.render(&debug))
        .collect();
    (action, rendered)
}

#[test]
fn an_inline_run_prints_its_step_started_and_finished_with_the_duration() {
    let (action, lines) = run(&tools_server(Level::Debug), "quick");
    assert!(matches!(action, Action::Respond(_)), "{action:?}");
    let p = fingerprint(ALICE);
    assert_eq!(
        lines,
        [
            format!(
                r#"{{"event":"step.started","level":"debug","tool":"quick","attempt":1,"principal":"{p}","requestId":"req-9","inline":true}}"#
            ),
            format!(
                r#"{{"event":"step.finished","level":"debug","tool":"quick","attempt":1,"durationMs":25,"principal":"{p}","requestId":"req-9","inline":true,"outcome":"completed"}}"#
            ),
        ]
    );
}

#[test]
fn at_info_a_fast_call_prints_nothing_a_slow_failed_or_error_one_its_finished_line() {
    let server = tools_server(Level::Info);
    let (action, lines) = run(&server, "quick");
    assert!(matches!(action, Action::Respond(_)), "{action:?}");
    assert_eq!(lines, Vec::<String>::new());
    let p = fingerprint(ALICE);
    let (_, lines) = run(&server, "slow");
    assert_eq!(
        lines,
        [format!(
            r#"{{"event":"step.finished","level":"info","tool":"slow","attempt":1,"durationMs":{SLOW_INLINE_STEP_MS},"principal":"{p}","requestId":"req-9","inline":true,"outcome":"completed"}}"#
        )]
    );
    let (_, lines) = run(&server, "refuses");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(r#"{"event":"step.finished","level":"info","tool":"refuses""#)
            && lines[0].ends_with(r#""outcome":"error_result"}"#),
        "{}",
        lines[0]
    );
    let (_, lines) = run(&server, "broken");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(r#"{"event":"step.finished","level":"warn","tool":"broken""#),
        "{}",
        lines[0]
    );
    // A task's first step goes on as the task, whose `task.created` line is the one.
    let (action, lines) = run(&server, "waits");
    assert!(matches!(action, Action::CreateTask { .. }), "{action:?}");
    assert_eq!(lines, Vec::<String>::new());
}

#[test]
fn a_tasks_first_step_and_a_failed_run_are_logged_too() {
    let server = tools_server(Level::Debug);
    let (action, lines) = run(&server, "waits");
    assert!(matches!(action, Action::CreateTask { .. }), "{action:?}");
    assert_eq!(lines.len(), 2);
    // Debug: the run goes on as the task, whose `task.created` line follows.
    assert!(
        lines[1].starts_with(r#"{"event":"step.finished","level":"debug","tool":"waits""#),
        "{}",
        lines[1]
    );
    assert!(
        lines[1].contains(r#""outcome":"continued""#),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains(r#""tool":"waits""#), "{}", lines[1]);
    let (_, lines) = run(&server, "broken");
    assert_eq!(lines.len(), 2);
    assert!(
        lines[1].starts_with(r#"{"event":"step.finished","level":"warn","tool":"broken""#),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains(r#""outcome":"failed""#), "{}", lines[1]);
    assert!(
        !lines[1].contains("backend"),
        "a tool's error is the task's, not the step's"
    );
}
