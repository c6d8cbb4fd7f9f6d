//! The task state machine as a full transition table: every event in every status
//! (ext-tasks "Task Status State Diagram").
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::jsonrpc::{ErrorCode, ErrorObject};
use mcp_tasks_edge::tasks::machine::{Event, Illegal, apply};
use mcp_tasks_edge::tasks::task::{StatusKind, TaskStatus};
use serde_json::{Map, Value, json};

fn requests(keys: &[&str]) -> Map<String, Value> {
    keys.iter()
        .map(|k| {
            (
                k.to_string(),
                json!({ "method": "roots/list", "params": {} }),
            )
        })
        .collect()
}

fn error() -> ErrorObject {
    ErrorObject {
        code: ErrorCode::INTERNAL_ERROR,
        message: "boom".into(),
        data: None,
    }
}

fn statuses() -> Vec<TaskStatus> {
    vec![
        TaskStatus::Working,
        TaskStatus::InputRequired {
            input_requests: requests(&["a#1", "b#1"]),
        },
        TaskStatus::Completed {
            result: json!({ "content": [] }),
        },
        TaskStatus::Failed { error: error() },
        TaskStatus::Cancelled,
    ]
}

fn events() -> Vec<Event> {
    vec![
        Event::Progressed,
        Event::InputNeeded(requests(&["q#2"])),
        Event::InputNeeded(Map::new()),
        Event::InputAnswered {
            remaining: requests(&["b#1"]),
        },
        Event::InputAnswered {
            remaining: Map::new(),
        },
        Event::Completed(json!({ "content": [] })),
        Event::Failed(error()),
        Event::Cancelled,
    ]
}

/// The expected outcome, written out as the diagram says, independent of the code.
fn expected(status: &TaskStatus, event: &Event) -> Result<&'static str, &'static str> {
    use TaskStatus as S;
    match (status, event) {
        (S::Completed { .. } | S::Failed { .. } | S::Cancelled, _) => Err("terminal"),
        (S::Working, Event::Progressed) => Ok("working"),
        (S::Working, Event::InputNeeded(r)) if !r.is_empty() => Ok("input_required"),
        (S::Working, Event::InputNeeded(_)) => Err("unexpected"),
        (S::Working, Event::InputAnswered { .. }) => Err("unexpected"),
        (S::Working, Event::Completed(_)) => Ok("completed"),
        (S::Working | S::InputRequired { .. }, Event::Failed(_)) => Ok("failed"),
        (S::Working | S::InputRequired { .. }, Event::Cancelled) => Ok("cancelled"),
        (S::InputRequired { .. }, Event::InputAnswered { remaining }) if remaining.is_empty() => {
            Ok("working")
        }
        (S::InputRequired { .. }, Event::InputAnswered { .. }) => Ok("input_required"),
        (
            S::InputRequired { .. },
            Event::Progressed | Event::InputNeeded(_) | Event::Completed(_),
        ) => Err("unexpected"),
    }
}

#[test]
fn every_event_in_every_status() {
    let mut checked = 0;
    for status in statuses() {
        for event in events() {
            let want = expected(&status, &event);
            let got = apply(&status, event.clone());
            match (want, &got) {
                (Ok(name), Ok(next)) => {
                    assert_eq!(next.name(), name, "{} + {:?}", status.name(), event)
                }
                (Err("terminal"), Err(Illegal::Terminal { status: s })) => {
                    assert_eq!(*s, status.name())
                }
                (
                    Err("unexpected"),
                    Err(Illegal::Unexpected {
                        status: s,
                        event: e,
                    }),
                ) => {
                    assert_eq!((*s, *e), (status.name(), event.name()))
                }
                (want, got) => panic!(
                    "{} + {:?}: expected {want:?}, got {got:?}",
                    status.name(),
                    event
                ),
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 5 * 8);
}

#[test]
fn payloads_travel_with_the_status() {
    let next = apply(
        &TaskStatus::Working,
        Event::Completed(json!({ "content": [{ "type": "text", "text": "ok" }] })),
    )
    .unwrap();
    assert_eq!(
        next,
        TaskStatus::Completed {
            result: json!({ "content": [{ "type": "text", "text": "ok" }] })
        }
    );
    let waiting = TaskStatus::InputRequired {
        input_requests: requests(&["a#1", "b#1"]),
    };
    let next = apply(
        &waiting,
        Event::InputAnswered {
            remaining: requests(&["b#1"]),
        },
    )
    .unwrap();
    assert_eq!(
        next,
        TaskStatus::InputRequired {
            input_requests: requests(&["b#1"])
        }
    );
    let next = apply(&TaskStatus::Working, Event::Failed(error())).unwrap();
    assert_eq!(next, TaskStatus::Failed { error: error() });
}

/// One definition of a status's name and of terminal: a status read back from its own
/// JSON (as a `DetailedTask` carries it) has the same kind, name and terminality, both
/// through the payload-free `StatusKind` readers of JSON use and through `TaskStatus`.
#[test]
fn every_status_reads_back_as_the_same_kind() {
    for status in statuses() {
        let json = serde_json::to_value(&status).unwrap();
        let kind = StatusKind::of_task(&json).expect("a status names its kind");
        assert_eq!(kind, status.kind());
        assert_eq!(kind.name(), status.name());
        assert_eq!(StatusKind::from_name(status.name()), Some(kind));
        assert_eq!(kind.is_terminal(), status.is_terminal());
        assert_eq!(TaskStatus::of_task(&json).unwrap(), status);
        assert_eq!(
            kind.is_terminal(),
            matches!(kind.name(), "completed" | "failed" | "cancelled")
        );
    }
    assert_eq!(StatusKind::of_task(&json!({ "status": "paused" })), None);
    assert_eq!(StatusKind::of_task(&json!({})), None);
}
