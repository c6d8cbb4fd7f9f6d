//! What a server offers besides tools: resources, resource templates, prompts, and the
//! completions for prompt arguments and template variables. Authors register them with
//! the same builder as tools ([`crate::server::ServerBuilder`]).

mod completion;
mod prompt;
mod resource;
mod template;

pub use completion::{Completer, Completion, complete_from};
pub use prompt::{Prompt, PromptArgument};
pub use resource::{Cache, Read, Resource, ResourceTemplate, blob_contents, text_contents};
pub use template::UriTemplate;

use crate::error::McpError;
use serde_json::{Map, Value};

/// Everything registered besides tools, in registration order.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub resources: Vec<Resource>,
    pub templates: Vec<ResourceTemplate>,
    pub prompts: Vec<Prompt>,
}

/// Which resource a URI names.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// `resources[i]`.
    Resource(usize),
    /// `templates[i]`, with the variables the URI gave.
    Template(usize, Map<String, Value>),
}

impl Catalog {
    pub fn prompt(&self, name: &str) -> Option<&Prompt> {
        self.prompts.iter().find(|p| p.name() == name)
    }

    /// The resource or template `uri` names; a direct resource wins over templates.
    pub fn resolve(&self, uri: &str) -> Result<Target, McpError> {
        if let Some(i) = self.resources.iter().position(|r| r.uri() == uri) {
            return Ok(Target::Resource(i));
        }
        self.templates
            .iter()
            .enumerate()
            .find_map(|(i, t)| {
                t.template()
                    .matches(uri)
                    .map(|vars| Target::Template(i, vars))
            })
            .ok_or_else(|| McpError::ResourceNotFound(uri.to_owned()))
    }

    pub fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty()
    }

    pub fn has_completions(&self) -> bool {
        self.prompts.iter().any(Prompt::has_completions)
            || self.templates.iter().any(ResourceTemplate::has_completions)
    }

    /// Problems with the registrations: duplicate names or URIs, bad templates.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (i, p) in self.prompts.iter().enumerate() {
            if self.prompts[..i].iter().any(|q| q.name() == p.name()) {
                problems.push(format!("prompt {} is registered twice", p.name()));
            }
            if !p.is_runnable() {
                problems.push(format!(
                    "prompt {} has no step function (call .run, .run_json or .sync)",
                    p.name()
                ));
            }
        }
        for (i, r) in self.resources.iter().enumerate() {
            if self.resources[..i].iter().any(|q| q.uri() == r.uri()) {
                problems.push(format!("resource {} is registered twice", r.uri()));
            }
        }
        for t in &self.templates {
            if let Err(why) = UriTemplate::parse(t.template().as_str()) {
                problems.push(format!(
                    "resource template {}: {why}",
                    t.template().as_str()
                ));
            }
        }
        problems
    }

    /// `completion/complete`: the suggestions for `argument` of the prompt or template
    /// `reference` names (completion "Requests"); -32602 for an unknown reference.
    pub fn complete(
        &self,
        reference: &Value,
        argument: &str,
        value: &str,
        context: &Map<String, Value>,
    ) -> Result<Completion, McpError> {
        let bad = |why: &str| McpError::InvalidParams(format!("params.ref: {why}"));
        let completer = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = reference
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("ref/prompt needs a name"))?;
                let prompt = self
                    .prompt(name)
                    .ok_or_else(|| McpError::InvalidParams(format!("Unknown prompt: {name}")))?;
                prompt.completer(argument)
            }
            Some("ref/resource") => {
                let uri = reference
                    .get("uri")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("ref/resource needs a uri"))?;
                let template = self
                    .templates
                    .iter()
                    .find(|t| t.template().as_str() == uri)
                    .ok_or_else(|| {
                        McpError::InvalidParams(format!("Unknown resource template: {uri}"))
                    })?;
                template.completer(argument)
            }
            Some(other) => return Err(bad(&format!("unknown reference type {other:?}"))),
            None => return Err(bad("a reference needs a type (ref/prompt or ref/resource)")),
        };
        Ok(match completer {
            Some(completer) => Completion::of(completer(value, context)),
            // Nothing to suggest for this argument: an empty answer, not an error.
            None => Completion::of(Vec::new()),
        })
    }
}
