//! Typed questions (`Call::ask`): the form a type derives (what elicitation forms allow,
//! and what they refuse, named), and the same question asked by MRTR and inside a task
//! (`Tool::ask_in_task`), wrong answers refused with their path.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::object::create_from;
use common::*;
use mcp_tasks_edge::prelude::{
    Answer, Call, Config, Deserialize, JsonSchema, Server, Step, TaskSupport, Tool, ToolError,
    Value, json,
};
use mcp_tasks_edge::tasks::protocol::ObjectReply;
use mcp_tasks_edge::tools::form_schema;

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Size {
    Small,
    Large,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Titled {
    /// The small one
    Small,
    /// The large one
    Large,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Everything {
    #[schemars(email)]
    email: String,
    #[schemars(url)]
    #[serde(default)]
    homepage: Option<String>,
    #[schemars(range(min = 1, max = 10))]
    count: u8,
    ratio: f64,
    agree: bool,
    size: Size,
    titled: Option<Titled>,
    many: Vec<Size>,
}

#[test]
fn a_flat_struct_becomes_the_form_elicitation_allows() {
    let form = form_schema::<Everything>().unwrap();
    assert_eq!(
        form["required"],
        json!(["email", "count", "ratio", "agree", "size", "many"])
    );
    let p = &form["properties"];
    assert_eq!(p["email"], json!({ "type": "string", "format": "email" }));
    assert_eq!(p["homepage"], json!({ "type": "string", "format": "uri" }));
    // What Rust stores (`uint8`) is not shown; the range is.
    assert_eq!(
        p["count"],
        json!({ "type": "integer", "minimum": 1, "maximum": 10 })
    );
    assert_eq!(p["ratio"], json!({ "type": "number" }));
    assert_eq!(p["agree"], json!({ "type": "boolean" }));
    assert_eq!(
        p["size"],
        json!({ "type": "string", "enum": ["small", "large"] })
    );
    assert_eq!(
        p["titled"],
        json!({ "type": "string", "oneOf": [
            { "const": "Small", "title": "The small one" },
            { "const": "Large", "title": "The large one" }
        ] })
    );
    assert_eq!(
        p["many"],
        json!({ "type": "array", "items": { "type": "string", "enum": ["small", "large"] } })
    );
    assert!(form.get("title").is_none() && form.get("$schema").is_none());
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Nested {
    inner: Name,
}
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Texts {
    lines: Vec<String>,
}
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Patterned {
    #[schemars(regex(pattern = "^[a-z]+$"))]
    slug: String,
}
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
enum WithData {
    A(String),
    B { n: u32 },
}
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Choice {
    pick: WithData,
}

#[test]
fn what_a_form_cannot_hold_is_refused_by_field_and_keyword() {
    let refused = [
        (form_schema::<Nested>(), "field \"inner\" is an object"),
        (form_schema::<Texts>(), "field \"lines\" is an array"),
        (
            form_schema::<Patterned>(),
            "field \"slug\" has keyword \"pattern\"",
        ),
        (form_schema::<Choice>(), "field \"pick\""),
        (form_schema::<String>(), "a form asks for an object"),
    ];
    for (result, why) in refused {
        let error = result.unwrap_err();
        assert!(error.contains(why), "{error:?} should say {why:?}");
    }
}

#[derive(Deserialize, JsonSchema)]
struct Name {
    #[schemars(length(min = 2))]
    name: String,
    age: Option<u8>,
}

fn greet(call: &Call) -> Result<Step, ToolError> {
    Ok(match call.ask::<Name>("who", "Who are you?")? {
        Answer::Accept(Name { name, age }) => Step::text(format!(
            "Hello, {name} ({})",
            age.map_or("?".into(), |a| a.to_string())
        )),
        Answer::Decline => Step::text("declined"),
        Answer::Cancel => Step::text("cancelled"),
    })
}

fn nested(call: &Call) -> Result<Step, ToolError> {
    call.ask::<Nested>("n", "?")?;
    Ok(Step::text("unreachable"))
}

/// `greet`, asked in its task, and the same step asked by MRTR (`greet_mrtr`).
fn questions_server() -> Server {
    Server::builder("questions")
        .tool(
            Tool::new("greet", "Asks a typed question in its task.")
                .task(TaskSupport::Optional)
                .ask_in_task()
                .run_sync(greet),
        )
        .tool(
            Tool::new("greet_mrtr", "Asks the same question by MRTR first.")
                .task(TaskSupport::Optional)
                .run_sync(greet),
        )
        .tool(Tool::new("nested", "Asks what a form cannot hold.").run_sync(nested))
        .config(Config {
            request_state_secret: Some(b"native-test-secret-0123456789".to_vec()),
            ..Config::default()
        })
        .build()
}

fn without_tasks(params: Value) -> Value {
    let mut params = params;
    params["_meta"] = meta(json!({ "elicitation": {} }));
    params
}

#[test]
fn inline_the_question_is_an_mrtr_round_and_the_answer_arrives_typed() {
    let s = questions_server();
    let asked = body(&respond(
        &s,
        &post("tools/call", without_tasks(json!({ "name": "greet" }))),
    ));
    let asked = &asked["result"];
    assert_eq!(asked["resultType"], "input_required");
    let request = &asked["inputRequests"]["who"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(
        request["params"]["requestedSchema"],
        json!({ "type": "object", "properties": {
            "name": { "type": "string", "minLength": 2 },
            "age": { "type": "integer", "minimum": 0, "maximum": 255 }
        }, "required": ["name"] })
    );
    let retry = |content: Value| {
        respond(
            &s,
            &post(
                "tools/call",
                without_tasks(
                    json!({ "name": "greet", "requestState": asked["requestState"],
                    "inputResponses": { "who": { "action": "accept", "content": content } } }),
                ),
            ),
        )
    };
    // A wrong answer is refused where it arrives, with the path; the step never sees it.
    let wrong = retry(json!({ "name": "A", "age": 300 }));
    let error = body(&wrong)["error"].clone();
    assert_eq!(error["code"], -32602, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("\"who\"") && message.contains("/age"),
        "{message}"
    );
    let answered = body(&retry(json!({ "name": "Ada", "age": 36 })));
    assert_eq!(answered["result"]["content"][0]["text"], "Hello, Ada (36)");
}

#[test]
fn with_the_tasks_extension_the_first_question_is_asked_by_the_task() {
    let s = questions_server();
    // A question from a tool that asks in its task makes a task.
    let (mut o, created) = create_from(&s, &post("tools/call", json!({ "name": "greet" })));
    assert_eq!(created["status"], "input_required");
    // Its `task.created` line says it was created asking (there is no input_requested line).
    let line = o.logged[0]
        .render(&mcp_tasks_edge::ops::log::LogSettings::default())
        .unwrap();
    assert!(
        line.contains(r#""event":"task.created""#)
            && line.ends_with(r#""inputs":1,"status":"input_required"}"#),
        "{line}"
    );
    let keys: Vec<_> = created["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys.len(), 1);
    let key = &keys[0];
    let schema = &created["inputRequests"][key]["params"]["requestedSchema"];
    assert_eq!(schema["required"], json!(["name"]));

    // tasks/update checks the answer against the derived schema, with the path.
    let ObjectReply::Error(refused) = o.update(
        json!({ key: { "action": "accept", "content": { "name": 7 } } }),
        NOW + 1,
    ) else {
        panic!("a wrong answer is refused")
    };
    assert!(refused.message.contains("/name"), "{refused:?}");
    assert!(matches!(
        o.update(
            json!({ key: { "action": "accept", "content": { "name": "Ada" } } }),
            NOW + 2
        ),
        ObjectReply::Result(_)
    ));
    o.tick(NOW + 3);
    let done = o.get(NOW + 4);
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada (?)");
}

#[test]
fn without_ask_in_task_the_first_question_stays_an_mrtr_round() {
    // SEP-2663's conformance fixture test_tool_with_task relies on this order.
    let s = questions_server();
    let asked = body(&respond(
        &s,
        &post("tools/call", json!({ "name": "greet_mrtr" })),
    ));
    assert_eq!(asked["result"]["resultType"], "input_required");
}

#[test]
fn a_question_no_form_can_hold_fails_the_call_naming_the_type_and_field() {
    let s = questions_server();
    let failed = body(&respond(
        &s,
        &post("tools/call", without_tasks(json!({ "name": "nested" }))),
    ));
    let message = failed["error"]["message"].as_str().unwrap();
    assert_eq!(failed["error"]["code"], -32603);
    assert!(
        message.contains("question \"n\" cannot be a form")
            && message.contains("Nested")
            && message.contains("field \"inner\" is an object"),
        "{message}"
    );
}
