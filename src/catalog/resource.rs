//! Resources and resource templates (server/resources).

use super::completion::Completer;
use super::template::UriTemplate;
use crate::host::{BoxFuture, Host};
use crate::jsonrpc;
use crate::tools::ToolError;
use base64::Engine;
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;
use std::future::Future;
use std::rc::Rc;

/// What a read sees: the URI asked for and, for a template, its variables.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    pub uri: String,
    pub vars: Map<String, Value>,
}

impl Read {
    /// Template variable `name` (empty if absent).
    pub fn var(&self, name: &str) -> &str {
        self.vars
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

type ReadFn = Rc<dyn Fn(Read, Host) -> BoxFuture<'static, Result<Vec<Value>, ToolError>>>;

fn read_fn<F, Fut>(read: F) -> ReadFn
where
    F: Fn(Read, Host) -> Fut + 'static,
    Fut: Future<Output = Result<Vec<Value>, ToolError>> + 'static,
{
    Rc::new(move |r, host| Box::pin(read(r, host)))
}

/// `TextResourceContents` (`text`) or `BlobResourceContents` (`blob`, base64).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Contents<'a> {
    uri: &'a str,
    mime_type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    blob: Option<String>,
}

/// One `TextResourceContents`.
pub fn text_contents(uri: &str, mime_type: &str, text: impl Into<String>) -> Value {
    jsonrpc::payload(&Contents {
        uri,
        mime_type,
        text: Some(text.into()),
        blob: None,
    })
}

/// One `BlobResourceContents` (the bytes, base64-encoded).
pub fn blob_contents(uri: &str, mime_type: &str, bytes: &[u8]) -> Value {
    let blob = base64::engine::general_purpose::STANDARD.encode(bytes);
    jsonrpc::payload(&Contents {
        uri,
        mime_type,
        text: None,
        blob: Some(blob),
    })
}

/// A resource at a fixed URI:
///
/// ```
/// use mcp_tasks_edge::catalog::{Resource, text_contents};
/// let readme = Resource::text("docs://readme", "readme", "text/markdown", "# Hello");
/// let live = Resource::new("kv://config", "config").mime_type("application/json").read(
///     |read, host| async move {
///         let text = host.kv("CONFIG").get("current").await?.unwrap_or_default();
///         Ok(vec![text_contents(&read.uri, "application/json", text)])
///     },
/// );
/// assert_eq!(readme.uri(), "docs://readme");
/// # let _ = live;
/// ```
#[derive(Clone)]
pub struct Resource {
    definition: Map<String, Value>,
    read: ReadFn,
    cache: Cache,
}

/// How a read result may be cached (SEP-2549 `ttlMs`, `cacheScope`). The default is
/// "stale at once, this caller only": contents may change and may be per-user.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cache {
    pub ttl_ms: u64,
    /// `cacheScope: "public"`: the contents are the same for every caller.
    pub public: bool,
}

impl Cache {
    /// The `ttlMs` and `cacheScope` fields of a result.
    pub fn fields(&self) -> (u64, &'static str) {
        (self.ttl_ms, if self.public { "public" } else { "private" })
    }
}

/// Static contents: fresh for a minute, the same for everyone.
const STATIC: Cache = Cache {
    ttl_ms: 60_000,
    public: true,
};

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}

impl Resource {
    /// A resource with no contents until [`Resource::read`] gives it a reader.
    pub fn new(uri: &str, name: &str) -> Resource {
        let mut definition = Map::new();
        definition.insert("uri".into(), uri.into());
        definition.insert("name".into(), name.into());
        Resource {
            definition,
            read: read_fn(|r: Read, _| async move {
                Err(ToolError::internal(format!(
                    "the resource {} has no reader",
                    r.uri
                )))
            }),
            cache: Cache::default(),
        }
    }

    /// A resource whose contents are this text.
    pub fn text(uri: &str, name: &str, mime_type: &str, text: impl Into<String>) -> Resource {
        let contents = text_contents(uri, mime_type, text);
        Resource::new(uri, name)
            .mime_type(mime_type)
            .cache(STATIC)
            .read(move |_, _| std::future::ready(Ok(vec![contents.clone()])))
    }

    /// A resource whose contents are these bytes.
    pub fn blob(uri: &str, name: &str, mime_type: &str, bytes: &[u8]) -> Resource {
        let contents = blob_contents(uri, mime_type, bytes);
        Resource::new(uri, name)
            .mime_type(mime_type)
            .cache(STATIC)
            .read(move |_, _| std::future::ready(Ok(vec![contents.clone()])))
    }

