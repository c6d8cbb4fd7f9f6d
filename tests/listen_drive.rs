//! The listen stream's driver (`server::fanin::Drive`) on a platform that only records and
//! answers as scripted: opens due together run together, a lost socket is forgotten and
//! reopened when its backoff is due (the driver's timer, not the platform's), a state too
//! large to push is read, and the body ends after the graceful result.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::server::fanin::{Drive, Opened, Watching, Woken};
use mcp_tasks_edge::server::listen::StreamLimits;
use mcp_tasks_edge::tasks::watch::WatchMessage;
use serde_json::{Value, json};
use std::collections::VecDeque;

const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

#[derive(Debug, PartialEq)]
enum Did {
    Open(Vec<String>),
    Close(String),
    Forget(String),
    Get(String),
    Wait(u64),
}

/// Records what the driver asks; opens answer `Watching` unless scripted otherwise, waits
/// answer the script in turn (and move the clock to a timer's time).
struct Platform {
    did: Vec<Did>,
    now: u64,
    refused: Vec<&'static str>,
    script: VecDeque<Woken>,
    read: Option<Value>,
}

impl Watching for Platform {
    async fn open(&mut self, task_ids: &[String]) -> Vec<Opened> {
        self.did.push(Did::Open(task_ids.to_vec()));
        let refused = |id: &String| self.refused.contains(&id.as_str());
        let outcome = |id| {
            if refused(id) {
                Opened::NotFound
            } else {
                Opened::Watching
            }
        };
        task_ids.iter().map(outcome).collect()
    }
    fn close(&mut self, task_id: &str) {
        self.did.push(Did::Close(task_id.into()));
    }
    fn forget(&mut self, task_id: &str) {
        self.did.push(Did::Forget(task_id.into()));
    }
    async fn get(&mut self, task_id: &str) -> Result<Option<Value>, String> {
        self.did.push(Did::Get(task_id.into()));
        Ok(self.read.take())
    }
    async fn tools(&mut self) -> Option<u64> {
        None
    }
    async fn wait(&mut self, until_ms: u64) -> Woken {
        self.did.push(Did::Wait(until_ms));
        let woken = self
            .script
            .pop_front()
            .expect("the script covers every wait");
        if woken == Woken::Timer {
            self.now = until_ms;
        }
        woken
    }
    fn now_ms(&self) -> u64 {
        self.now
    }
}

fn task(id: &str, status: &str) -> Value {
    json!({ "taskId": id, "status": status })
}

/// The stream's body to its end: each SSE message's method (or "keepalive").
fn body(drive: &mut Drive, p: &mut Platform) -> Vec<String> {
    let mut methods = Vec::new();
    while let Some(chunk) = block_on(drive.next_chunk(p)) {
        let text = String::from_utf8(chunk).unwrap();
        methods.push(match text.strip_prefix("data: ") {
            Some(json) => {
                let message: Value = serde_json::from_str(json.trim()).unwrap();
                let status = &message["params"]["status"];
                match (message["method"].as_str(), status.as_str()) {
                    (Some(method), Some(status)) => format!("{method} {status}"),
                    (Some(method), None) => method.to_owned(),
                    (None, _) => "result".to_owned(),
                }
            }
            None => "keepalive".to_owned(),
        });
    }
    methods
}

#[test]
fn a_lost_socket_is_reopened_when_its_backoff_is_due_and_the_stream_ends_cleanly() {
    let limits = StreamLimits {
        reconnects: 2,
        max_stream_ms: 600_000,
    };
    let listen = listen_of(&server(), json!({ "taskIds": [A, B] }));
    let mut drive = Drive::start(listen, limits, NOW);
    let task_a = |status| WatchMessage::Task {
        version: 0,
        task: task(A, status),
    };
    let mut p = Platform {
        did: Vec::new(),
        now: NOW,
        refused: vec![B],
        script: VecDeque::from([
            Woken::Pushed(A.into(), task_a("working")),
            Woken::Lost(A.into()),
            Woken::Timer,
            Woken::Pushed(A.into(), WatchMessage::Changed { version: 2 }),
        ]),
        read: Some(task(A, "completed")),
    };
    let methods = body(&mut drive, &mut p);
    assert_eq!(
        methods,
        [
            "notifications/subscriptions/acknowledged",
            "notifications/tasks working",
            "notifications/tasks completed",
            "result",
        ]
    );
    let keepalive = NOW + 15_000;
    assert_eq!(
        p.did,
        [
            Did::Open(vec![A.into(), B.into()]),
            Did::Wait(keepalive),
            Did::Wait(keepalive),
            // The reopen's backoff (250 ms) comes before the keep-alive.
            Did::Forget(A.into()),
            Did::Wait(NOW + 250),
            Did::Open(vec![A.into()]),
            // Nothing sent since the working state: the keep-alive is still due then.
            Did::Wait(keepalive),
            Did::Get(A.into()),
            Did::Close(A.into()),
        ]
    );
}
