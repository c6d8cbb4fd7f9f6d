//! Method dispatch for one JSON-RPC request (after the HTTP checks in `server`).

use super::{Action, Config, Context, Cors, Server, call, listen, result_response};
use crate::error::McpError;
use crate::http::Headers;
use crate::http::HttpResponse;
use crate::jsonrpc;
use crate::jsonrpc::Request;
use crate::mcp::meta::{self, Capability, RequestMeta, TASKS_EXTENSION};
use crate::mcp::{catalog, headers};
use crate::tasks::id;
use crate::tasks::protocol::ObjectRequest;
use crate::tools::Registry;
use serde_json::{Map, Value, json};

/// List results are the same for every caller and change only on deploy.
const LIST_TTL_MS: u64 = 60_000;

pub fn dispatch(
    server: &Server,
    rpc: &Request,
    http_headers: &Headers,
    ctx: &Context,
    cors: &Cors,
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
    let params = &rpc.params;
    let respond = |result: Value| Ok(Action::Respond(result_response(&rpc.id, &result, cors)));
    // Static results are serialized once per isolate and spliced into the envelope.
    let respond_static = |raw: &[u8]| {
        let body = jsonrpc::result_response_raw(&rpc.id, raw);
        Ok(Action::Respond(cors.apply(HttpResponse::json(200, body))))
    };
    let lists = &server.lists;
    match rpc.method.as_str() {
        "server/discover" => respond_static(&lists.discover),
        "tools/list" => {
            no_cursor(params)?;
            respond_static(&lists.tools)
        }
        "tools/call" => call::tools_call(server, rpc, http_headers, &meta, ctx, cors),
        "prompts/list" => {
            no_cursor(params)?;
            respond_static(&lists.prompts)
        }
        "prompts/get" => call::prompts_get(server, rpc, &meta, ctx, cors),
        "resources/list" => {
            no_cursor(params)?;
            respond_static(&lists.resources)
        }
        "resources/templates/list" => {
            no_cursor(params)?;
            respond_static(&lists.resource_templates)
        }
        "resources/read" => {
            let uri = string_param(params, "uri")?;
            let contents = catalog::read(&server.registry, uri)
                .ok_or_else(|| McpError::InvalidParams(format!("Resource not found: {uri}")))?;
            respond(cacheable(json!({ "contents": [contents] })))
        }
        "tasks/get" | "tasks/update" | "tasks/cancel" => {
            let request = task_request(&rpc.method, params, &meta)?;
            Ok(Action::Forward {
                request_id: rpc.id.clone(),
                request,
                cors: cors.clone(),
            })
        }
        "subscriptions/listen" => listen::open(server, rpc, &meta, ctx, cors),
        // tasks/result and tasks/list were removed by SEP-2663; initialize, ping,
        // logging/setLevel, resources/subscribe… by 2026-07-28. All are unknown here.
        other => Err(McpError::MethodNotFound(other.to_owned())),
    }
}

/// The results that never change while an isolate lives, serialized once.
#[derive(Debug, Clone)]
pub struct StaticResults {
    pub discover: Vec<u8>,
    pub tools: Vec<u8>,
    pub prompts: Vec<u8>,
    pub resources: Vec<u8>,
    pub resource_templates: Vec<u8>,
}

impl StaticResults {
    pub fn new(config: &Config, registry: &Registry, instructions: Option<&str>) -> Self {
        let bytes = |v: Value| serde_json::to_vec(&cacheable(v)).expect("results serialize");
        StaticResults {
            discover: bytes(discover(config, instructions)),
            tools: bytes(json!({ "tools": registry.definitions() })),
            prompts: bytes(json!({ "prompts": catalog::prompts(config.fixtures) })),
            resources: bytes(json!({ "resources": catalog::resources() })),
            resource_templates: bytes(json!({ "resourceTemplates": [] })),
        }
    }
}

const DEFAULT_INSTRUCTIONS: &str = "Tools that take a while run as tasks (io.modelcontextprotocol/tasks): poll tasks/get, answer input_required tasks with tasks/update, stop them with tasks/cancel.";

/// `server/discover` (server/discover "Response").
fn discover(config: &Config, instructions: Option<&str>) -> Value {
    let instructions = instructions.unwrap_or(DEFAULT_INSTRUCTIONS);
    json!({
        "supportedVersions": meta::SUPPORTED_VERSIONS,
        "capabilities": {
            "tools": {},
            "prompts": {},
            "resources": {},
            "extensions": { TASKS_EXTENSION: {} }
        },
        "instructions": instructions,
        "_meta": { meta::KEY_SERVER_INFO: { "name": config.server_name, "version": config.server_version } }
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
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(McpError::InvalidParams(
            "Invalid cursor: this server returns every item in one page".into(),
        )),
    }
}

pub fn string_param<'a>(params: &'a Map<String, Value>, name: &str) -> Result<&'a str, McpError> {
    match params.get(name) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(McpError::InvalidParams(format!(
            "params.{name} must be a string"
        ))),
        None => Err(McpError::InvalidParams(format!(
            "params.{name} is required"
        ))),
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
    let task_id = string_param(params, "taskId")?.to_owned();
    if !id::is_valid(&task_id) {
        return Err(McpError::TaskNotFound);
    }
    Ok(match method {
        "tasks/get" => ObjectRequest::Get { task_id },
        "tasks/cancel" => ObjectRequest::Cancel { task_id },
        _ => ObjectRequest::Update {
            task_id,
            input_responses: match params.get("inputResponses") {
                Some(Value::Object(_)) => crate::mcp::input::parse_input_responses(params)?,
                _ => {
                    return Err(McpError::InvalidParams(
                        "params.inputResponses must be an object".into(),
                    ));
                }
            },
        },
    })
}
