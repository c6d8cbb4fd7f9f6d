//! Method dispatch for one JSON-RPC request (after the HTTP checks in `server`).

use super::{
    Action, Config, Context, Envelope, ReadRun, Server, call, jobs, listen, result_response,
};
use crate::catalog::Catalog;
use crate::error::McpError;
use crate::http::Headers;
use crate::jsonrpc::{self, Empty, OneEntry, Request};
use crate::mcp::headers;
use crate::mcp::identity;
use crate::mcp::meta::{self, Capability, RequestMeta, TASKS_EXTENSION};
use crate::mcp::params::{
    self, CompleteParams, CursorParams, TaskIdParams, TaskUpdateParams, UriParams,
};
use crate::tasks::id;
use crate::tasks::protocol::ObjectRequest;
use crate::tools::Registry;
use serde::Serialize;
use serde_json::{Map, Value};
use std::rc::Rc;

/// List results are the same for every caller and change only on deploy.
const LIST_TTL_MS: u64 = 60_000;

pub fn dispatch(
    server: &Server,
    rpc: &Request,
    http_headers: &Headers,
    ctx: &Context,
    envelope: &Envelope,
) -> Result<Action, McpError> {
    let meta = meta::parse_request_meta(&rpc.params)?;
    let header_version = headers::protocol_version(http_headers)?;
    if header_version != meta.protocol_version {
        return Err(McpError::HeaderMismatch(format!(
            "MCP-Protocol-Version header value '{header_version}' does not match _meta protocolVersion '{}'",
            meta.protocol_version
        )));
    }
    meta::check_supported(&meta.protocol_version)?;
    headers::check_standard(http_headers, &rpc.method, &rpc.params)?;
    let action = route(server, rpc, Some(http_headers), &meta, ctx, envelope)?;
    fit_accept(action, http_headers)
}

/// Honours `Accept` (streamable-http "Sending Messages"): a client that refuses
/// `text/event-stream` never gets one. Clients MUST accept both types, but some send
/// only `application/json`; they get a JSON response wherever one exists: a call that
/// asked for progress runs without it (its notifications are dropped: they could only
/// travel on a stream), and `subscriptions/listen`, which is nothing but a stream, is
/// refused with a 406 that says what to accept.
fn fit_accept(action: Action, http_headers: &Headers) -> Result<Action, McpError> {
    if crate::http::accepts(http_headers, crate::http::EVENT_STREAM) {
        return Ok(action);
    }
    match action {
        Action::Run(mut run) => {
            run.progress_token = None;
            Ok(Action::Run(run))
        }
        Action::Job(mut run) => {
            run.progress_token = None;
            Ok(Action::Job(run))
        }
        Action::Listen(_) => Err(McpError::NotAcceptable(
            "subscriptions/listen (a long-lived notification stream)".into(),
        )),
        other => Ok(other),
    }
}

