//! Argument and answer validation through the pure server: `tools/call` refuses arguments
//! that violate the input schema through `$ref`, `anyOf`, `oneOf` and `if`/`then`/`else`
//! (-32602 naming path and keyword); MRTR retries refuse answers that violate the
//! `requestedSchema` (with and without `requestState`); a schema that cannot be compiled
//! is a `Server::problems` entry.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::prelude::*;
use mcp_tasks_edge::server::Action;

fn call(server: &Server, params: Value) -> (u16, Value) {
    match run_action(
        server,
        server.handle(&common::post("tools/call", params), &ctx()),
    ) {
        Action::Respond(r) => (r.status, body(&r)),
        other => panic!("unexpected {other:?}"),
    }
}

fn keywords(arguments: Value) -> (u16, Value) {
    call(
        &server(),
        json!({ "name": "schema_keywords", "arguments": arguments }),
    )
}

#[test]
fn arguments_violating_through_composition_keywords_are_refused() {
    let (status, ok) = keywords(
        json!({ "items": [{ "kind": "a" }], "contact": "+4712345678",
        "shape": { "radius": 1 }, "method": "phone", "phone": "1" }),
    );
    assert_eq!(status, 200, "{ok}");
    assert!(
        ok["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Valid: ")
    );
    for (arguments, message) in [
        (
            json!({ "items": [{ "kind": "a" }, { "kind": "b" }, { "kind": "c" }] }),
            r#"/items/2/kind: "c" is not one of ["a","b"] (enum)"#,
        ),
        (
            json!({ "items": [{}] }),
            r#"/items/0: missing required property "kind" (required)"#,
        ),
        (
            json!({ "contact": "call me" }),
            "/contact: matches none of the alternatives (anyOf)",
        ),
        (
            json!({ "contact": { "phone": "1" } }),
            "/contact: matches none of the alternatives (anyOf)",
        ),
        (
            json!({ "shape": { "radius": 1, "side": 2 } }),
            "/shape: matches alternatives 0 and 1, exactly one must match (oneOf)",
        ),
        (
            json!({ "shape": {} }),
            "/shape: matches none of the alternatives (oneOf)",
        ),
        (
            json!({ "method": "phone" }),
            r#"(root): missing required property "phone" (required)"#,
        ),
        (
            json!({ "method": "email", "phone": "1" }),
            "(root): matches a schema it must not (not)",
        ),
    ] {
        let (status, e) = keywords(arguments.clone());
        assert_eq!(
            (status, e["error"]["code"].as_i64()),
            (400, Some(-32602)),
            "{arguments}: {e}"
        );
        assert_eq!(
            e["error"]["message"],
            format!("Invalid arguments for tool schema_keywords: {message}"),
            "{arguments}"
        );
    }
}

