//! The gateway's configuration (`UPSTREAMS`, `UPSTREAM_*`) and an upstream's tool list
//! made into this server's tools (`gateway::catalog`).
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

mod common;

use mcp_tasks_edge::gateway::{Settings, catalog};
use mcp_tasks_edge::server::{Config, Server};
use mcp_tasks_edge::tools::TaskSupport;
use serde_json::{Value, json};

fn settings(upstreams: &str) -> Result<Settings, mcp_tasks_edge::vars::ConfigError> {
    Settings::default().with_vars(|name| (name == "UPSTREAMS").then(|| upstreams.to_owned()))
}

#[test]
fn upstreams_parse_with_their_defaults() {
    let s = settings(
        r#"[{"name":"reports","url":"https://reports.example/mcp","prefix":"r_","token":"R_TOKEN","tools":["a"],"exclude":["b"]},
            {"name":"local","url":"http://127.0.0.1:9000/mcp","version":"2025-11-25"}]"#,
    )
    .unwrap();
    assert_eq!(s.upstreams.len(), 2);
    assert_eq!(
        s.upstreams[0].version, None,
        "by default, what discovery finds"
    );
    assert_eq!(s.upstreams[1].version.as_deref(), Some("2025-11-25"));
    assert_eq!(s.upstreams[0].prefix, "r_");
    assert_eq!(s.upstreams[0].token.as_deref(), Some("R_TOKEN"));
    assert!(
        s.upstreams[0].offers("a") && !s.upstreams[0].offers("b") && !s.upstreams[0].offers("c")
    );
    assert!(s.upstreams[1].offers("anything"));
    assert_eq!(s.list_ttl_ms, 60_000);
    assert_eq!(s.inline_ms, 5_000);
    assert!(settings("").unwrap().upstreams.is_empty());
    let bound = settings(r#"[{"name":"agents","binding":"AGENTS"}]"#).unwrap();
    assert_eq!(bound.upstreams[0].endpoint(), "https://agents.binding/mcp");
    assert!(
        bound.upstreams[0].allow_list().is_empty(),
        "a binding opens no host"
    );
}