/// The method's handler, once the request is known to be well-formed for its era:
/// 2026-07-28 checks (`_meta`, headers) happened in [`dispatch`]; a 2025-11-25 session
/// supplies `meta` from its `initialize` and has no `Mcp-*` headers (`http_headers`
/// `None`).
pub fn route(
    server: &Server,
    rpc: &Request,
    http_headers: Option<&Headers>,
    meta: &RequestMeta,
    ctx: &Context,
    envelope: &Envelope,
) -> Result<Action, McpError> {
    let params = &rpc.params;
    let respond = |result: Value| Ok(Action::Respond(result_response(&rpc.id, &result, envelope)));
    // Static results are serialized once per isolate and spliced into the envelope.
    let respond_static = |raw: &[u8]| Ok(Action::Respond(envelope.raw_result(&rpc.id, raw)));
    let lists = &server.lists;
    match rpc.method.as_str() {
        "server/discover" => respond_static(&lists.discover),
        "tools/list" => {
            no_cursor(params)?;
            match &lists.tools_without_tasks {
                // A client without tasks also gets the job handle tools (`jobs`).
                Some(tools) if !jobs::declares_tasks(&meta.capabilities) => respond_static(tools),
                _ => respond_static(&lists.tools),
            }
        }
        "tools/call" => call::tools_call(server, rpc, http_headers, meta, ctx, envelope),
        "prompts/list" if lists.prompts.is_some() => {
            no_cursor(params)?;
            respond_static(lists.prompts.as_deref().unwrap_or_default())
        }
        "prompts/get" if lists.prompts.is_some() => {
            call::prompts_get(server, rpc, meta, ctx, envelope)
        }
        "resources/list" if lists.resources.is_some() => {
            no_cursor(params)?;
            respond_static(lists.resources.as_deref().unwrap_or_default())
        }
        "resources/templates/list" if lists.resources.is_some() => {
            no_cursor(params)?;
            respond_static(lists.resource_templates.as_deref().unwrap_or_default())
        }
        "resources/read" if lists.resources.is_some() => {
            let uri = params::parse::<UriParams>(params)?.uri;
            let target = server.catalog.resolve(&uri)?;
            Ok(Action::Read(Box::new(ReadRun {
                request_id: rpc.id.clone(),
                envelope: envelope.clone(),
                uri,
                target,
            })))
        }
        "completion/complete" if server.catalog.has_completions() => {
            respond(complete(&server.catalog, params)?)
        }
        "tasks/get" | "tasks/update" | "tasks/cancel" => {
            let request = task_request(&rpc.method, params, meta)?;
            Ok(Action::Forward {
                request_id: rpc.id.clone(),
                request,
                envelope: envelope.clone(),
            })
        }
        "subscriptions/listen" => listen::open(server, rpc, meta, ctx, envelope),
        super::LIST_TASKS => Ok(Action::ListTasks {
            request_id: rpc.id.clone(),
            params: params::parse::<super::my_tasks::ListParams>(params)?,
            envelope: envelope.clone(),
        }),
        // Served on the 2026-07-28 endpoint (a 2025-11-25 session forwards no object reads).
        super::TASK_TIMELINE if http_headers.is_some() => {
            let task_id = params::parse::<TaskIdParams>(params)?.task_id;
            if !id::is_valid(&task_id) {
                return Err(McpError::TaskNotFound);
            }
            Ok(Action::Forward {
                request_id: rpc.id.clone(),
                request: ObjectRequest::Timeline { task_id },
                envelope: envelope.clone(),
            })
        }
        // tasks/result and tasks/list were removed by SEP-2663; initialize, ping,
        // logging/setLevel, resources/subscribe… by 2026-07-28. All are unknown here, as
        // are the operator's methods for anyone but an operator (`ops::admin`).
        other => {
            let operators = server.config.auth.has_operators() && http_headers.is_some();
            match crate::ops::admin::parse(other, params, &ctx.principal, operators) {
                Some(request) => Ok(Action::Admin {
                    request_id: rpc.id.clone(),
                    request: Box::new(request?),
                    envelope: envelope.clone(),
                }),
                None => Err(McpError::MethodNotFound(other.to_owned())),
            }
        }
    }
}

/// The results that never change while an isolate lives, serialized once. A list is
/// `None` when its capability is not offered (its methods then answer -32601).
#[derive(Debug, Clone)]
pub struct StaticResults {
    /// The `_meta` entry naming this server in 2026-07-28 results (`mcp::identity`).
    pub identity: Rc<[u8]>,
    pub discover: Vec<u8>,
    pub tools: Vec<u8>,
    /// `tools/list` for a client without the Tasks extension, with the job handle tools
    /// (`jobs`); `None` when jobs are not offered.
    pub tools_without_tasks: Option<Vec<u8>>,
    pub prompts: Option<Vec<u8>>,
    pub resources: Option<Vec<u8>>,
    pub resource_templates: Option<Vec<u8>>,
}

impl StaticResults {
    pub fn new(
        config: &Config,
        registry: &Registry,
        catalog: &Catalog,
        instructions: Option<&str>,
    ) -> Self {
        let bytes = |v: Value| serde_json::to_vec(&cacheable(v)).expect("results serialize");
        let prompts: Vec<Value> = catalog.prompts.iter().map(|p| p.definition()).collect();
        let resources: Vec<Value> = catalog.resources.iter().map(|r| r.definition()).collect();
        let templates: Vec<Value> = catalog.templates.iter().map(|t| t.definition()).collect();
        let offers_resources = catalog.has_resources();
        StaticResults {
            identity: identity::entry(&config.server_name, &config.server_version).into(),
            discover: bytes(discover(config, catalog, instructions)),
            tools: bytes(list("tools", registry.definitions())),
            tools_without_tasks: jobs::offered(config, registry).then(|| {
                let mut tools: Vec<Value> =
                    registry.tools().iter().map(jobs::listed_for_jobs).collect();
                tools.extend(jobs::definitions(config));
                bytes(list("tools", tools))
            }),
            prompts: (!prompts.is_empty()).then(|| bytes(list("prompts", prompts))),
            resources: offers_resources.then(|| bytes(list("resources", resources))),
            resource_templates: offers_resources
                .then(|| bytes(list("resourceTemplates", templates))),
        }
    }
}

/// A list result (`ListToolsResult`, …) before its caching hints: its list under `key`.
fn list(key: &'static str, items: Vec<Value>) -> Value {
    jsonrpc::payload(&OneEntry(key, items))
}

/// `ReadResourceResult`, with the resource's caching hints.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReadResourceResult {
    result_type: &'static str,
    contents: Vec<Value>,
    ttl_ms: u64,
    cache_scope: &'static str,
}

