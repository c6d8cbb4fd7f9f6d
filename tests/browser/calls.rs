//! Discovery, listing, synchronous calls, MRTR rounds and errors.

use crate::support::*;
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
async fn discover_reports_the_server() {
    let client = connect().await;
    let discovery = prop(&client, "discovery");
    assert!(strings(&prop(&discovery, "supportedVersions")).contains(&"2026-07-28".to_owned()));
    assert!(
        !prop(
            &prop(&prop(&discovery, "capabilities"), "extensions"),
            "io.modelcontextprotocol/tasks"
        )
        .is_undefined()
    );
    assert_eq!(
        prop(&prop(&client, "serverInfo"), "name")
            .as_string()
            .as_deref(),
        Some("mcp-tasks-edge")
    );
}

#[wasm_bindgen_test]
async fn list_tools_returns_the_catalog() {
    let client = connect().await;
    let tools = Array::from(&call(&client, "listTools", &[]).await.unwrap());
    let names: Vec<String> = tools
        .iter()
        .filter_map(|t| prop(&t, "name").as_string())
        .collect();
    for expected in ["greet", "slow_compute", "confirm_delete", "process_batch"] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} missing from {names:?}"
        );
    }
    assert!(prop(&tools.get(0), "inputSchema").is_object());
}

#[wasm_bindgen_test]
async fn sync_call_carries_headers_and_meta() {
    let recorder = recording_fetch();
    let options = obj(
        r#"{"bearerToken":"browser-test-token","clientInfo":{"name":"browser-tests","version":"1.2.3"}}"#,
    );
    Reflect::set(&options, &"fetch".into(), &prop(&recorder, "fetch")).unwrap();
    let client = connect_with(&mcp_url(), options).await.expect("connect");
    let result = call(
        &client,
        "callTool",
        &[&"greet".into(), &obj(r#"{"name":"Ada"}"#)],
    )
    .await
    .unwrap();
    assert_eq!(first_text(&result), "Hello, Ada!");
    // x-mcp-header argument with non-ASCII text: Mcp-Param-Value goes Base64.
    let result = call(
        &client,
        "callTool",
        &[
            &"test_header_param".into(),
            &obj(r#"{"value":"Grüße, 世界"}"#),
        ],
    )
    .await
    .unwrap();
    assert_eq!(first_text(&result), "value=Grüße, 世界");

    let requests = Array::from(&prop(&recorder, "requests"));
    let methods: Vec<String> = requests
        .iter()
        .map(|r| prop(&prop(&r, "body"), "method").as_string().unwrap())
        .collect();
    // The first call lists the tools once, for their x-mcp-header annotations.
    assert_eq!(
        methods,
        ["server/discover", "tools/list", "tools/call", "tools/call"]
    );
    for request in requests.iter() {
        let headers = prop(&request, "headers");
        let body = prop(&request, "body");
        assert_eq!(
            prop(&headers, "mcp-protocol-version")
                .as_string()
                .as_deref(),
            Some("2026-07-28")
        );
        assert_eq!(prop(&headers, "mcp-method"), prop(&body, "method"));
        assert_eq!(
            prop(&headers, "authorization").as_string().as_deref(),
            Some("Bearer browser-test-token")
        );
        let meta = prop(&prop(&body, "params"), "_meta");
        assert_eq!(
            prop(&meta, "io.modelcontextprotocol/protocolVersion")
                .as_string()
                .as_deref(),
            Some("2026-07-28")
        );
        assert_eq!(
            prop(&prop(&meta, "io.modelcontextprotocol/clientInfo"), "name")
                .as_string()
                .as_deref(),
            Some("browser-tests")
        );
        assert!(prop(&meta, "io.modelcontextprotocol/clientCapabilities").is_object());
    }
    let calls: Vec<JsValue> = requests
        .iter()
        .filter(|r| prop(&prop(r, "body"), "method").as_string().as_deref() == Some("tools/call"))
        .collect();
    assert_eq!(
        prop(&prop(&calls[0], "headers"), "mcp-name")
            .as_string()
            .as_deref(),
        Some("greet")
    );
    assert_eq!(
        prop(&prop(&calls[1], "headers"), "mcp-param-value")
            .as_string()
            .as_deref(),
        Some("=?base64?R3LDvMOfZSwg5LiW55WM?=")
    );
}

#[wasm_bindgen_test]
async fn mrtr_round_is_answered_by_the_handler() {
    let client = connect().await;
    // One answer for every question of these tools: a name, and the colour the
    // multi-round tool's second round requires (the server checks answers against the
    // requested schema).
    let recorder = recording_options(
        &obj(r#"{"action":"accept","content":{"name":"Grace","color":"green"}}"#),
        0,
    );
    let options = prop(&recorder, "options");
    let result = call(
        &client,
        "callTool",
        &[
            &"test_input_required_result_elicitation".into(),
            &obj("{}"),
            &options,
        ],
    )
    .await
    .unwrap();
    assert_eq!(first_text(&result), "Hello, Grace!");
    let seen = Array::from(&prop(&prop(&recorder, "seen"), "elicitations"));
    assert_eq!(seen.length(), 1);
    assert_eq!(
        prop(&seen.get(0), "key").as_string().as_deref(),
        Some("user_name")
    );
    // Elicitation, sampling and roots in one round go to their three handlers.
    let result = call(
        &client,
        "callTool",
        &[
            &"test_input_required_result_multiple_inputs".into(),
            &obj("{}"),
            &options,
        ],
    )
    .await
    .unwrap();
    assert_eq!(first_text(&result), "Hi there Grace (roots: file:///work)");
    // Two rounds in a row.
    let result = call(
        &client,
        "callTool",
        &[
            &"test_input_required_result_multi_round".into(),
            &obj("{}"),
            &options,
        ],
    )
    .await
    .unwrap();
    assert!(
        first_text(&result).starts_with("Grace likes"),
        "{}",
        first_text(&result)
    );
}

#[wasm_bindgen_test]
async fn unknown_or_expired_task_is_an_mcp_error() {
    let client = connect().await;
    for id in ["0123456789abcdef0123456789abcdef", "not-a-task-id"] {
        let error = call(&client, "getTask", &[&id.into()])
            .await
            .expect_err("unknown task");
        assert_mcp_error(&error, -32602);
        let error = call(&client, "resumeTask", &[&id.into()])
            .await
            .expect_err("unknown task");
        assert_mcp_error(&error, -32602);
    }
}

#[wasm_bindgen_test]
async fn garbage_answers_are_mcp_errors() {
    let base = mcp_url().trim_end_matches("/mcp").to_owned();
    // The Worker's static HTML page, not an MCP endpoint.
    let error = connect_with(&format!("{base}/index.html"), JsValue::UNDEFINED)
        .await
        .expect_err("HTML is not MCP");
    assert!(error.is_instance_of::<js_sys::Error>());
    assert_eq!(
        prop(&error, "name").as_string().as_deref(),
        Some("McpError")
    );
    // A path the Worker answers with an error body.
    let error = connect_with(&format!("{base}/not-mcp"), JsValue::UNDEFINED)
        .await
        .expect_err("wrong path");
    assert_eq!(
        prop(&error, "name").as_string().as_deref(),
        Some("McpError")
    );
    let cases = [
        (
            "<!doctype html><title>Oops</title>",
            "text/html",
            200,
            -32700,
        ),
        (r#"{"hello":"world"}"#, "application/json", 200, -32600),
        ("Bad Gateway", "text/plain", 502, -32700),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2025-11-25"]}}"#,
            "application/json",
            200,
            -32022,
        ),
    ];
    for (body, content_type, status, code) in cases {
        let options = js_sys::Object::new();
        Reflect::set(
            &options,
            &"fetch".into(),
            &garbage_fetch(body, content_type, status),
        )
        .unwrap();
        let error = connect_with(&mcp_url(), options.into())
            .await
            .expect_err(body);
        assert_mcp_error(&error, code);
    }
}

#[wasm_bindgen_test]
async fn a_dead_port_is_unreachable_and_bad_sign_in_options_are_refused() {
    // A loopback port nothing listens on (tests/browser/run.mjs picks it): the browser
    // reaches nothing, and the error says so with the URL.
    let dead = dead_url();
    let dead = dead.as_str();
    let error = connect_with(dead, JsValue::UNDEFINED)
        .await
        .expect_err("nothing listens there");
    let message = assert_mcp_error(&error, -32603);
    let data = prop(&error, "data");
    assert_eq!(prop(&data, "url").as_string().as_deref(), Some(dead));
    assert_eq!(prop(&data, "reachable").as_bool(), Some(false), "{message}");
    assert!(
        prop(&data, "reason")
            .as_string()
            .unwrap_or_default()
            .starts_with(&format!("the browser could not reach {dead}")),
        "{message}"
    );
    for (options, says) in [
        (r#"{"signIn":{}}"#, "clientId must be a non-empty string"),
        (
            r#"{"signIn":{"clientId":"x","mode":"sideways"}}"#,
            "mode must be \"popup\" or \"redirect\"",
        ),
        (
            r#"{"signIn":{"clientId":"x","storage":"disk"}}"#,
            "storage must be \"memory\" or \"session\"",
        ),
    ] {
        let error = connect_with(&mcp_url(), obj(options))
            .await
            .expect_err(options);
        let message = assert_mcp_error(&error, -32602);
        assert!(message.contains(says), "{options}: {message}");
    }
    // An anonymous-friendly server never asks: signIn is there but unused.
    let client = connect_with(&mcp_url(), obj(r#"{"signIn":{"clientId":"x"}}"#))
        .await
        .expect("no 401, no sign-in");
    assert_eq!(prop(&client, "signedIn").as_bool(), Some(false));
}
