//! A gateway's tool list changes on `subscriptions/listen` (`toolsListChanged`;
//! docs/gateway.md, "When the tool list changes"): accepted and acknowledged only by a
//! gateway that tells of them (its `server/discover` says `tools.listChanged`), the list
//! looked at every `UPSTREAM_WATCH_CHECK_MS`, told once per change with the subscription's
//! id, and the stream kept open after its tasks ended.
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

mod common;
use common::*;
use mcp_tasks_edge::server::fanin::{Command, Fanin, Opened};
use mcp_tasks_edge::server::listen::{StreamLimits, tools_generation};
use mcp_tasks_edge::server::{Action, Config, Server};
use mcp_tasks_edge::tasks::watch::WatchMessage;
use serde_json::{Value, json};

const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

fn gateway(check_ms: &str) -> Server {
    let upstreams = r#"[{"name":"up","url":"https://up.example/mcp"}]"#;
    let config = Config::from_vars(|n| match n {
        "UPSTREAMS" => Some(upstreams.into()),
        "UPSTREAM_WATCH_CHECK_MS" => Some(check_ms.into()),
        _ => None,
    });
    Server::builder("gw").build().configure(config.unwrap())
}

fn limits() -> StreamLimits {
    StreamLimits {
        reconnects: 2,
        max_stream_ms: 600_000,
    }
}

fn sent(commands: &[Command]) -> Vec<Value> {
    let frames = commands.iter().filter_map(|c| match c {
        Command::Send(bytes) => String::from_utf8(bytes.clone()).ok(),
        _ => None,
    });
    let data = frames.filter_map(|f| f.strip_prefix("data: ").map(|j| j.trim().to_owned()));
    data.map(|json| serde_json::from_str(&json).unwrap())
        .collect()
}

fn discovered(server: &Server) -> Value {
    let request = post("server/discover", json!({}));
    match server.handle(&request, &ctx()) {
        Action::Respond(response) => serde_json::from_slice(&response.body).unwrap(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn only_a_gateway_that_tells_of_changes_accepts_tools_list_changed() {
    let tools = json!({ "toolsListChanged": true });
    let told = gateway("1000");
    assert_eq!(
        discovered(&told)["result"]["capabilities"]["tools"],
        json!({ "listChanged": true })
    );
    let (_, first) = Fanin::start(listen_of(&told, tools.clone()), limits(), NOW);
    let ack = &sent(&first)[0]["params"]["notifications"];
    assert_eq!(ack["toolsListChanged"], true);
    for quiet in [gateway("0"), server()] {
        assert_eq!(
            discovered(&quiet)["result"]["capabilities"]["tools"],
            json!({})
        );
        let (_, first) = Fanin::start(listen_of(&quiet, tools.clone()), limits(), NOW);
        assert!(
            sent(&first)[0]["params"]["notifications"]
                .get("toolsListChanged")
                .is_none()
        );
    }
    let refused = post(
        "subscriptions/listen",
        json!({ "notifications": { "toolsListChanged": "yes" } }),
    );
    let Action::Respond(refused) = told.handle(&refused, &ctx()) else {
        panic!("not refused")
    };
    assert!(String::from_utf8_lossy(&refused.body).contains("-32602"));
}

#[test]
fn the_list_is_looked_at_every_check_and_each_change_told_once() {
    let server = gateway("1000");
    let listen = listen_of(&server, json!({ "toolsListChanged": true }));
    let generation = tools_generation(&server);
    assert_eq!(listen.tools.unwrap().generation, generation);
    let (mut fanin, _) = Fanin::start(listen, limits(), NOW);
    assert_eq!(fanin.next_tick_ms(), NOW + 1_000);
    assert!(!fanin.tick(NOW + 999).contains(&Command::CheckTools));
    assert_eq!(fanin.tick(NOW + 1_000), [Command::CheckTools]);
    assert!(
        fanin.tools(generation, NOW + 1_001).is_empty(),
        "unchanged: nothing told"
    );
    assert_eq!(fanin.tick(NOW + 2_000), [Command::CheckTools]);
    let told = sent(&fanin.tools(generation ^ 1, NOW + 2_001));
    assert_eq!(told.len(), 1);
    assert_eq!(told[0]["method"], "notifications/tools/list_changed");
    assert_eq!(
        told[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
    assert!(
        fanin.tools(generation ^ 1, NOW + 2_500).is_empty(),
        "told once"
    );
}

#[test]
fn a_stream_that_tells_of_tool_changes_outlives_its_tasks() {
    let server = gateway("1000");
    let listen = listen_of(&server, json!({ "toolsListChanged": true, "taskIds": [A] }));
    let (mut fanin, _) = Fanin::start(listen, limits(), NOW);
    fanin.opened(A, Opened::Watching, NOW);
    let done = json!({ "taskId": A, "status": "completed" });
    let commands = fanin.message(
        A,
        WatchMessage::Task {
            version: 1,
            task: done,
        },
        NOW + 1,
    );
    assert!(
        !commands.iter().any(|c| matches!(c, Command::End { .. })),
        "{commands:?}"
    );
    assert!(!fanin.ended());
    let renewed = fanin.tick(NOW + 600_000);
    assert_eq!(
        renewed.last(),
        Some(&Command::End { graceful: false }),
        "renewed as any stream"
    );
}