    /// How clients may cache what a read returns (default: not at all).
    pub fn cache(mut self, cache: Cache) -> Resource {
        self.cache = cache;
        self
    }

    pub(crate) fn cache_hint(&self) -> Cache {
        self.cache
    }

    pub fn title(self, title: &str) -> Resource {
        self.field("title", title.into())
    }

    pub fn description(self, description: &str) -> Resource {
        self.field("description", description.into())
    }

    pub fn mime_type(self, mime_type: &str) -> Resource {
        self.field("mimeType", mime_type.into())
    }

    /// Any other field of the `Resource` definition (`annotations`, `size`, `icons`, …).
    pub fn field(mut self, name: &str, value: Value) -> Resource {
        self.definition.insert(name.into(), value);
        self
    }

    /// How to read it: the contents, or a [`ToolError`] (a JSON-RPC error for the client).
    pub fn read<F, Fut>(mut self, read: F) -> Resource
    where
        F: Fn(Read, Host) -> Fut + 'static,
        Fut: Future<Output = Result<Vec<Value>, ToolError>> + 'static,
    {
        self.read = read_fn(read);
        self
    }

    pub fn uri(&self) -> &str {
        self.definition["uri"].as_str().unwrap_or_default()
    }

    pub fn definition(&self) -> Value {
        Value::Object(self.definition.clone())
    }

    pub async fn contents(&self, read: Read, host: Host) -> Result<Vec<Value>, ToolError> {
        (self.read)(read, host).await
    }
}

/// A family of resources named by a URI template:
///
/// ```
/// use mcp_tasks_edge::catalog::{ResourceTemplate, complete_from, text_contents};
/// let logs = ResourceTemplate::new("logs://{day}", "logs")
///     .complete("day", complete_from(&["monday", "tuesday"]))
///     .read(|read, _host| async move {
///         Ok(vec![text_contents(&read.uri, "text/plain", format!("log of {}", read.var("day")))])
///     });
/// assert!(logs.template().matches("logs://monday").is_some());
/// ```
#[derive(Clone)]
pub struct ResourceTemplate {
    definition: Map<String, Value>,
    template: UriTemplate,
    read: ReadFn,
    completers: Vec<(String, Completer)>,
    cache: Cache,
}

impl fmt::Debug for ResourceTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceTemplate")
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}

impl ResourceTemplate {
    /// `uri_template` uses `{name}` variables (a bad one is reported by
    /// [`crate::server::Server::problems`]).
    pub fn new(uri_template: &str, name: &str) -> ResourceTemplate {
        let mut definition = Map::new();
        definition.insert("uriTemplate".into(), uri_template.into());
        definition.insert("name".into(), name.into());
        let template =
            UriTemplate::parse(uri_template).unwrap_or_else(|_| UriTemplate::never(uri_template));
        ResourceTemplate {
            definition,
            template,
            read: read_fn(|r: Read, _| async move {
                Err(ToolError::internal(format!(
                    "the resource template for {} has no reader",
                    r.uri
                )))
            }),
            completers: Vec::new(),
            cache: Cache::default(),
        }
    }

    /// How clients may cache what a read returns (default: not at all).
    pub fn cache(mut self, cache: Cache) -> ResourceTemplate {
        self.cache = cache;
        self
    }

    pub(crate) fn cache_hint(&self) -> Cache {
        self.cache
    }

    pub fn title(self, title: &str) -> ResourceTemplate {
        self.field("title", title.into())
    }

    pub fn description(self, description: &str) -> ResourceTemplate {
        self.field("description", description.into())
    }

    pub fn mime_type(self, mime_type: &str) -> ResourceTemplate {
        self.field("mimeType", mime_type.into())
    }

    pub fn field(mut self, name: &str, value: Value) -> ResourceTemplate {
        self.definition.insert(name.into(), value);
        self
    }

    pub fn read<F, Fut>(mut self, read: F) -> ResourceTemplate
    where
        F: Fn(Read, Host) -> Fut + 'static,
        Fut: Future<Output = Result<Vec<Value>, ToolError>> + 'static,
    {
        self.read = read_fn(read);
        self
    }

    /// Suggestions for variable `name` (`completion/complete` with `ref/resource`).
    pub fn complete(mut self, name: &str, completer: Completer) -> ResourceTemplate {
        self.completers.push((name.to_owned(), completer));
        self
    }

    pub fn template(&self) -> &UriTemplate {
        &self.template
    }

    pub fn definition(&self) -> Value {
        Value::Object(self.definition.clone())
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

    pub async fn contents(&self, read: Read, host: Host) -> Result<Vec<Value>, ToolError> {
        (self.read)(read, host).await
    }
}
