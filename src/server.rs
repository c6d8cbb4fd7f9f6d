//! Pure request handling: an HTTP request in (checked in `gate`, routed by [`dispatch`]),
//! an [`Action`] out, which [`perform`] carries out with the platform's effects.

pub mod admit;
mod builder;
pub mod call;
pub mod config;
pub mod creation;
pub mod dispatch;
mod drive;
mod envelope;
pub mod era;
pub mod fanin;
pub mod follower;
mod gate;
pub mod jobs;
pub mod listen;
pub mod my_tasks;
pub mod operator;
pub mod perform;
pub mod slot;
pub mod upstreams;
pub mod wait;

pub use builder::ServerBuilder;
pub use config::Config;
pub use envelope::{Envelope, error_response, result_response};

use crate::catalog::{self, Catalog};
use crate::error::McpError;
use crate::host::{Host, Platform, Policy};
use crate::http::HttpResponse;
use crate::jsonrpc::RequestId;
use crate::mcp::input;
use crate::mcp::request_state::{self, Binding, Carried};
use crate::tasks::execution::Limits;
use crate::tasks::protocol::{self, ObjectReply, ObjectRequest};
use crate::tasks::record::TaskRecord;
use crate::tools::{Progress, Registry, Tool};
use serde_json::{Map, Value};
use std::rc::Rc;

pub const MCP_PATH: &str = "/mcp";

/// This server's own method listing the caller's tasks, whichever era or device created
/// them (the Tasks extension has no list; this is what the web console's "my tasks"
/// reads). Params: `{cursor?}`; result: `{tasks: DetailedTask[], nextCursor?}`.
pub const LIST_TASKS: &str = "mcp-tasks-edge/tasks/list";

/// This server's method returning a task's timeline to its owner (`tasks::timeline`).
/// Params: `{taskId}`; result: `{taskId, status, timeline: Entry[], omittedEntries}`.
pub const TASK_TIMELINE: &str = "mcp-tasks-edge/tasks/timeline";

/// Per-request facts the adapter supplies.
#[derive(Debug, Clone)]
pub struct Context {
    pub principal: String,
    pub now_ms: u64,
}

/// What the adapter must do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send this response; done.
    Respond(HttpResponse),
    /// Draw a task id, send `ObjectRequest::Create` to the object named by it with
    /// its id assigned, and answer with [`Server::object_response`].
    CreateTask {
        request_id: RequestId,
        record: Box<TaskRecord>,
        envelope: Envelope,
    },
    /// Send `request` to the object named `request.task_id()` and answer with
    /// [`Server::object_response`].
    Forward {
        request_id: RequestId,
        request: ObjectRequest,
        envelope: Envelope,
    },
    /// Run the call's steps with the adapter's host: `server.run(run, ctx, host,
    /// progress, asker, log).await` gives the next action ([`Action::Respond`] or
    /// [`Action::CreateTask`]); `log` receives each tool step's log lines to print. With
    /// `run.progress_token` set, the adapter streams the progress reports as
    /// `notifications/progress` (SSE) before the response.
    Run(Box<call::InlineRun>),
    /// A call of a client without the Tasks extension needs more than one step: draw a
    /// task id, assign it to `record` and `run.job`, store the task as for
    /// [`Action::CreateTask`] (the run was counted already), then follow the job as for
    /// [`Action::Job`]. Never answered with a `CreateTaskResult` (SEP-2663).
    Detach {
        record: Box<TaskRecord>,
        run: Box<jobs::JobRun>,
    },
    /// Follow a job (`jobs`): send `run.first`, then feed each state of the task to a
    /// [`jobs::Follow`] until it answers or `run.wait_ms` is over ([`jobs::Follow::waited`]).
    Job(Box<jobs::JobRun>),
    /// Read a resource with the adapter's host: `server.read(read, host).await` is the
    /// response.
    Read(Box<ReadRun>),
    /// List the caller's tasks from its principal's index (method [`LIST_TASKS`]) and
    /// answer with a page of them.
    ListTasks {
        request_id: RequestId,
        params: my_tasks::ListParams,
        envelope: Envelope,
    },
    /// Open a `subscriptions/listen` stream (see [`listen`]).
    Listen(Box<listen::Listen>),
    /// An operator's request (`crate::ops::admin`): perform it, log it, answer.
    Admin {
        request_id: RequestId,
        request: Box<crate::ops::admin::AdminRequest>,
        envelope: Envelope,
    },
}

impl Action {
    /// An adapter's error for an action it does not expect where it got it: the
    /// variant's name (not its `Debug`, which would bring every field's `Debug` into the
    /// Worker).
    pub fn unexpected(&self) -> McpError {
        let name = match self {
            Action::Respond(_) => "Respond",
            Action::CreateTask { .. } => "CreateTask",
            Action::Forward { .. } => "Forward",
            Action::Run(_) => "Run",
            Action::Detach { .. } => "Detach",
            Action::Job(_) => "Job",
            Action::Read(_) => "Read",
            Action::ListTasks { .. } => "ListTasks",
            Action::Listen(_) => "Listen",
            Action::Admin { .. } => "Admin",
        };
        McpError::Internal(format!("unexpected action {name}"))
    }
}

