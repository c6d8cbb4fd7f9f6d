//! The set of tools a server offers: [`Registry`].

use super::Tool;
use crate::error::McpError;
use serde_json::Value;

/// The tools a server offers, in registration order (tools "Capabilities").
#[derive(Debug, Clone, Default)]
pub struct Registry {
    tools: Vec<Tool>,
    /// The tools' names, in the same order: every call looks its tool up, several times,
    /// among what may be hundreds of upstream tools, and a name read out of each
    /// definition's map costs a map lookup per tool.
    names: Vec<String>,
    /// Upstreams whose tools are not known yet (`crate::gateway`: their list could not be
    /// fetched), as (tool name prefix, upstream name).
    awaiting: Vec<(String, String)>,
}

impl Registry {
    /// The tools, each input schema compiled here, once: `tools/call` only validates.
    /// A schema that does not compile is one of [`Registry::problems`].
    pub fn new(tools: Vec<Tool>) -> Self {
        let tools: Vec<Tool> = tools.into_iter().map(Tool::compile).collect();
        Registry {
            names: tools.iter().map(|t| t.name().to_owned()).collect(),
            tools,
            awaiting: Vec::new(),
        }
    }

    /// These tools, and upstreams whose tools are not known yet: (tool name prefix,
    /// upstream name) of each upstream whose list could not be fetched.
    pub fn awaiting(mut self, upstreams: Vec<(String, String)>) -> Self {
        self.awaiting = upstreams;
        self
    }

    /// The upstream a tool of this name may belong to while its list is not known: a task
    /// of such a tool waits for it instead of failing (`tasks::execution::run_step`).
    pub fn awaited(&self, name: &str) -> Option<&str> {
        self.awaiting
            .iter()
            .find(|(prefix, _)| name.starts_with(prefix.as_str()))
            .map(|(_, upstream)| upstream.as_str())
    }

    pub fn get(&self, name: &str) -> Option<&Tool> {
        let at = self.names.iter().position(|n| n == name)?;
        self.tools.get(at)
    }

    pub fn definitions(&self) -> Vec<Value> {
        self.tools.iter().map(Tool::definition).collect()
    }

    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Looks a tool up for `tools/call`: -32602 for an unknown name (schema example
    /// `InvalidParamsError/unknown-tool`).
    pub fn lookup(&self, name: &str) -> Result<&Tool, McpError> {
        self.get(name)
            .ok_or_else(|| McpError::InvalidParams(format!("Unknown tool: {name}")))
    }

    /// Problems with the registrations: bad tools and duplicate names.
    pub fn problems(&self) -> Vec<String> {
        let mut problems: Vec<String> = self.tools.iter().flat_map(Tool::problems).collect();
        for (i, tool) in self.tools.iter().enumerate() {
            if self.tools[..i].iter().any(|t| t.name() == tool.name()) {
                problems.push(format!("tool {} is registered twice", tool.name()));
            }
        }
        problems
    }
}
