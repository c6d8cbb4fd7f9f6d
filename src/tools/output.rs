//! Typed results: a step function may return its own output type instead of a
//! [`Step`]; the tool's `outputSchema` is derived from it and the result carries it as
//! `structuredContent`, with its JSON in a text block too (the tools page of the spec
//! recommends both, for clients that read only `content`).

use super::{Step, ToolError, call_tool_result, internal_error, text};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// What a step function may return ([`Tool::run`](super::Tool::run),
/// [`Tool::run_sync`](super::Tool::run_sync)): a [`Step`], or `Result<R, ToolError>` where `R` is
/// an [`IntoStep`] (a step, a typed output, or an [`Output`]).
pub trait StepResult {
    /// The `outputSchema` this return type declares, if it is typed.
    fn output_schema() -> Option<Value>;

    /// The step this value stands for.
    fn into_step(self) -> Step;
}

impl StepResult for Step {
    fn output_schema() -> Option<Value> {
        None
    }

    fn into_step(self) -> Step {
        self
    }
}

impl<R: IntoStep> StepResult for Result<R, ToolError> {
    fn output_schema() -> Option<Value> {
        R::output_schema()
    }

    fn into_step(self) -> Step {
        self.map_or_else(ToolError::into_step, IntoStep::into_step)
    }
}

/// What a step function's `Ok` may hold:
///
/// - a [`Step`] (any outcome, untyped);
/// - a typed output: any `Serialize + JsonSchema` type that serializes to a JSON object
///   (the call completes with it; the tool's `outputSchema` is derived from it);
/// - an [`Output`] of one (the typed output, or any other step: ask, wait, fail).
pub trait IntoStep {
    /// The `outputSchema` this type declares, if it is typed.
    fn output_schema() -> Option<Value> {
        None
    }

    /// The step this value stands for.
    fn into_step(self) -> Step;
}

impl IntoStep for Step {
    fn into_step(self) -> Step {
        self
    }
}

impl<O: Serialize + JsonSchema> IntoStep for O {
    fn output_schema() -> Option<Value> {
        Some(super::tool::derived_schema::<O>())
    }

    fn into_step(self) -> Step {
        Step::output(&self)
    }
}

/// A step of a tool with a typed output `O`: done with `O`, or any other step (ask for
/// input, wait, fail). For tools whose calls take more than one step:
///
/// ```
/// use mcp_tasks_edge::prelude::*;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Args { n: u64 }
///
/// #[derive(Serialize, JsonSchema)]
/// struct Counted { n: u64 }
///
/// async fn count_to(call: Call<Args>, _host: Host) -> Result<Output<Counted>, ToolError> {
///     let i = call.checkpoint::<u64>()?.unwrap_or(0);
///     if i < call.args.n {
///         return Ok(Step::wait(Duration::from_secs(1)).checkpoint(i + 1).into());
///     }
///     Ok(Output::Done(Counted { n: i }))
/// }
///
/// let tool = Tool::new("count_to", "Counts").task(TaskSupport::Optional).run(count_to);
/// assert_eq!(tool.definition()["outputSchema"]["required"], json!(["n"]));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Output<O> {
    /// Done: `structuredContent` is `O`, and a text block holds its JSON.
    Done(O),
    /// Done as with `Done`, and a first text block says this, for a person or a model
    /// that reads `content` (the JSON still follows it, as the tools page recommends).
    Summary(O, String),
    /// Any other step.
    Step(Step),
}

impl<O> From<Step> for Output<O> {
    fn from(step: Step) -> Self {
        Output::Step(step)
    }
}

impl<O: Serialize + JsonSchema> IntoStep for Output<O> {
    fn output_schema() -> Option<Value> {
        O::output_schema()
    }

    fn into_step(self) -> Step {
        match self {
            Output::Done(output) => output.into_step(),
            Output::Summary(output, summary) => match Step::output(&output) {
                Step::Complete(mut result) => {
                    if let Some(Value::Array(content)) = result.get_mut("content") {
                        content.insert(0, text(summary));
                    }
                    Step::Complete(result)
                }
                failed => failed,
            },
            Output::Step(step) => step,
        }
    }
}

impl Step {
    /// Done, with a typed output: `structuredContent` is `output` (it must serialize to a
    /// JSON object) and a text block holds the same JSON. Anything else ends the call
    /// with -32603 saying why: it is the tool's bug.
    pub fn output(output: &impl Serialize) -> Step {
        match serde_json::to_value(output) {
            Ok(Value::Object(structured)) => {
                let json = Value::Object(structured);
                Step::Complete(call_tool_result(&json.to_string(), Some(&json), false))
            }
            Ok(other) => Step::Fail(internal_error(format!(
                "the tool's output must serialize to a JSON object (structuredContent), not {}",
                crate::mcp::params::kind(&other)
            ))),
            Err(e) => Step::Fail(internal_error(format!(
                "the tool's output could not be serialized: {e}"
            ))),
        }
    }
}