/// A `resources/read` waiting for the adapter's host.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadRun {
    pub request_id: RequestId,
    pub envelope: Envelope,
    pub uri: String,
    pub target: catalog::Target,
}

/// The server: its configuration and what it offers. Server authors build one with
/// [`Server::builder`]; the adapter applies the deployment's configuration with
/// [`Server::configure`] once per isolate.
#[derive(Debug, Clone)]
pub struct Server {
    pub config: Config,
    /// Every tool offered: the conformance fixtures (when `config.fixtures`) and the
    /// author's tools.
    pub registry: Registry,
    /// Resources, templates and prompts: the fixtures' (when `config.fixtures`) and the
    /// author's.
    pub catalog: Catalog,
    /// The author's tools and catalog, kept to rebuild on [`Server::configure`].
    tools: Vec<Tool>,
    own_catalog: Catalog,
    pub instructions: Option<String>,
    /// discover and the lists, serialized once.
    pub lists: dispatch::StaticResults,
    /// `config.outbound`, shared by every [`Host`] this server hands out.
    outbound: Rc<Result<Policy, String>>,
}

impl Server {
    /// Starts a server definition named `name` (its `serverInfo.name`).
    pub fn builder(name: &str) -> ServerBuilder {
        ServerBuilder::new(name)
    }

    /// A server with no tools of its own (only the fixtures, when configured).
    pub fn new(config: Config) -> Self {
        Server::assemble(config, Vec::new(), Catalog::default(), None)
    }

    fn assemble(
        config: Config,
        tools: Vec<Tool>,
        own_catalog: Catalog,
        instructions: Option<String>,
    ) -> Self {
        // The fixtures come first: http-header-validation calls the first listed tool.
        #[cfg(feature = "fixtures")]
        let (mut all, mut catalog) = if config.fixtures {
            (crate::fixtures::tools(), crate::fixtures::catalog())
        } else {
            (Vec::new(), Catalog::default())
        };
        // Built without them: `Server::problems` says so if the deployment asks for them.
        #[cfg(not(feature = "fixtures"))]
        let (mut all, mut catalog) = (Vec::<Tool>::new(), Catalog::default());
        all.extend(tools.iter().cloned());
        catalog
            .resources
            .extend(own_catalog.resources.iter().cloned());
        catalog
            .templates
            .extend(own_catalog.templates.iter().cloned());
        catalog.prompts.extend(own_catalog.prompts.iter().cloned());
        let registry = Registry::new(all);
        let lists =
            dispatch::StaticResults::new(&config, &registry, &catalog, instructions.as_deref());
        let outbound = Rc::new(Ok(config.outbound.clone()));
        Server {
            outbound,
            config,
            registry,
            catalog,
            tools,
            own_catalog,
            instructions,
            lists,
        }
    }

    /// The same server under another configuration (the deployment's variables).
    pub fn configure(&self, config: Config) -> Server {
        Server::assemble(
            config,
            self.tools.clone(),
            self.own_catalog.clone(),
            self.instructions.clone(),
        )
    }

    /// This definition as deployed: the deployment's variables (`var`) applied, and checked
    /// ([`Server::problems`]); or the refusal every request gets instead (naming the
    /// variable to fix, never its value) and the whole reason, for the operator's log.
    pub fn deployed(
        &self,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Server, (McpError, String)> {
        let config = (self.config.clone().with_vars(var))
            .map_err(|e| (e.refusal(), format!("invalid configuration: {e}")))?;
        let server = self.configure(config);
        match server.problems().as_slice() {
            [] => Ok(server),
            problems => Err((
                McpError::misdefined(),
                format!("invalid server definition: {}", problems.join("; ")),
            )),
        }
    }

    /// What is wrong with the definition or configuration; the adapter refuses to serve
    /// a server with problems, saying why.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = self.registry.problems();
        problems.extend(self.catalog.problems());
        problems.extend(self.registry.tools().iter().filter_map(|tool| {
            let name = tool.name();
            jobs::RESERVED.contains(&name).then(|| format!(
                "tool name {name:?} is reserved for the job handle tools of clients without the Tasks extension (docs/hosts.md)"
            ))
        }));
        if self.config.fixtures && !cfg!(feature = "fixtures") {
            problems.push(
                "CONFORMANCE_FIXTURES=true, but this build has no conformance fixtures (the `fixtures` feature of mcp-tasks-edge is off)".into(),
            );
        }
        problems
    }

    /// A [`Host`] over the adapter's `platform`, under this server's outbound policy.
    pub fn host(&self, platform: Rc<dyn Platform>) -> Host {
        Host::with_policy(platform, self.outbound.clone())
    }

