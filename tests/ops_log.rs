//! Structured logs (`ops::log`): the exact lines a task's life prints (golden), what
//! `LOG_LEVEL` and `LOG_PAYLOADS` change, and that no argument, answer, result or secret
//! reaches a line unless `LOG_PAYLOADS` says so.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::NOW;
use common::object::{ID, Object};
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::ops::log::{self, Level, Line, LogSettings, fingerprint};
use mcp_tasks_edge::server::Server;
use mcp_tasks_edge::tasks::execution::Limits;
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::record::{LEASE_CHECK_MS, NewTask, TaskRecord};
use mcp_tasks_edge::tools::{Call, Step, TaskSupport, Tool, internal_error};
use mcp_tasks_edge::vars::ConfigError;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// Stands for anything a caller sends or a tool computes: it must never be logged.
const SECRET: &str = "s3cr3t-marker";
const OWNER: &str = "key:alice";

const LIMITS: Limits = Limits {
    max_attempts: 2,
    lease_ms: 60_000,
    max_result_bytes: 1 << 20,
};

/// A tool whose every step carries the caller's data: the arguments in its checkpoint
/// and status message, a question quoting them, the answer in its result.
fn leaky(call: &Call) -> Step {
    let secret = call.str_arg("secret").unwrap_or_default().to_owned();
    if !call.has_checkpoint() {
        return Step::wait(Duration::from_secs(1))
            .checkpoint(json!({ "secret": secret }))
            .message(format!("Working on {secret}"));
    }
    match call.answers.get("confirm") {
        None => Step::ask(
            "confirm",
            json!({ "method": "elicitation/create", "params": { "mode": "form",
                "message": format!("Really {secret}?"),
                "requestedSchema": { "type": "object", "properties": { "ok": { "type": "string" } } } } }),
        ),
        Some(answer) => Step::text(format!("done {secret} {answer}")),
    }
}

fn object() -> Object {
    let tools = vec![
        // Each step takes 7 ms of the fake host's clock, the one durations are read on.
        Tool::new("leaky", "test")
            .task(TaskSupport::Required)
            .run_json(|call, host| async move {
                host.sleep(7).await;
                Ok(leaky(&call))
            }),
        Tool::new("broken", "test")
            .task(TaskSupport::Required)
            .sync(|_| Step::Fail(internal_error("the backend is down"))),
    ];
    let server = Server::builder("t").tools(tools).build();
    Object::new(server.registry, LIMITS)
}

fn start(o: &mut Object, tool: &str) {
    let mut record = TaskRecord::new(NewTask {
        tool: tool.into(),
        title: None,
        owner: OWNER.into(),
        arguments: json!({ "secret": SECRET }).as_object().unwrap().clone(),
        capabilities: json!({ "elicitation": {} }).as_object().unwrap().clone(),
        checkpoint: Value::Null,
        answers: Map::new(),
        status_message: None,
        amount: None,
        now_ms: NOW,
        ttl_ms: Some(3_600_000),
        poll_interval_ms: 1000,
        next_step_at_ms: NOW,
    });
    record.assign_id(ID.into());
    let reply = o.request(
        ObjectRequest::Create {
            record: Box::new(record),
        },
        OWNER,
        NOW,
    );
    assert!(matches!(reply, ObjectReply::Result(_)), "{reply:?}");
}

fn rendered(lines: &[Line], settings: &LogSettings) -> Vec<String> {
    lines.iter().filter_map(|l| l.render(settings)).collect()
}

/// The life of a `leaky` task: created, a step, a question, the answer, the result.
fn lifecycle() -> Object {
    let mut o = object();
    start(&mut o, "leaky");
    o.tick(NOW);
    o.tick(NOW + 1000);
    let answers = json!({ "confirm#1": { "action": "accept", "content": { "ok": SECRET } } });
    assert_eq!(
        o.update_as(answers, OWNER, NOW + 1500),
        ObjectReply::Result(json!({ "resultType": "complete" }))
    );
    o.tick(NOW + 1500);
    assert_eq!(o.get_as(OWNER, NOW + 1600)["status"], "completed");
    o
}

#[test]
fn a_fingerprint_is_a_short_stable_hash_of_the_name() {
    assert_eq!(fingerprint(OWNER), "ce597ac46d430f16");
    assert_eq!(fingerprint("anonymous"), "2f183a4e64493af3");
    assert_ne!(fingerprint("key:alice"), fingerprint("key:alicf"));
}

