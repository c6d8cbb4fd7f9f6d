//! The one interpreter of `Action` (`server::perform`) on effects that only record: when a
//! run is counted (before any stream opens: a refusal keeps its 429 and `Retry-After` in
//! both eras), which answers are streamed in each era, how a job's questions travel, each
//! era's shape of an answer. Reordering or dropping an effect fails a test here.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::effects::Recorded;
use common::*;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::http::HttpResponse;
use mcp_tasks_edge::server::call::Asker;
use mcp_tasks_edge::server::era::Era;
use mcp_tasks_edge::server::perform::{Performed, Stage, perform};
use mcp_tasks_edge::server::{Action, Server};
use mcp_tasks_edge::tools::Progress;
use serde_json::{Map, Value, json};

/// Never asked here: its presence is what the rule reads.
struct NoAsker;

impl Asker for NoAsker {
    fn ask(
        &self,
        _: Map<String, Value>,
    ) -> mcp_tasks_edge::host::BoxFuture<'_, Result<Map<String, Value>, McpError>> {
        unreachable!("no step asks in these tests")
    }
}

fn stage<'a>(era: Era, streams: bool, streaming: bool, progress: &'a Progress) -> Stage<'a> {
    Stage {
        era,
        streams,
        streaming,
        progress,
        asker: (era == Era::Legacy).then_some(&NoAsker as &dyn Asker),
        origin: "https://edge.example",
    }
}

fn call(name: &str, arguments: Value, meta_extra: Value) -> Action {
    let mut meta = meta(json!({}));
    meta.as_object_mut()
        .unwrap()
        .extend(meta_extra.as_object().unwrap().clone());
    let params = json!({ "name": name, "arguments": arguments, "_meta": meta });
    server().handle(&post("tools/call", params), &ctx())
}

fn performed(server: &Server, action: Action, fx: &Recorded, stage: &Stage) -> Performed {
    block_on(perform(server, &ctx(), action, fx, stage))
}

fn answer(performed: Performed) -> HttpResponse {
    match performed {
        Performed::Answer(response) => response,
        Performed::Stream(_) => panic!("expected an answer, got a stream"),
        Performed::Listen(_) => panic!("expected an answer, got a listen stream"),
    }
}

#[test]
fn a_run_over_quota_is_429_with_retry_after_in_both_eras_and_never_a_stream() {
    for (era, streams, token) in [
        (Era::Modern, false, json!({})),
        (Era::Modern, true, json!({ "progressToken": "p" })),
        (Era::Legacy, false, json!({})),
        (Era::Legacy, true, json!({})),
    ] {
        let fx = Recorded {
            over_quota: true,
            ..Recorded::default()
        };
        let progress = Progress::default();
        let action = call("greet", json!({ "name": "Ada" }), token);
        let response = answer(performed(
            &server(),
            action,
            &fx,
            &stage(era, streams, false, &progress),
        ));
        assert_eq!(response.status, 429, "{era:?} streams={streams}");
        let retry = response
            .headers
            .iter()
            .find(|(name, _)| *name == "retry-after");
        assert_eq!(retry.map(|(_, value)| value.as_str()), Some("5"));
        assert_eq!(
            body(&response)["error"]["data"]["limit"],
            "QUOTA_TASKS_PER_MINUTE"
        );
        assert_eq!(
            fx.calls(),
            ["ledger anonymous \"acquireRun\""],
            "nothing ran"
        );
    }
}

#[test]
fn a_run_is_counted_once_before_its_stream_opens_not_again_on_it() {
    let (server, fx, progress) = (server(), Recorded::default(), Progress::default());
    let action = call(
        "greet",
        json!({ "name": "Ada" }),
        json!({ "progressToken": "p" }),
    );
    let Performed::Stream(streamed) = performed(
        &server,
        action,
        &fx,
        &stage(Era::Modern, true, false, &progress),
    ) else {
        panic!("a call that asked for progress is streamed")
    };
    assert_eq!(streamed.token, Some(json!("p")));
    assert_eq!(fx.calls(), ["ledger anonymous \"acquireRun\""]);
    let on_stream = stage(Era::Modern, true, true, &progress);
    let response = answer(performed(&server, streamed.action, &fx, &on_stream));
    assert_eq!(
        body(&response)["result"]["content"][0]["text"],
        "Hello, Ada!"
    );
    assert_eq!(
        fx.calls(),
        ["ledger anonymous \"acquireRun\""],
        "not counted twice"
    );
}