#[test]
fn bad_upstreams_are_refused_naming_the_problem() {
    let cases = [
        (r#"{"name":"x"}"#, "not a JSON array"),
        (
            r#"[{"name":"a","url":"http://reports.example/mcp"}]"#,
            "must be https",
        ),
        (
            r#"[{"name":"a","url":"https://u:p@reports.example/mcp"}]"#,
            "credentials in a secret",
        ),
        (
            r#"[{"name":"a","url":"https://x.example/mcp"},{"name":"a","url":"https://y.example/mcp"}]"#,
            "used twice",
        ),
        (
            r#"[{"name":"bad name","url":"https://x.example/mcp"}]"#,
            "an upstream's name",
        ),
        (
            r#"[{"name":"a","url":"https://x.example/mcp","prefix":"no spaces"}]"#,
            "prefix",
        ),
        (
            r#"[{"name":"a","url":"https://x.example/mcp","header":"x-key"}]"#,
            "\"token\" is needed",
        ),
        (
            r#"[{"name":"a","url":"https://x.example/mcp","tokn":"T"}]"#,
            "unknown field",
        ),
        (r#"[{"name":"a","url":"not a url"}]"#, "url"),
        (
            r#"[{"name":"a","binding":"AGENTS","url":"https://x.example/mcp"}]"#,
            "instead of a url",
        ),
        (
            r#"[{"name":"a","binding":"not a name"}]"#,
            "a binding's name",
        ),
        (
            r#"[{"name":"a","binding":"AGENTS","path":"mcp"}]"#,
            "start with /",
        ),
        (
            r#"[{"name":"a","url":"https://x.example/mcp","path":"/mcp"}]"#,
            "goes with \"binding\"",
        ),
        (
            r#"[{"name":"a","url":"https://x.example/mcp","version":"2025-06-18"}]"#,
            "\"version\" is \"2025-11-25\" or \"2026-07-28\"",
        ),
    ];
    for (value, expected) in cases {
        let error = settings(value).unwrap_err();
        assert_eq!(error.variable, "UPSTREAMS", "{error}");
        assert!(error.reason.starts_with("UPSTREAMS: "), "{error}");
        assert!(error.reason.contains(expected), "{value}: {error}");
    }
    // The whole configuration says which variable is wrong.
    let error = Config::from_vars(|n| (n == "UPSTREAMS").then(|| "[1]".to_owned())).unwrap_err();
    assert_eq!(error.variable, "UPSTREAMS", "{error}");
    let error =
        Config::from_vars(|n| (n == "UPSTREAM_MAX_TOOLS").then(|| "many".to_owned())).unwrap_err();
    assert_eq!(error.variable, "UPSTREAM_MAX_TOOLS", "{error}");
}

fn listing(prefix: &str, definitions: Vec<Value>, tasks: bool) -> catalog::Listing {
    let s = settings(&format!(
        r#"[{{"name":"up","url":"https://up.example/mcp","prefix":"{prefix}","exclude":["hidden"]}}]"#
    ))
    .unwrap();
    catalog::tools(&s.upstreams[0], definitions, "2025-11-25", tasks, &s)
}

#[test]
fn definitions_are_kept_as_the_upstream_declared_them_under_the_prefix() {
    let definition = json!({
        "name": "render",
        "title": "Render a report",
        "description": "Renders.",
        "inputSchema": { "type": "object", "properties": { "pages": { "type": "integer", "minimum": 1 } }, "required": ["pages"] },
        "outputSchema": { "type": "object", "properties": { "url": { "type": "string" } }, "required": ["url"] },
        "annotations": { "readOnlyHint": true },
        "icons": [{ "src": "https://up.example/i.png" }],
        "_meta": { "vendor/x": 1 },
        "execution": { "taskSupport": "optional" },
    });
    let l = listing(
        "up_",
        vec![
            definition.clone(),
            json!({ "name": "hidden", "inputSchema": { "type": "object" } }),
        ],
        false,
    );
    assert!(l.skipped.is_empty(), "{:?}", l.skipped);
    assert_eq!(l.tools.len(), 1, "an excluded tool is left out");
    let tool = &l.tools[0];
    assert_eq!(tool.name(), "up_render");
    assert_eq!(tool.task_support(), TaskSupport::Optional);
    assert!(tool.has_cancel_hook());
    let listed = tool.definition();
    for key in [
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
        "icons",
        "_meta",
    ] {
        assert_eq!(listed[key], definition[key], "{key}");
    }
    assert!(
        listed.get("execution").is_none(),
        "the upstream's era-specific task support is not listed"
    );
    // Arguments are validated against the upstream's schema before any upstream call.
    let error = tool
        .check_arguments(Some(&json!({ "pages": 0 })))
        .unwrap_err();
    assert!(error.to_string().contains("/pages"), "{error}");
    assert!(tool.check_arguments(Some(&json!({ "pages": 2 }))).is_ok());
}

#[test]
fn unusable_definitions_are_skipped_with_the_reason() {
    let l = listing(
        "",
        vec![
            json!("not an object"),
            json!({ "inputSchema": { "type": "object" } }),
            json!({ "name": "no_schema" }),
            json!({ "name": "array_schema", "inputSchema": { "type": "array" } }),
            json!({ "name": "bad name!", "inputSchema": { "type": "object" } }),
            json!({ "name": "bad_output", "inputSchema": { "type": "object" }, "outputSchema": { "type": 5 } }),
            json!({ "name": "fine", "inputSchema": { "type": "object" } }),
        ],
        false,
    );
    assert_eq!(
        l.tools
            .iter()
            .map(|t| t.name().to_owned())
            .collect::<Vec<_>>(),
        ["fine"]
    );
    assert_eq!(l.skipped.len(), 6, "{:?}", l.skipped);
    assert!(
        l.skipped.iter().any(|s| s.contains("no_schema")),
        "{:?}",
        l.skipped
    );
    assert!(
        l.skipped
            .iter()
            .any(|s| s.contains("bad_output") && s.contains("outputSchema")),
        "{:?}",
        l.skipped
    );
}

#[test]
fn upstream_tools_join_the_server_without_taking_a_name() {
    let server = Server::builder("gw")
        .tool(
            mcp_tasks_edge::tools::Tool::new("render", "native")
                .sync(|_| mcp_tasks_edge::tools::Step::text("x")),
        )
        .build();
    let l = listing(
        "",
        vec![
            json!({ "name": "render", "inputSchema": { "type": "object" } }),
            json!({ "name": "job_status", "inputSchema": { "type": "object" } }),
            json!({ "name": "export", "inputSchema": { "type": "object" } }),
        ],
        false,
    );
    let (merged, clashes) =
        server.with_upstream_tools(l.tools, vec![("down_".into(), "down".into())]);
    assert_eq!(clashes, ["render", "job_status"]);
    assert!(merged.problems().is_empty(), "{:?}", merged.problems());
    assert!(merged.registry.get("export").is_some());
    assert_eq!(
        merged.registry.get("render").unwrap().definition()["description"],
        "native"
    );
    let listed: Value = serde_json::from_slice(&merged.lists.tools).unwrap();
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["render", "export"]);
    // An upstream that could not be listed: its tools' tasks wait for it.
    assert_eq!(merged.registry.awaited("down_report"), Some("down"));
    assert_eq!(merged.registry.awaited("render"), None);
}

#[test]
fn a_task_of_an_upstream_that_could_not_be_listed_waits_instead_of_failing() {
    use mcp_tasks_edge::host::{Host, block_on, fake::FakeHost};
    use mcp_tasks_edge::tasks::execution;
    use mcp_tasks_edge::tools::{Registry, Step};
    let record = |tool: &str| common::working_task(tool, json!({}), Value::Null);
    let registry = Registry::new(Vec::new()).awaiting(vec![("down_".into(), "down".into())]);
    let host = Host::new(FakeHost::new());
    let down = record("down_report");
    let step = block_on(execution::run_step(
        &down,
        &registry,
        host.clone(),
        down.call(0, 1),
    ));
    let Step::Continue {
        status_message: Some(message),
        resume_after_ms,
        ..
    } = step
    else {
        panic!("{step:?}")
    };
    assert_eq!(resume_after_ms, execution::UPSTREAM_RETRY_MS);
    assert!(message.contains("\"down\""), "{message}");
    // A tool of no awaited upstream is gone for good: the task fails saying so.
    let gone = record("gone");
    let step = block_on(execution::run_step(&gone, &registry, host, gone.call(0, 1)));
    assert!(matches!(step, Step::Fail(e) if e.message.contains("no longer exists")));
}
