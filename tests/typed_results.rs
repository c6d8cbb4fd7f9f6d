//! Typed results: an output type gives the tool its `outputSchema` and the result its
//! `structuredContent` (with the same JSON in a text block); the typed sync form
//! (`run_sync`); and
//! every tool result saying whether it is an error.

use mcp_tasks_edge::host::fake::FakeHost;
use mcp_tasks_edge::host::{Host, block_on};
use mcp_tasks_edge::jsonrpc::ErrorCode;
use mcp_tasks_edge::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first number
    a: i64,
    /// The second number
    b: i64,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Sum {
    /// a + b
    sum: i64,
}

fn add(call: &Call<AddArgs>) -> Result<Sum, ToolError> {
    let AddArgs { a, b } = call.args;
    a.checked_add(b)
        .map(|sum| Sum { sum })
        .ok_or_else(|| ToolError::message(format!("{a} + {b} overflows")))
}

async fn add_async(call: Call<AddArgs>, _host: Host) -> Result<Sum, ToolError> {
    add(&call)
}

fn run(tool: &Tool, arguments: Value) -> Step {
    block_on(tool.step(Call::new(arguments), Host::new(FakeHost::new())))
}

fn result(step: Step) -> Value {
    match step {
        Step::Complete(result) => result,
        other => panic!("expected a result, got {other:?}"),
    }
}