#[test]
fn which_answers_are_streamed_in_each_era() {
    // (era, the client takes a stream, a progress token) → streamed
    for (era, streams, token, expected) in [
        (Era::Modern, false, false, false),
        (Era::Modern, true, false, false),
        (Era::Modern, true, true, true),
        (Era::Modern, false, true, true),
        (Era::Legacy, false, false, false),
        (Era::Legacy, true, false, true),
        (Era::Legacy, false, true, false),
    ] {
        let fx = Recorded::default();
        let progress = Progress::default();
        let meta = match token {
            true => json!({ "progressToken": 1 }),
            false => json!({}),
        };
        let action = call("greet", json!({ "name": "Ada" }), meta);
        let got = performed(
            &server(),
            action,
            &fx,
            &stage(era, streams, false, &progress),
        );
        assert_eq!(
            matches!(got, Performed::Stream(_)),
            expected,
            "{era:?} streams={streams} token={token}"
        );
    }
}

#[test]
fn a_job_is_detached_on_a_stream_when_the_client_takes_one_and_its_questions_travel_by_era() {
    let slow = || call("slow_compute", json!({ "seconds": 90 }), json!({}));
    let progress = Progress::default();
    // The 2026-07-28 endpoint: the run answers inline first, then the wait is streamed
    // to a client that takes a stream (its leaving is noticed), JSON to one that does not.
    let fx = Recorded::default();
    let Performed::Stream(streamed) = performed(
        &server(),
        slow(),
        &fx,
        &stage(Era::Modern, true, false, &progress),
    ) else {
        panic!("a wait the client can leave is streamed")
    };
    answer(performed(
        &server(),
        streamed.action,
        &fx,
        &stage(Era::Modern, true, true, &progress),
    ));
    let fx_json = Recorded::default();
    answer(performed(
        &server(),
        slow(),
        &fx_json,
        &stage(Era::Modern, false, false, &progress),
    ));
    // A 2025-11-25 session asks on its stream; one that takes no stream cannot be asked.
    let fx_legacy = Recorded::default();
    answer(performed(
        &server(),
        slow(),
        &fx_legacy,
        &stage(Era::Legacy, false, false, &progress),
    ));
    let detach = "detach anonymous slow_compute";
    assert_eq!(
        fx.calls(),
        [
            "ledger anonymous \"acquireRun\"".into(),
            format!("{detach} asks=true asker=false")
        ]
    );
    assert_eq!(
        fx_json.calls()[1],
        format!("{detach} asks=true asker=false")
    );
    assert_eq!(
        fx_legacy.calls()[1],
        format!("{detach} asks=false asker=false")
    );
}

#[test]
fn a_session_s_answers_are_shaped_for_2025_11_25_and_the_endpoint_s_are_not() {
    let list = || server().handle(&post("tools/list", json!({})), &ctx());
    let progress = Progress::default();
    let fx = Recorded::default();
    let modern = answer(performed(
        &server(),
        list(),
        &fx,
        &stage(Era::Modern, false, false, &progress),
    ));
    let legacy = answer(performed(
        &server(),
        list(),
        &fx,
        &stage(Era::Legacy, false, false, &progress),
    ));
    assert_eq!(body(&modern)["result"]["resultType"], "complete");
    assert_eq!(body(&legacy)["result"].get("resultType"), None);
    assert_eq!(body(&legacy)["result"].get("ttlMs"), None);
    assert_eq!(
        body(&legacy)["result"]["tools"],
        body(&modern)["result"]["tools"]
    );
    assert!(
        fx.calls().is_empty(),
        "a list is answered without an effect"
    );
}

#[test]
fn object_requests_listing_and_listen_go_to_their_effects() {
    let server = server();
    let progress = Progress::default();
    let fx = Recorded::default();
    let get = post("tasks/get", json!({ "taskId": SID }));
    let unreachable = answer(performed(
        &server,
        server.handle(&get, &ctx()),
        &fx,
        &stage(Era::Modern, false, false, &progress),
    ));
    assert_eq!(body(&unreachable)["error"]["code"], -32603);
    assert!(
        body(&unreachable)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the object is gone")
    );
    let list = post("mcp-tasks-edge/tasks/list", json!({}));
    let page = answer(performed(
        &server,
        server.handle(&list, &ctx()),
        &fx,
        &stage(Era::Modern, false, false, &progress),
    ));
    assert_eq!(body(&page)["result"]["tasks"], json!([]));
    // An anonymous caller owns no list: its index is not even asked (tests/listing.rs).
    assert_eq!(fx.calls(), [format!("forward {SID}")]);
    let mut listen = post("subscriptions/listen", json!({ "notifications": {} }));
    listen
        .headers
        .push("accept", "application/json, text/event-stream");
    let modern = performed(
        &server,
        server.handle(&listen, &ctx()),
        &fx,
        &stage(Era::Modern, true, false, &progress),
    );
    assert!(matches!(modern, Performed::Listen(_)));
    // No 2025-11-25 session opens one: the interpreter says so rather than guessing.
    let legacy = answer(performed(
        &server,
        server.handle(&listen, &ctx()),
        &fx,
        &stage(Era::Legacy, true, false, &progress),
    ));
    assert_eq!(body(&legacy)["error"]["code"], -32603);
}
