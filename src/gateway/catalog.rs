//! An upstream's tool list as this server's tools: fetched through a session
//! ([`list`]), bounded, each definition checked and kept as the upstream declared it
//! (title, description, input and output schemas, annotations, icons, `_meta`) under
//! its prefixed name, with a step that calls the upstream ([`super::step`]).

use super::client::{self, Bounds, Session, UpstreamError};
use super::step::{self, UpstreamTool};
use super::{Settings, Upstream};
use crate::host::Host;
use crate::mcp::schema::Schema;
use crate::tools::{TaskSupport, Tool};
use serde::Serialize;
use serde_json::Value;
use std::rc::Rc;

/// `tools/list`'s params: the cursor of the page asked, if not the first.
#[derive(Serialize)]
struct ListParams<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    cursor: Option<&'a str>,
}

/// Pages of `tools/list` read at most (a cursor that never ends is refused).
const MAX_PAGES: usize = 20;

/// What a listing produced: the tools, the definitions left out (with why), for the
/// log, and whether the upstream declares `tools.listChanged` (it tells of changes:
/// [`super::watch`]).
#[derive(Debug, Default)]
pub struct Listing {
    pub tools: Vec<Tool>,
    pub skipped: Vec<String>,
    pub list_changed: bool,
}

/// Fetches `upstream`'s tools (every page, at most `settings.max_tools` of them) and
/// makes them this server's.
pub async fn list(
    host: &Host,
    upstream: &Upstream,
    settings: &Settings,
) -> Result<Listing, UpstreamError> {
    let bounds = Bounds {
        timeout_ms: settings.call_timeout_ms.min(30_000),
        max_bytes: settings.max_bytes,
    };
    let mut session = Session::discover(host, upstream, bounds).await?;
    let mut definitions = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = crate::jsonrpc::payload(&ListParams {
            cursor: cursor.as_deref(),
        });
        let result = session.request("tools/list", params, bounds).await?;
        match result.get("tools") {
            Some(Value::Array(tools)) => definitions.extend(tools.iter().cloned()),
            _ => {
                return Err(UpstreamError::Malformed(
                    "its tools/list result has no \"tools\" array".into(),
                ));
            }
        }
        if definitions.len() > settings.max_tools {
            session.close(bounds).await;
            return Err(UpstreamError::Malformed(format!(
                "it lists more than {} tools (UPSTREAM_MAX_TOOLS)",
                settings.max_tools
            )));
        }
        cursor = result
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    session.close(bounds).await;
    if cursor.is_some() {
        return Err(UpstreamError::Malformed(format!(
            "its tools/list did not end within {MAX_PAGES} pages"
        )));
    }
    let mut listing = tools(
        upstream,
        definitions,
        &session.version,
        session.offers_tasks(),
        settings,
    );
    listing.list_changed = session.tells_list_changes();
    Ok(listing)
}

/// The tools of `definitions` that `upstream` offers and that are usable.
/// `version` is the protocol revision the upstream speaks (the session's), `offers_tasks`
/// whether it runs calls as tasks.
pub fn tools(
    upstream: &Upstream,
    definitions: Vec<Value>,
    version: &str,
    offers_tasks: bool,
    settings: &Settings,
) -> Listing {
    let upstream = Rc::new(upstream.clone());
    let mut listing = Listing::default();
    for definition in definitions {
        match tool(&upstream, definition, version, offers_tasks, settings) {
            Ok(Some(tool)) => listing.tools.push(tool),
            Ok(None) => {}
            Err(why) => listing.skipped.push(why),
        }
    }
    listing
}

/// One definition as a tool; `Ok(None)` for one the configuration leaves out.
fn tool(
    upstream: &Rc<Upstream>,
    definition: Value,
    version: &str,
    offers_tasks: bool,
    settings: &Settings,
) -> Result<Option<Tool>, String> {
    let Value::Object(mut definition) = definition else {
        return Err("a tool definition that is not an object".into());
    };
    let Some(Value::String(name)) = definition.remove("name") else {
        return Err("a tool definition without a name".into());
    };
    if !upstream.offers(&name) {
        return Ok(None);
    }
    let prefixed = format!("{}{name}", upstream.prefix);
    let valid = (1..=128).contains(&prefixed.len())
        && prefixed
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
    if !valid {
        return Err(format!("tool {prefixed:?}: not a valid tool name"));
    }
    let input = match definition.remove("inputSchema") {
        Some(schema @ Value::Object(_))
            if schema.get("type").and_then(Value::as_str) == Some("object") =>
        {
            schema
        }
        _ => {
            return Err(format!(
                "tool {name}: its inputSchema is not an object schema"
            ));
        }
    };
    Schema::compile(&input)
        .map_err(|why| format!("tool {name}: its inputSchema cannot be used: {why}"))?;
    let output = match definition.remove("outputSchema") {
        None | Some(Value::Null) => None,
        Some(schema) => Some(
            Schema::compile(&schema)
                .map(|compiled| (schema, compiled))
                .map_err(|why| format!("tool {name}: its outputSchema cannot be used: {why}"))?,
        ),
    };
    // The 2025-11-25 era's per-tool task support is the upstream's business: this server
    // says its own (SEP-2663 has nothing of it on the wire).
    // At 2025-11-25 a tool says whether it may run as a task; at 2026-07-28 the server
    // decides per call (SEP-2663). This server says its own (nothing of it is listed).
    let upstream_tasks = offers_tasks
        && (version == client::MODERN
            || !matches!(
                definition
                    .get("execution")
                    .and_then(|e| e.get("taskSupport"))
                    .and_then(Value::as_str),
                None | Some("forbidden")
            ));
    definition.remove("execution");
    let hint = |key: &str| {
        definition
            .get("annotations")
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
            == Some(true)
    };
    let spec = Rc::new(UpstreamTool {
        upstream: upstream.clone(),
        name: name.clone(),
        version: version.to_owned(),
        param_headers: crate::mcp::headers::param_headers(&input),
        repeatable: hint("idempotentHint") || hint("readOnlyHint"),
        tasks: upstream_tasks,
        jobs: settings.jobs,
        output: output.as_ref().map(|(_, compiled)| compiled.clone()),
        call: Bounds {
            timeout_ms: settings.call_timeout_ms,
            max_bytes: settings.max_bytes,
        },
        inline_ms: settings.inline_ms,
        sessions: settings.sessions.clone(),
    });
    let description = match definition.remove("description") {
        Some(Value::String(d)) => d,
        _ => String::new(),
    };
    let mut tool = Tool::new(&prefixed, &description).schema(input);
    if let Some((schema, _)) = output {
        tool = tool.output_schema(schema);
    }
    // The definition's other fields (title, annotations, icons, `_meta`, …), kept.
    for (key, value) in definition {
        tool = tool.field(&key, value);
    }
    let (run, cancel) = (spec.clone(), spec);
    Ok(Some(
        tool.task(TaskSupport::Optional)
            .of_upstream(&upstream.name)
            .run_json(move |call, host| step::run(run.clone(), call, host))
            .on_cancel(move |call, host| step::cancelled(cancel.clone(), call, host)),
    ))
}
