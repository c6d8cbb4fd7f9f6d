//! A server with its upstreams' tools (`crate::gateway`): the adapter fetches their
//! lists and asks for the server they make ([`Server::with_upstream_tools`]).

use super::{Server, jobs};
use crate::tools::Tool;

impl Server {
    /// This server with `upstream` tools added after its own. A tool whose name is taken
    /// (by a tool of this server, an earlier upstream tool, or a job handle tool) is left
    /// out and named in the second value: a prefix (`UPSTREAMS`) tells them apart.
    ///
    /// `awaiting` names the upstreams whose tools are not known (their list could not be
    /// fetched) by (prefix, name): a task of such a tool waits for them
    /// ([`crate::tools::Registry::awaited`]).
    pub fn with_upstream_tools(
        &self,
        upstream: Vec<Tool>,
        awaiting: Vec<(String, String)>,
    ) -> (Server, Vec<String>) {
        let mut tools = self.tools.clone();
        let mut clashes = Vec::new();
        for tool in upstream {
            let name = tool.name();
            let taken = self.registry.get(name).is_some()
                || tools.iter().any(|t| t.name() == name)
                || jobs::RESERVED.contains(&name);
            if taken {
                clashes.push(name.to_owned());
            } else {
                tools.push(tool);
            }
        }
        let mut server = Server::assemble(
            self.config.clone(),
            tools,
            self.own_catalog.clone(),
            self.instructions.clone(),
        );
        server.registry = server.registry.awaiting(awaiting);
        (server, clashes)
    }

    /// Whether this deployment fronts upstream servers (`UPSTREAMS`).
    #[cfg(feature = "gateway")]
    pub fn has_upstreams(&self) -> bool {
        !self.config.gateway.upstreams.is_empty()
    }

    /// Whether this deployment fronts upstream servers: never, in a build without the
    /// `gateway` feature (`UPSTREAMS` is then refused as configuration).
    #[cfg(not(feature = "gateway"))]
    pub fn has_upstreams(&self) -> bool {
        false
    }
}
