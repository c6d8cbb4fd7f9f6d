//! Tools that ask the user: form elicitation inside a task (or by MRTR), and URL mode.

use mcp_tasks_edge::prelude::*;

const SPEC_URL: &str = "https://modelcontextprotocol.io/specification/2026-07-28";

pub fn hello_world() -> Tool {
    Tool::new(
        "hello_world",
        "Asks the user for their name, then greets them. With the Tasks extension the question is asked by the task (tasks/get shows input_required, tasks/update answers); without it, by a multi round-trip request.",
    )
    .title("Hello, world (elicitation)")
    .schema(json!({ "type": "object", "additionalProperties": false }))
    .task(TaskSupport::Optional)
    .sync(greet)
}

pub fn read_the_spec() -> Tool {
    Tool::new(
        "read_the_spec",
        "Sends you to the MCP specification with a URL-mode elicitation and thanks you once you confirm. Needs a client that declares elicitation.url.",
    )
    .title("Read the spec (URL elicitation)")
    .schema(json!({ "type": "object", "additionalProperties": false }))
    .sync(visit)
}

/// The ext-tasks "Example Message Flow": create the task first, then ask inside it.
fn greet(call: &Call) -> Step {
    if !call.has_checkpoint() {
        // First step: hand the rest to the task (or to the inline run) straight away.
        return Step::next()
            .checkpoint(json!({ "asked": true }))
            .message("Waiting to ask for your name");
    }
    match call.elicited("name") {
        Err(error) => Step::Fail(error),
        Ok(None) => Step::ask(
            "name",
            elicit_form(
                "Please enter your name.",
                json!({
                    "type": "object",
                    "properties": { "name": { "type": "string", "title": "Your name" } },
                    "required": ["name"]
                }),
            ),
        ),
        Ok(Some(Elicited::Accept(content))) => match content.get("name").and_then(Value::as_str) {
            Some(name) if !name.trim().is_empty() => Step::text(format!("Hello, {}!", name.trim())),
            _ => Step::complete(error_result("No name was given.")),
        },
        Ok(Some(Elicited::Decline)) => Step::text("Hello, stranger!"),
        Ok(Some(Elicited::Cancel)) => {
            Step::complete(error_result("The user cancelled the question."))
        }
    }
}

/// URL-mode elicitation (client/elicitation "URL Mode"): the answer carries no content.
fn visit(call: &Call) -> Step {
    match call.elicited("visit") {
        Err(error) => Step::Fail(error),
        Ok(None) => Step::ask(
            "visit",
            elicit_url(
                "Please read the MCP 2026-07-28 specification.",
                SPEC_URL,
                "read-the-spec",
            ),
        ),
        Ok(Some(Elicited::Accept(_))) => Step::text(format!("Thanks for reading {SPEC_URL}!")),
        Ok(Some(_)) => Step::text("Maybe later, then."),
    }
}