#[test]
fn mrtr_answers_are_checked_against_the_requested_schema() {
    let server = server();
    let no_tasks = meta(json!({ "elicitation": {} }));
    let first = json!({ "name": "schema_elicitation", "_meta": no_tasks });
    let (_, r1) = call(&server, first.clone());
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    assert_eq!(
        r1["result"]["inputRequests"]["age"]["params"]["requestedSchema"]["required"],
        json!(["age"])
    );
    let retry = |state: Option<&Value>, content: Value| {
        let mut params = first.clone();
        params["inputResponses"] = json!({ "age": { "action": "accept", "content": content } });
        if let Some(state) = state {
            params["requestState"] = state.clone();
        }
        call(&server, params)
    };
    let state = &r1["result"]["requestState"];
    for state in [Some(state), None] {
        for (content, message) in [
            (json!({ "age": -1 }), "/age: -1 is less than 0 (minimum)"),
            (
                json!({ "age": 30.5 }),
                "/age: expected integer, got number (type)",
            ),
            (
                json!({ "age": 30, "colour": "pink" }),
                "/colour: matches none of the alternatives (oneOf)",
            ),
            (
                json!({ "colour": "red" }),
                r#"(root): missing required property "age" (required)"#,
            ),
        ] {
            let (status, e) = retry(state, content.clone());
            assert_eq!(
                (status, e["error"]["code"].as_i64()),
                (400, Some(-32602)),
                "{content}: {e}"
            );
            assert_eq!(
                e["error"]["message"],
                format!(r#"inputResponses["age"] does not match the requested schema: {message}"#),
                "{content} (requestState: {})",
                state.is_some()
            );
        }
        let (_, done) = retry(state, json!({ "age": 30, "colour": "red" }));
        assert_eq!(
            done["result"]["content"][0]["text"], "Age 30, colour red",
            "{done}"
        );
    }
}

#[test]
fn an_answer_sealed_in_request_state_is_not_replaced_by_an_unasked_one() {
    let server = server();
    let no_tasks = meta(json!({ "elicitation": {} }));
    let (_, r1) = call(
        &server,
        json!({ "name": "test_input_required_result_multi_round", "_meta": no_tasks }),
    );
    let (_, r2) = call(
        &server,
        json!({ "name": "test_input_required_result_multi_round", "_meta": no_tasks,
        "requestState": r1["result"]["requestState"],
        "inputResponses": { "step1": { "action": "accept", "content": { "name": "Alice" } } } }),
    );
    // Round 3 answers step2 and tries to change step1's signed answer: step1 stays Alice.
    let (_, r3) = call(
        &server,
        json!({ "name": "test_input_required_result_multi_round", "_meta": no_tasks,
        "requestState": r2["result"]["requestState"],
        "inputResponses": { "step2": { "action": "accept", "content": { "color": "blue" } },
            "step1": { "action": "accept", "content": { "name": "Mallory" } } } }),
    );
    assert_eq!(
        r3["result"]["content"][0]["text"], "Alice likes blue.",
        "{r3}"
    );
}

#[test]
fn schemas_that_cannot_be_enforced_are_server_problems() {
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        city: String,
        days: Option<u8>,
    }
    async fn noop(_: Call<Args>, _: Host) -> Result<Step, ToolError> {
        Ok(Step::text("ok"))
    }
    let server = Server::builder("t")
        .tool(Tool::new("derived", "fine").run(noop))
        .tool(Tool::new("remote", "d").schema(json!({ "type": "object", "properties": { "a": { "$ref": "https://example.com/a.json" } } })).sync(|_| Step::text("")))
        .tool(Tool::new("invalid", "d").schema(json!({ "type": "object", "required": "a" })).sync(|_| Step::text("")))
        .build();
    let problems = server.problems();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(
        problems[0],
        "tool remote: the input schema cannot be used: https://example.com/a.json is outside the schema, and schemas are never fetched (remote $ref or unknown $schema)"
    );
    assert!(
        problems[1].starts_with("tool invalid: the input schema cannot be used: "),
        "{}",
        problems[1]
    );
    assert!(problems[1].contains("required"), "{}", problems[1]);
    // A server that runs anyway (native tests skip the adapter's check) refuses the call.
    let (status, e) = call(&server, json!({ "name": "remote", "arguments": {} }));
    assert_eq!(
        (status, e["error"]["code"].as_i64()),
        (500, Some(-32603)),
        "{e}"
    );
}

/// A `pattern` on a derived argument (schemars' `regex(pattern = ..)`, docs/authoring.md
/// "Questions authors asked") reaches the `inputSchema` and is enforced before the tool runs.
#[test]
fn a_pattern_on_a_derived_argument_is_listed_and_enforced() {
    #[derive(Deserialize, JsonSchema)]
    struct Release {
        /// A semantic version, e.g. 1.4.0.
        #[schemars(regex(pattern = r"^\d+\.\d+\.\d+$"))]
        version: String,
    }
    fn release(call: &Call<Release>) -> Result<Step, ToolError> {
        Ok(Step::text(format!("released {}", call.args.version)))
    }
    let server = Server::builder("t")
        .tool(Tool::new("release", "r").run_sync(release))
        .build();
    assert!(server.problems().is_empty(), "{:?}", server.problems());
    let (_, listed) = match run_action(
        &server,
        server.handle(&common::post("tools/list", json!({})), &ctx()),
    ) {
        Action::Respond(r) => (r.status, body(&r)),
        other => panic!("unexpected {other:?}"),
    };
    let schema = &listed["result"]["tools"][0]["inputSchema"];
    assert_eq!(
        schema["properties"]["version"]["pattern"],
        json!(r"^\d+\.\d+\.\d+$")
    );
    let (_, ok) = call(
        &server,
        json!({ "name": "release", "arguments": { "version": "1.4.0" } }),
    );
    assert_eq!(ok["result"]["content"][0]["text"], "released 1.4.0");
    let (_, refused) = call(
        &server,
        json!({ "name": "release", "arguments": { "version": "v1" } }),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.ends_with(r#"/version: "v1" does not match "^\\d+\\.\\d+\\.\\d+$" (pattern)"#),
        "{message}"
    );
}