/// A `ReadResourceResult` with the resource's caching hints.
pub fn read_result(contents: Vec<Value>, cache: crate::catalog::Cache) -> Value {
    let (ttl_ms, cache_scope) = cache.fields();
    jsonrpc::payload(&ReadResourceResult {
        result_type: "complete",
        contents,
        ttl_ms,
        cache_scope,
    })
}

/// `completion/complete` (server/utilities/completion).
fn complete(catalog: &Catalog, params: &Map<String, Value>) -> Result<Value, McpError> {
    let params = params::parse::<CompleteParams>(params)?;
    let context = params.context_arguments();
    let argument = &params.argument;
    let reference = Value::Object(params.reference);
    let mut result = catalog
        .complete(&reference, &argument.name, &argument.value, &context)?
        .to_result();
    result["resultType"] = "complete".into();
    Ok(result)
}

const DEFAULT_INSTRUCTIONS: &str = "Tools that take a while run as tasks for clients that declare io.modelcontextprotocol/tasks: poll tasks/get, answer input_required tasks with tasks/update, stop them with tasks/cancel. For other clients a long call answers with a job handle: read the job with job_status (waitSeconds to wait for its end), answer its questions with job_answer, stop it with job_cancel.";

/// `DiscoverResult` (server/discover "Response"), before its caching hints.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DiscoverResult<'a> {
    supported_versions: &'static [&'static str],
    capabilities: ServerCapabilities,
    instructions: &'a str,
}

/// `ServerCapabilities`: tools and the Tasks extension always, the rest as the catalog has.
#[derive(Serialize)]
struct ServerCapabilities {
    tools: ToolsCapability,
    extensions: OneEntry<'static, Empty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompts: Option<Empty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resources: Option<Empty>,
    #[serde(skip_serializing_if = "Option::is_none")]
    completions: Option<Empty>,
}

/// `ServerCapabilities.tools`: `listChanged` for a gateway that tells of changes.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolsCapability {
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    list_changed: bool,
}

/// `server/discover` (server/discover "Response"); its `_meta` naming this server is the
/// one every 2026-07-28 result carries (`Envelope`).
fn discover(config: &Config, catalog: &Catalog, instructions: Option<&str>) -> Value {
    let offered = |offers: bool| offers.then_some(Empty {});
    jsonrpc::payload(&DiscoverResult {
        supported_versions: meta::SUPPORTED_VERSIONS,
        capabilities: ServerCapabilities {
            tools: ToolsCapability {
                list_changed: super::upstreams::tells_tool_changes(config),
            },
            extensions: OneEntry(TASKS_EXTENSION, Empty {}),
            prompts: offered(!catalog.prompts.is_empty()),
            resources: offered(catalog.has_resources()),
            completions: offered(catalog.has_completions()),
        },
        instructions: instructions.unwrap_or(DEFAULT_INSTRUCTIONS),
    })
}

/// Adds `resultType` and the caching hints (SEP-2549) to a list-like result.
fn cacheable(mut result: Value) -> Value {
    let object = result.as_object_mut().expect("results are objects");
    object.insert("resultType".into(), "complete".into());
    object.insert("ttlMs".into(), LIST_TTL_MS.into());
    object.insert("cacheScope".into(), "public".into());
    result
}

/// Everything fits one page, so any cursor is one this server never issued.
fn no_cursor(params: &Map<String, Value>) -> Result<(), McpError> {
    match params::parse::<CursorParams>(params)?.cursor {
        None => Ok(()),
        Some(_) => Err(McpError::InvalidParams(
            "Invalid cursor: this server returns every item in one page".into(),
        )),
    }
}

/// Validates a `tasks/*` request before any routing: the extension must be declared
/// (-32021, checked first: ext-tasks "Protocol Errors"), the id must be one this server
/// could have minted (else "not found" without touching an object).
fn task_request(
    method: &str,
    params: &Map<String, Value>,
    meta: &RequestMeta,
) -> Result<ObjectRequest, McpError> {
    if !meta.capabilities.has(Capability::TasksExtension) {
        return Err(
            Capability::TasksExtension.missing(&format!("{method} is part of the Tasks extension"))
        );
    }
    let (task_id, input_responses) = match method {
        "tasks/update" => {
            let update = params::parse::<TaskUpdateParams>(params)?;
            (update.task_id, Some(update.input_responses.into_map()))
        }
        _ => (params::parse::<TaskIdParams>(params)?.task_id, None),
    };
    if !id::is_valid(&task_id) {
        return Err(McpError::TaskNotFound);
    }
    Ok(match (method, input_responses) {
        ("tasks/get", _) => ObjectRequest::Get { task_id },
        ("tasks/cancel", _) => ObjectRequest::Cancel { task_id },
        (_, input_responses) => ObjectRequest::Update {
            task_id,
            input_responses: input_responses.unwrap_or_default(),
        },
    })
}