#[test]
fn a_typed_sync_tool_derives_both_schemas_and_fills_structured_content() {
    let tool = Tool::new("add", "Adds").run_sync(add);
    let definition = tool.definition();
    assert_eq!(definition["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(definition["outputSchema"]["type"], "object");
    assert_eq!(definition["outputSchema"]["required"], json!(["sum"]));
    assert_eq!(
        definition["outputSchema"]["properties"]["sum"]["description"],
        "a + b"
    );
    let result = result(run(&tool, json!({ "a": 2, "b": 3 })));
    assert_eq!(result["structuredContent"], json!({ "sum": 5 }));
    assert_eq!(result["isError"], false);
    // The same JSON in a text block, for clients that read only `content`.
    let text = result["content"][0]["text"].as_str().expect("a text block");
    assert_eq!(serde_json::from_str::<Sum>(text).unwrap(), Sum { sum: 5 });
    assert_eq!(result["content"][0]["type"], "text");
}

#[test]
fn a_typed_async_tool_is_the_same_and_its_errors_are_is_error_results() {
    let tool = Tool::new("add", "Adds").run(add_async);
    assert_eq!(
        tool.definition()["outputSchema"]["required"],
        json!(["sum"])
    );
    let ok = result(run(&tool, json!({ "a": 40, "b": 2 })));
    assert_eq!(ok["structuredContent"], json!({ "sum": 42 }));
    let overflow = result(run(&tool, json!({ "a": i64::MAX, "b": 1 })));
    assert_eq!(overflow["isError"], true);
    assert!(overflow.get("structuredContent").is_none());
    assert!(
        overflow["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("overflows")
    );
}

#[test]
fn typed_arguments_that_do_not_fit_are_invalid_params() {
    let tool = Tool::new("add", "Adds").run_sync(add);
    match run(&tool, json!({ "a": "two", "b": 3 })) {
        Step::Fail(error) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
            assert!(error.message.starts_with("Invalid arguments"), "{error:?}");
        }
        other => panic!("expected -32602, got {other:?}"),
    }
}

#[derive(Serialize, JsonSchema)]
struct Counted {
    n: u64,
}

async fn count_to(call: Call<AddArgs>, _host: Host) -> Result<Output<Counted>, ToolError> {
    let i = call.checkpoint::<u64>()?.unwrap_or(0);
    if i < call.args.a as u64 {
        return Ok(Step::wait(Duration::from_millis(10))
            .checkpoint(i + 1)
            .into());
    }
    Ok(Output::Done(Counted { n: i }))
}

#[test]
fn a_long_typed_tool_waits_then_completes_with_its_output() {
    let tool = Tool::new("count_to", "Counts")
        .task(TaskSupport::Optional)
        .run(count_to);
    assert_eq!(tool.definition()["outputSchema"]["required"], json!(["n"]));
    let host = Host::new(FakeHost::new());
    let first = block_on(tool.step(Call::new(json!({ "a": 2, "b": 0 })), host.clone()));
    assert!(matches!(first, Step::Continue { checkpoint: Some(ref c), .. } if c == &json!(1)));
    let last = block_on(tool.step(
        Call::new(json!({ "a": 2, "b": 0 })).checkpoint_at(json!(2)),
        host,
    ));
    assert_eq!(result(last)["structuredContent"], json!({ "n": 2 }));
}

#[test]
fn an_output_type_that_is_not_an_object_is_a_definition_problem() {
    fn count(_call: &Call) -> Result<u64, ToolError> {
        Ok(3)
    }
    let server = Server::builder("s")
        .tool(Tool::new("count", "Counts").run_sync(count))
        .build();
    let problems = server.problems().join("; ");
    assert!(
        problems.contains("tool count: the output schema must have \"type\": \"object\""),
        "{problems}"
    );
    // And if it ran anyway, the call fails saying why instead of sending a bad result.
    match run(&server.registry.tools()[0], json!({})) {
        Step::Fail(error) => {
            assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
            assert!(error.message.contains("not a number"), "{error:?}");
        }
        other => panic!("expected -32603, got {other:?}"),
    }
}

#[test]
fn a_hand_written_output_schema_wins_over_the_derived_one() {
    let schema =
        json!({ "type": "object", "properties": { "sum": { "type": "integer", "minimum": 0 } } });
    let tool = Tool::new("add", "Adds")
        .output_schema(schema.clone())
        .run_sync(add);
    assert_eq!(tool.definition()["outputSchema"], schema);
}

#[test]
fn untyped_tools_keep_their_schema_and_declare_no_output() {
    fn hello(_call: &Call) -> Step {
        Step::text("hello")
    }
    let tool = Tool::new("hello", "Says hello").sync(hello);
    assert_eq!(tool.input_schema(), &json!({ "type": "object" }));
    assert!(tool.definition().get("outputSchema").is_none());
}

#[test]
fn every_tool_result_says_whether_it_is_an_error() {
    fn complete(_call: &Call) -> Step {
        Step::complete(json!({ "content": [text("done")] }))
    }
    fn failed(_call: &Call) -> Step {
        Step::complete(json!({ "content": [text("no")], "isError": true }))
    }
    fn texted(_call: &Call) -> Step {
        Step::text("done")
    }
    let complete = result(run(&Tool::new("c", "c").sync(complete), json!({})));
    let texted = result(run(&Tool::new("t", "t").sync(texted), json!({})));
    assert_eq!(complete, texted);
    assert_eq!(complete["isError"], false);
    let failed = result(run(&Tool::new("f", "f").sync(failed), json!({})));
    assert_eq!(failed["isError"], true);
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)] // only its schema is read
struct Measures {
    count: u64,
    small: u8,
    ratio: f64,
    limit: Option<u32>,
    samples: Vec<i32>,
    /// A field named like the keyword is a property, not a keyword.
    format: String,
    email: Email,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Email {
    #[schemars(email)]
    to: String,
}

#[test]
fn derived_schemas_keep_string_formats_and_bounds_but_not_how_rust_stores_numbers() {
    let tool = Tool::new("measure", "Measures").run_sync(|_: &Call<Measures>| Ok("ok"));
    let schema = tool.definition()["inputSchema"].clone();
    let p = &schema["properties"];
    // schemars says `uint64`, `uint8`, `double`, `uint32`, `int32`: not formats JSON Schema
    // defines (all of its formats are of strings), and Ajv prints "unknown format" for each.
    assert!(!schema.to_string().contains("int64") && !schema.to_string().contains("double"));
    for number in [
        &p["count"],
        &p["small"],
        &p["ratio"],
        &p["limit"],
        &p["samples"]["items"],
    ] {
        assert!(number.get("format").is_none(), "{number}");
    }
    // The bounds that say the same stay.
    assert_eq!(p["count"]["minimum"], 0);
    assert_eq!(
        (&p["small"]["minimum"], &p["small"]["maximum"]),
        (&json!(0), &json!(255))
    );
    assert_eq!(p["limit"]["type"], json!(["integer", "null"]));
    // String formats are JSON Schema's own, and a property named `format` is kept.
    assert_eq!(p["format"]["type"], "string");
    let to = &schema["$defs"]["Email"]["properties"]["to"];
    assert_eq!(to["format"], "email");
}