/// At `info` a task's life is its transitions, a line each (every line is a billed event
/// with Workers Logs): its steps' `step.finished` lines are debug.
#[test]
fn a_task_life_prints_these_lines() {
    let o = lifecycle();
    let t = format!(r#""taskId":"{ID}","tool":"leaky""#);
    let p = r#""principal":"ce597ac46d430f16""#;
    assert_eq!(
        rendered(&o.logged, &LogSettings::default()),
        [
            format!(r#"{{"event":"task.created","level":"info",{t},{p},"requestId":"req-1"}}"#),
            format!(
                r#"{{"event":"task.input_requested","level":"info",{t},"attempt":1,{p},"inputs":1}}"#
            ),
            format!(
                r#"{{"event":"task.input_answered","level":"info",{t},{p},"requestId":"req-1","status":"working"}}"#
            ),
            format!(
                r#"{{"event":"task.completed","level":"info",{t},"attempt":1,"durationMs":1500,{p},"isError":false}}"#
            ),
        ]
    );
}

#[test]
fn debug_shows_steps_and_error_shows_only_errors() {
    let o = lifecycle();
    let debug = LogSettings {
        level: Level::Debug,
        payloads: false,
    };
    let started: Vec<String> = rendered(&o.logged, &debug)
        .into_iter()
        .filter(|l| l.contains("step.started"))
        .collect();
    assert_eq!(started.len(), 3);
    assert_eq!(
        started[0],
        format!(
            r#"{{"event":"step.started","level":"debug","taskId":"{ID}","tool":"leaky","attempt":1,"principal":"ce597ac46d430f16"}}"#
        )
    );
    let finished: Vec<String> = rendered(&o.logged, &debug)
        .into_iter()
        .filter(|l| l.contains("step.finished"))
        .collect();
    assert_eq!(
        finished,
        ["continued", "input_required", "completed"].map(|outcome| format!(
            r#"{{"event":"step.finished","level":"debug","taskId":"{ID}","tool":"leaky","attempt":1,"durationMs":7,"principal":"ce597ac46d430f16","outcome":"{outcome}"}}"#
        ))
    );
    let errors = LogSettings {
        level: Level::Error,
        payloads: false,
    };
    assert!(rendered(&o.logged, &errors).is_empty());
}

#[test]
fn nothing_of_the_callers_data_is_logged_unless_log_payloads_says_so() {
    let o = lifecycle();
    for level in [Level::Debug, Level::Info] {
        let settings = LogSettings {
            level,
            payloads: false,
        };
        for line in rendered(&o.logged, &settings) {
            assert!(!line.contains(SECRET), "leaked: {line}");
            assert!(!line.contains("Working on"), "a status message: {line}");
            assert!(!line.contains("Really"), "a question: {line}");
        }
    }
    // The marker is there to be found: with LOG_PAYLOADS the same lines carry it.
    let payloads = LogSettings {
        level: Level::Info,
        payloads: true,
    };
    let lines = rendered(&o.logged, &payloads);
    let with = |event: &str| {
        lines
            .iter()
            .find(|l| l.contains(&format!(r#""event":"{event}""#)))
            .unwrap()
            .clone()
    };
    assert!(with("task.created").ends_with(&format!(r#""arguments":{{"secret":"{SECRET}"}}}}"#)));
    assert!(with("task.input_requested").contains("Really s3cr3t-marker?"));
    assert!(with("task.input_answered").contains(&format!(r#""ok":"{SECRET}""#)));
    assert!(with("task.completed").contains(&format!("done {SECRET}")));
}

#[test]
fn failures_retries_cancels_and_expiry_say_why() {
    let mut o = object();
    start(&mut o, "broken");
    o.tick(NOW + 40);
    let failed = o.logged.last().unwrap().render(&LogSettings::default());
    assert_eq!(
        failed.unwrap(),
        format!(
            r#"{{"event":"task.failed","level":"error","taskId":"{ID}","tool":"broken","attempt":1,"durationMs":40,"principal":"ce597ac46d430f16","error":"the backend is down","code":-32603}}"#
        )
    );

    // Lost attempts: each retry is a warning, then the task fails naming the attempts.
    let mut o = object();
    start(&mut o, "leaky");
    assert_eq!(o.plan(NOW), Some(1));
    o.restart();
    assert_eq!(o.plan(NOW + LEASE_CHECK_MS), Some(2));
    o.restart();
    assert_eq!(o.plan(NOW + 2 * LEASE_CHECK_MS), None);
    let lines = rendered(&o.logged, &LogSettings::default());
    assert_eq!(
        lines[1],
        format!(
            r#"{{"event":"step.retried","level":"warn","taskId":"{ID}","tool":"leaky","attempt":2,"principal":"ce597ac46d430f16","error":"attempt 1 was lost (a crash, an eviction, a deploy or a step longer than its lease); the step runs again"}}"#
        )
    );
    assert!(
        lines[2].starts_with(&format!(
            r#"{{"event":"task.failed","level":"error","taskId":"{ID}","tool":"leaky","attempt":2,"durationMs":{},"principal":"ce597ac46d430f16","error":"The tool \"leaky\" did not finish a step in 2 attempts"#,
            2 * LEASE_CHECK_MS
        )),
        "{}",
        lines[2]
    );

    // A cancel by an operator says so; expiry names the status it ended in.
    let mut o = object();
    start(&mut o, "leaky");
    let reply = o.request(
        ObjectRequest::OperatorCancel { task_id: ID.into() },
        "admin:ops",
        NOW + 10,
    );
    assert_eq!(
        reply,
        ObjectReply::Result(json!({ "resultType": "complete" }))
    );
    o.tick(NOW + 3_600_000);
    let lines = rendered(&o.logged, &LogSettings::default());
    assert_eq!(
        lines[1..],
        [
            format!(
                r#"{{"event":"task.cancelled","level":"info","taskId":"{ID}","tool":"leaky","durationMs":10,"principal":"ce597ac46d430f16","requestId":"req-1","by":"operator"}}"#
            ),
            format!(
                r#"{{"event":"task.expired","level":"info","taskId":"{ID}","tool":"leaky","principal":"ce597ac46d430f16","status":"cancelled"}}"#
            ),
        ]
    );
}

#[test]
fn refusals_name_the_reason_or_the_limit_and_never_the_token() {
    let settings = LogSettings::default();
    let unauthorized = McpError::Unauthorized {
        error: Some("invalid_token"),
        message: "Invalid access token: the signature does not verify".into(),
    };
    assert_eq!(
        log::refused(&unauthorized, None, Some("r1"))
            .unwrap()
            .render(&settings)
            .unwrap(),
        r#"{"event":"auth.refused","level":"warn","requestId":"r1","error":"Unauthorized: Invalid access token: the signature does not verify","reason":"invalid_token","status":401}"#
    );
    let missing = McpError::Unauthorized {
        error: None,
        message: "Authentication required".into(),
    };
    assert!(
        log::refused(&missing, None, None)
            .unwrap()
            .render(&settings)
            .unwrap()
            .contains(r#""reason":"no_credentials""#)
    );
    let quota = McpError::TooManyRequests {
        limit: "QUOTA_LIVE_TASKS",
        max: 2,
        retry_after_s: 5,
    };
    assert_eq!(
        log::refused(&quota, Some(OWNER), Some("r2"))
            .unwrap()
            .render(&settings)
            .unwrap(),
        r#"{"event":"quota.refused","level":"warn","principal":"ce597ac46d430f16","requestId":"r2","error":"Too many requests: this caller has the most unfinished tasks allowed at once (QUOTA_LIVE_TASKS = 2); retry in 5 s","limit":"QUOTA_LIVE_TASKS","max":2}"#
    );
    assert_eq!(
        log::refused(&McpError::TaskNotFound, None, None),
        None,
        "only refusals are logged"
    );
    let opened = log::session(
        log::event::SESSION_OPENED,
        "s1",
        "anonymous-session:s1",
        None,
    );
    assert_eq!(
        opened.render(&settings).unwrap(),
        r#"{"event":"session.opened","level":"info","principal":"6ce405818bd6f1bd","session":"e8bc163c82eee187"}"#
    );
}

#[test]
fn log_settings_come_from_log_level_and_log_payloads() {
    let vars = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    };
    let defaults = LogSettings::default();
    assert_eq!(defaults.level, Level::Info);
    assert!(!defaults.payloads);
    let set = defaults
        .with_vars(vars(&[("LOG_LEVEL", "DEBUG"), ("LOG_PAYLOADS", "true")]))
        .unwrap();
    assert_eq!(
        set,
        LogSettings {
            level: Level::Debug,
            payloads: true
        }
    );
    assert_eq!(
        defaults.with_vars(vars(&[("LOG_LEVEL", "loud")])),
        Err(ConfigError::new(
            "LOG_LEVEL",
            "LOG_LEVEL must be debug, info, warn or error, got \"loud\""
        ))
    );
    assert_eq!(
        defaults.with_vars(vars(&[("LOG_PAYLOADS", "yes")])),
        Err(ConfigError::new(
            "LOG_PAYLOADS",
            "LOG_PAYLOADS must be true or false, got \"yes\""
        ))
    );
    // Through the server's configuration, as a deployment sets it.
    let config = mcp_tasks_edge::server::Config::from_vars(vars(&[("LOG_LEVEL", "warn")]));
    assert_eq!(config.unwrap().log.level, Level::Warn);
}

#[test]
fn long_errors_are_cut() {
    let line = Line::new("x", Level::Error).error(&"e".repeat(2000));
    let text = line.render(&LogSettings::default()).unwrap();
    assert!(text.len() < 600, "{}", text.len());
    assert!(text.contains("e…"));
}

#[test]
fn the_js_panic_guard_prints_the_panic_event_in_the_same_format() {
    let guard = include_str!("../src/cloudflare/guard.js");
    let head = format!(
        "{{ event: '{}', level: '{}' }}",
        log::event::PANIC,
        Level::Error.name()
    );
    assert!(guard.contains(&head), "guard.js lacks {head}");
    assert!(guard.contains("console.log(JSON.stringify(line))"));
}
