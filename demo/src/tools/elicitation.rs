//! Tools that ask the user: typed questions (in the task with the Tasks extension, by
//! MRTR without it), and URL mode.

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
    .ask_in_task()
    .run_sync(greet)
}

/// What `hello_world` asks: the form's schema is derived from it.
#[derive(Deserialize, JsonSchema)]
struct Name {
    /// Your name
    #[schemars(title = "Your name", length(min = 1, max = 100))]
    name: String,
}

fn greet(call: &Call) -> Result<Step, ToolError> {
    Ok(match call.ask::<Name>("name", "Please enter your name.")? {
        Answer::Accept(Name { name }) if !name.trim().is_empty() => {
            Step::text(format!("Hello, {}!", name.trim()))
        }
        Answer::Accept(_) => Step::complete(error_result("No name was given.")),
        Answer::Decline => Step::text("Hello, stranger!"),
        Answer::Cancel => Step::complete(error_result("The user cancelled the question.")),
    })
}

pub fn approve_release() -> Tool {
    Tool::new(
        "approve_release",
        "Asks the user to approve releasing a version and where to, then reports the decision. The question waits in the task for as long as the user takes (with the Tasks extension), or is asked by a multi round-trip request.",
    )
    .title("Approve a release (typed question)")
    .task(TaskSupport::Optional)
    .ask_in_task()
    .run_sync(approve)
}

/// Arguments of `approve_release`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Release {
    /// The version to release, e.g. "2.1.0"
    #[schemars(length(min = 1, max = 40))]
    version: String,
}

/// Where a release goes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Environment {
    /// Staging
    Staging,
    /// Production
    Production,
}

/// What `approve_release` asks.
#[derive(Deserialize, JsonSchema)]
struct Approval {
    /// Approve this release?
    approve: bool,
    /// Where to release it
    environment: Environment,
    /// A note for the release log (optional)
    #[schemars(length(max = 200))]
    note: Option<String>,
}

/// The decision, as the tool's typed result.
#[derive(Serialize, JsonSchema)]
struct Decision {
    version: String,
    /// "approved", "rejected", "declined" (no decision) or "cancelled"
    decision: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    environment: Option<Environment>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

fn approve(call: &Call<Release>) -> Result<Decision, ToolError> {
    let version = call.args.version.clone();
    let message = format!("Release version {version}?");
    let decided = |decision: &str, approval: Option<Approval>| Decision {
        version: version.clone(),
        decision: decision.into(),
        environment: approval.as_ref().map(|a| a.environment),
        note: approval.and_then(|a| a.note),
    };
    Ok(match call.ask::<Approval>("approval", &message)? {
        Answer::Accept(a) if a.approve => decided("approved", Some(a)),
        Answer::Accept(a) => decided("rejected", Some(a)),
        Answer::Decline => decided("declined", None),
        Answer::Cancel => decided("cancelled", None),
    })
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
