//! [`ServerBuilder`]: how a server author assembles a server from tools.

use super::{Config, Server};
use crate::catalog::{Catalog, Prompt, Resource, ResourceTemplate};
use crate::tools::Tool;

/// Assembles a [`Server`]:
///
/// ```
/// use mcp_tasks_edge::prelude::*;
///
/// fn hello(_call: &Call) -> Step {
///     Step::text("Hello!")
/// }
///
/// let server = Server::builder("my-server")
///     .version("1.2.0")
///     .instructions("Say hello.")
///     .tool(Tool::new("hello", "Says hello").sync(hello))
///     .build();
/// assert!(server.problems().is_empty());
/// assert!(server.registry.get("hello").is_some());
/// ```
#[derive(Debug, Clone)]
pub struct ServerBuilder {
    name: String,
    version: String,
    config: Config,
    tools: Vec<Tool>,
    catalog: Catalog,
    instructions: Option<String>,
}

impl ServerBuilder {
    pub(super) fn new(name: &str) -> Self {
        ServerBuilder {
            name: name.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            config: Config::default(),
            tools: Vec::new(),
            catalog: Catalog::default(),
            instructions: None,
        }
    }

    /// `serverInfo.version` (default: this library's version).
    pub fn version(mut self, version: &str) -> Self {
        self.version = version.to_owned();
        self
    }

    /// `instructions` in `server/discover`: how a model should use this server.
    pub fn instructions(mut self, text: &str) -> Self {
        self.instructions = Some(text.to_owned());
        self
    }

    pub fn tool(mut self, tool: Tool) -> Self {
        self.tools.push(tool);
        self
    }

    pub fn tools(mut self, tools: impl IntoIterator<Item = Tool>) -> Self {
        self.tools.extend(tools);
        self
    }

    pub fn resource(mut self, resource: Resource) -> Self {
        self.catalog.resources.push(resource);
        self
    }

    pub fn resource_template(mut self, template: ResourceTemplate) -> Self {
        self.catalog.templates.push(template);
        self
    }

    pub fn prompt(mut self, prompt: Prompt) -> Self {
        self.catalog.prompts.push(prompt);
        self
    }

    /// The base configuration (the deployment's variables still apply over it; the
    /// builder's name and version win over the config's).
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    pub fn build(mut self) -> Server {
        self.config.server_name = self.name;
        self.config.server_version = self.version;
        Server::assemble(self.config, self.tools, self.catalog, self.instructions)
    }
}
