//! Every prompt, resource and template result the server emits on the 2026-07-28 path
//! (prompts answered by MRTR retries until they end), and a listen stream's
//! acknowledgement, notifications and closing result, checked against the official schemas
//! (tests/fixtures/schema). Tools, tasks and errors: tests/wire_results.rs.
//! Each result is also checked as a `Result`: `resultType` is required on all of them.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::object::{ID, Object};
use common::results::{Outcome, answers, outcome};
use common::schema::*;
use common::*;
use mcp_tasks_edge::server::Action;
use mcp_tasks_edge::server::fanin::{Command, Fanin, Opened};
use mcp_tasks_edge::server::listen::StreamLimits;
use mcp_tasks_edge::tasks::protocol::ObjectRequest;
use mcp_tasks_edge::tasks::watch::WatchMessage;
use serde_json::{Map, Value, json};

#[test]
fn every_prompt_resource_and_template_result_matches_the_schema() {
    let s = server();
    let result = |method: &str, params: Value| match outcome(&s, &post(method, params)) {
        Outcome::Body(200, body) => body["result"].clone(),
        Outcome::Body(status, body) => panic!("{method}: {status} {body}"),
        Outcome::Task(_) => panic!("{method} made a task"),
    };
    for prompt in &s.catalog.prompts {
        let definition = prompt.definition();
        let name = definition["name"].as_str().unwrap();
        let mut arguments = Map::new();
        for argument in definition["arguments"].as_array().into_iter().flatten() {
            arguments.insert(argument["name"].as_str().unwrap().into(), json!("x"));
        }
        let mut params = json!({ "name": name, "arguments": arguments });
        for round in 0..3 {
            let got = result("prompts/get", params.clone());
            let context = format!("prompts/get {name} round {round}");
            if got["resultType"] == "input_required" {
                check_result(&got, "InputRequiredResult", &context);
                params["inputResponses"] = answers(&got["inputRequests"]);
                params["requestState"] = got["requestState"].clone();
                continue;
            }
            check_result(&got, "GetPromptResult", &context);
            break;
        }
    }
    let listed = result("resources/list", json!({}));
    check_result(&listed, "ListResourcesResult", "resources/list");
    for resource in listed["resources"].as_array().unwrap() {
        let uri = resource["uri"].as_str().unwrap();
        check_result(
            &result("resources/read", json!({ "uri": uri })),
            "ReadResourceResult",
            uri,
        );
    }
    let templates = result("resources/templates/list", json!({}));
    check_result(&templates, "ListResourceTemplatesResult", "templates");
    for template in templates["resourceTemplates"].as_array().unwrap() {
        let uri = template["uriTemplate"]
            .as_str()
            .unwrap()
            .replace(['{', '}'], "");
        check_result(
            &result("resources/read", json!({ "uri": uri })),
            "ReadResourceResult",
            &uri,
        );
    }
    check_result(
        &result("server/discover", json!({})),
        "DiscoverResult",
        "discover",
    );
    check_result(
        &result("tools/list", json!({})),
        "ListToolsResult",
        "tools/list",
    );
    check_result(
        &result("prompts/list", json!({})),
        "ListPromptsResult",
        "prompts/list",
    );
}

#[test]
fn a_listen_stream_matches_the_schema() {
    let s = server();
    let Outcome::Task(record) = outcome(
        &s,
        &post(
            "tools/call",
            json!({ "name": "slow_compute", "arguments": { "seconds": 1 } }),
        ),
    ) else {
        panic!("expected a task")
    };
    let mut o = Object::new(s.registry.clone(), s.limits());
    o.request(ObjectRequest::Create { record }, "anonymous", NOW);
    let request = post(
        "subscriptions/listen",
        json!({ "notifications": { "taskIds": [ID, "f".repeat(32)] } }),
    );
    let Action::Listen(listen) = s.handle(&request, &ctx()) else {
        panic!()
    };
    let (mut fanin, _) = Fanin::start(*listen, StreamLimits::default(), NOW);
    let mut commands = fanin.opened(&"f".repeat(32), Opened::NotFound, NOW);
    commands.extend(fanin.opened(ID, Opened::Watching, NOW));
    commands.extend(fanin.message(ID, o.pushed[0].clone(), NOW));
    o.tick(NOW + 1000);
    let last: WatchMessage = o.pushed.last().cloned().unwrap();
    commands.extend(fanin.message(ID, last, NOW + 1000));
    let messages: Vec<Value> = commands
        .iter()
        .filter_map(|c| match c {
            Command::Send(bytes) => std::str::from_utf8(bytes)
                .unwrap()
                .strip_prefix("data: ")
                .map(|j| serde_json::from_str(j.trim()).unwrap()),
            _ => None,
        })
        .collect();
    assert_valid(
        CORE,
        "SubscriptionsAcknowledgedNotification",
        &messages[0],
        "ack",
    );
    assert_eq!(
        messages[0]["params"]["notifications"]["taskIds"],
        json!([ID])
    );
    let statuses: Vec<&str> = messages[1..messages.len() - 1]
        .iter()
        .map(|n| {
            assert_valid(
                TASKS_SCHEMA,
                "TaskStatusNotification",
                n,
                "notifications/tasks",
            );
            n["params"]["status"].as_str().unwrap()
        })
        .collect();
    assert_eq!(statuses, ["working", "completed"]);
    let closing = messages.last().unwrap();
    assert_valid(
        CORE,
        "SubscriptionsListenResultResponse",
        closing,
        "closing",
    );
    check_result(&closing["result"], "SubscriptionsListenResult", "closing");
}