    /// The key that signs MRTR `requestState`s; an error saying so when unset.
    pub(crate) fn request_state_secret(&self) -> Result<&[u8], McpError> {
        self.config.request_state_secret.as_deref().ok_or_else(|| {
            McpError::Internal("REQUEST_STATE_SECRET is not configured, so this server cannot run multi round-trip requests".into())
        })
    }

    /// The `requestState` of an MRTR round that asks `requests` (mrtr "Server
    /// Requirements"): `carried` with those questions' answer checks, bound to `binding`,
    /// valid for `REQUEST_STATE_TTL_MS` from `now_ms`.
    pub(crate) fn seal_round(
        &self,
        requests: &Map<String, Value>,
        mut carried: Carried,
        binding: Binding,
        now_ms: u64,
    ) -> Result<String, McpError> {
        carried.pending = Map::new();
        carried.pending.extend(
            requests
                .iter()
                .map(|(key, request)| (key.clone(), input::answer_check(request))),
        );
        let expires = now_ms.saturating_add(self.config.request_state_ttl_ms);
        let secret = self.request_state_secret()?;
        Ok(request_state::seal(secret, binding, &carried, expires))
    }

    /// Limits on task steps.
    pub fn limits(&self) -> Limits {
        Limits {
            max_attempts: self.config.step_max_attempts,
            lease_ms: self.config.step_lease_ms,
            max_result_bytes: self.config.max_result_bytes,
        }
    }

    /// Runs a call's steps (after [`Action::Run`]) with the adapter's host; progress
    /// reports go to `progress`, each tool step's `step.started` and `step.finished`
    /// lines (`ops::log`) to `log`, for the adapter to print.
    pub async fn run(
        &self,
        run: call::InlineRun,
        ctx: &Context,
        host: &Host,
        progress: &Progress,
        asker: Option<&dyn call::Asker>,
        log: &dyn Fn(crate::ops::log::Line),
    ) -> Action {
        drive::drive(self, run, ctx, host, progress, asker, log).await
    }

    /// Reads a resource (after [`Action::Read`]) with the adapter's host.
    pub async fn read(&self, read: ReadRun, host: &Host) -> HttpResponse {
        let request = catalog::Read {
            uri: read.uri.clone(),
            vars: match &read.target {
                catalog::Target::Template(_, vars) => vars.clone(),
                catalog::Target::Resource(_) => Default::default(),
            },
        };
        let (contents, cache) = match &read.target {
            catalog::Target::Resource(i) => {
                let resource = &self.catalog.resources[*i];
                let contents = resource.contents(request, host.clone()).await;
                (contents, resource.cache_hint())
            }
            catalog::Target::Template(i, _) => {
                let template = &self.catalog.templates[*i];
                let contents = template.contents(request, host.clone()).await;
                (contents, template.cache_hint())
            }
        };
        let result = match contents {
            Ok(contents) if contents.is_empty() => {
                Err(McpError::ResourceNotFound(read.uri.clone()))
            }
            Ok(contents) => Ok(dispatch::read_result(contents, cache)),
            Err(crate::tools::ToolError::Rpc(e)) => Err(McpError::Wire(e)),
            Err(crate::tools::ToolError::Result(message)) => Err(McpError::Internal(format!(
                "reading {} failed: {message}",
                read.uri
            ))),
            Err(crate::tools::ToolError::NeedInput(_)) => Err(McpError::Internal(format!(
                "reading {} asked for input, which a resource cannot",
                read.uri
            ))),
        };
        match result {
            Ok(result) => result_response(&read.request_id, &result, &read.envelope),
            Err(e) => error_response(Some(&read.request_id), &e, &read.envelope),
        }
    }

    /// Turns a TaskObject reply (as sent: status and body) into the JSON-RPC response for
    /// the original request. A result is spliced in as is; only errors are parsed.
    pub fn object_response(
        &self,
        request_id: &RequestId,
        status: u16,
        body: &[u8],
        envelope: &Envelope,
    ) -> HttpResponse {
        if status == protocol::RESULT_STATUS {
            return envelope.raw_result(request_id, body);
        }
        match ObjectReply::decode(status, body) {
            Ok(ObjectReply::Error(error)) => {
                error_response(Some(request_id), &McpError::Wire(error), envelope)
            }
            Ok(ObjectReply::Result(_)) => unreachable!("results carry RESULT_STATUS"),
            Err(why) => self.object_unreachable(request_id, &why, envelope),
        }
    }

    /// The response when the adapter could not reach a TaskObject at all.
    pub fn object_unreachable(
        &self,
        request_id: &RequestId,
        why: &str,
        envelope: &Envelope,
    ) -> HttpResponse {
        error_response(
            Some(request_id),
            &McpError::Internal(format!("task storage unavailable: {why}")),
            envelope,
        )
    }
}
