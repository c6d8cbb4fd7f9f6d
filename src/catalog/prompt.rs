//! Prompts (server/prompts): templates the user picks, rendered by a step function, so a
//! prompt can ask for input (MRTR) before it renders, like a tool.

use super::completion::Completer;
use crate::error::McpError;
use crate::host::Host;
use crate::tools::Handler;
use crate::tools::{Call, Step, ToolError};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::fmt;
use std::future::Future;

/// One argument a prompt takes (schema `PromptArgument`); values are strings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptArgument {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub required: bool,
}

/// A prompt:
///
/// ```
/// use mcp_tasks_edge::catalog::{Prompt, complete_from};
/// use mcp_tasks_edge::prelude::*;
///
/// fn review(call: &Call) -> Step {
///     let language = call.str_arg("language").unwrap_or("Rust");
///     Step::complete(json!({ "messages": [{ "role": "user",
///         "content": { "type": "text", "text": format!("Review this {language} code.") } }] }))
/// }
///
/// let prompt = Prompt::new("review", "Asks for a code review")
///     .argument("language", "The code's language", false)
///     .complete("language", complete_from(&["Rust", "Python"]))
///     .sync(review);
/// assert_eq!(prompt.name(), "review");
/// ```
#[derive(Clone)]
pub struct Prompt {
    definition: Map<String, Value>,
    arguments: Vec<PromptArgument>,
    handler: Handler,
    completers: Vec<(String, Completer)>,
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("definition", &self.definition)
            .field("arguments", &self.arguments)
            .finish_non_exhaustive()
    }
}

impl Prompt {
    pub fn new(name: &str, description: &str) -> Prompt {
        let mut definition = Map::new();
        definition.insert("name".into(), name.into());
        definition.insert("description".into(), description.into());
        Prompt {
            definition,
            arguments: Vec::new(),
            handler: Handler::default(),
            completers: Vec::new(),
        }
    }

    pub fn title(mut self, title: &str) -> Prompt {
        self.definition.insert("title".into(), title.into());
        self
    }

    /// Declares an argument; `prompts/get` without a required one is -32602.
    pub fn argument(mut self, name: &str, description: &str, required: bool) -> Prompt {
        self.arguments.push(PromptArgument {
            name: name.to_owned(),
            description: (!description.is_empty()).then(|| description.to_owned()),
            required,
        });
        self
    }

    /// Suggestions for argument `name` (`completion/complete` with `ref/prompt`).
    pub fn complete(mut self, name: &str, completer: Completer) -> Prompt {
        self.completers.push((name.to_owned(), completer));
        self
    }

    /// The step function, with arguments decoded into `A`. Its `Step::Complete` value
    /// is the `GetPromptResult` (`{"messages": [...]}`).
    pub fn run<A, F, Fut>(mut self, step: F) -> Prompt
    where
        A: DeserializeOwned + JsonSchema + 'static,
        F: Fn(Call<A>, Host) -> Fut + 'static,
        Fut: Future<Output = Result<Step, ToolError>> + 'static,
    {
        self.handler = Handler::typed(step);
        self
    }

    pub fn run_json<F, Fut>(mut self, step: F) -> Prompt
    where
        F: Fn(Call, Host) -> Fut + 'static,
        Fut: Future<Output = Result<Step, ToolError>> + 'static,
    {
        self.handler = Handler::json(step);
        self
    }

    pub fn sync(mut self, step: fn(&Call) -> Step) -> Prompt {
        self.handler = Handler::sync(step);
        self
    }

    pub fn name(&self) -> &str {
        self.definition["name"].as_str().unwrap_or_default()
    }

    /// The `Prompt` definition for `prompts/list`.
    pub fn definition(&self) -> Value {
        let mut definition = self.definition.clone();
        definition.insert(
            "arguments".into(),
            serde_json::to_value(&self.arguments).unwrap_or_default(),
        );
        Value::Object(definition)
    }

    /// -32602 unless every required argument is there and every value is a string.
    pub fn check_arguments(&self, arguments: &Map<String, Value>) -> Result<(), McpError> {
        for argument in &self.arguments {
            if argument.required && !arguments.contains_key(&argument.name) {
                return Err(McpError::InvalidParams(format!(
                    "Missing required argument {:?} for prompt {}",
                    argument.name,
                    self.name()
                )));
            }
        }
        match arguments.iter().find(|(_, v)| !v.is_string()) {
            Some((name, _)) => Err(McpError::InvalidParams(format!(
                "Prompt argument {name:?} must be a string"
            ))),
            None => Ok(()),
        }
    }

    pub(crate) fn is_runnable(&self) -> bool {
        self.handler.is_set()
    }

    pub(crate) fn has_completions(&self) -> bool {
        !self.completers.is_empty()
    }

    pub(crate) fn completer(&self, name: &str) -> Option<&Completer> {
        self.completers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c)
    }

    pub async fn step(&self, call: Call, host: Host) -> Step {
        let what = format!("the prompt {}", self.name());
        self.handler.run(&what, call, host).await
    }
}
