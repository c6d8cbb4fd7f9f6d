//! Property tests of every parser that reads what a caller sends: the JSON-RPC envelope,
//! the MCP headers (with their Base64 sentinel form), `_meta` and params (through the whole
//! request handler), `requestState`, the `Authorization` header, JWTs, `API_KEYS`, the
//! outbound allow-list, typed params and the 2025-11-25 session planner. For
//! any input: no panic, and every refusal is a clear error (a JSON-RPC error object with
//! a message, or a reason). cargo-fuzz needs nightly; these run on stable with `cargo test`.
// Native only: proptest is a native dev-dependency.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use common::{NOW, ctx, server};
use mcp_tasks_edge::auth::{self, AuthConfig, jwt};
use mcp_tasks_edge::http::{Headers, HttpRequest};
use mcp_tasks_edge::jsonrpc;
use mcp_tasks_edge::mcp::{headers, request_state};
use mcp_tasks_edge::server::Action;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A host `*` must never allow: this machine, private networks, link-local (the cloud
/// metadata address among them), shared and unspecified addresses, in any spelling.
fn not_public_host() -> impl Strategy<Value = String> {
    let v4 = |a: u8, b: std::ops::RangeInclusive<u8>| {
        (b, any::<u8>(), any::<u8>()).prop_map(move |(b, c, d)| format!("{a}.{b}.{c}.{d}"))
    };
    prop_oneof![
        v4(127, 0..=255),
        v4(10, 0..=255),
        v4(172, 16..=31),
        v4(192, 168..=168),
        v4(169, 254..=254),
        v4(100, 64..=127),
        v4(0, 0..=255),
        Just("2130706433".to_string()),
        Just("0x7f.1".to_string()),
        Just("[::1]".to_string()),
        Just("[::]".to_string()),
        Just("[::ffff:127.0.0.1]".to_string()),
        Just("[::ffff:169.254.169.254]".to_string()),
        (0xfc00u16..=0xfdff, any::<u16>()).prop_map(|(a, b)| format!("[{a:x}::{b:x}]")),
        (0xfe80u16..=0xfebf, any::<u16>()).prop_map(|(a, b)| format!("[{a:x}::{b:x}]")),
        "(localhost|LOCALHOST|[a-z]{1,8}\\.localhost)\\.?",
    ]
}

/// A JSON-RPC message a 2025-11-25 session could receive: requests of each kind,
/// notifications and answers.
fn session_message() -> impl Strategy<Value = Value> {
    let method = prop::sample::select(vec![
        "initialize",
        "ping",
        "tools/list",
        "tools/call",
        "tasks/get",
        "tasks/list",
        "tasks/cancel",
        "tasks/result",
        "resources/subscribe",
        "resources/unsubscribe",
        "logging/setLevel",
        "resources/read",
        "notifications/initialized",
        "unknown/method",
    ]);
    let params = prop_oneof![
        any_json(),
        Just(json!({ "protocolVersion": "2025-11-25" })),
        Just(json!({ "protocolVersion": "2025-11-25",
            "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } })),
    ];
    (method, any::<bool>(), params).prop_map(|(method, answer, params)| {
        if answer {
            json!({ "jsonrpc": "2.0", "id": "9c1e", "result": params })
        } else if method.starts_with("notifications/") {
            json!({ "jsonrpc": "2.0", "method": method })
        } else {
            json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params })
        }
    })
}

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
        prop_oneof![
            Just("2026-07-28"),
            Just("tools/call"),
            Just("tasks/get"),
            Just("echo"),
            Just("io.modelcontextprotocol/tasks"),
            Just("io.modelcontextprotocol/protocolVersion"),
            Just("io.modelcontextprotocol/clientCapabilities"),
            Just("requestState"),
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    "[a-zA-Z_/.]{0,10}".boxed(),
                    prop_oneof![
                        Just("jsonrpc"),
                        Just("id"),
                        Just("method"),
                        Just("params"),
                        Just("_meta"),
                        Just("name"),
                        Just("arguments"),
                        Just("taskId"),
                        Just("inputResponses"),
                        Just("requestState"),
                        Just("notifications"),
                        Just("taskIds"),
                    ]
                    .prop_map(str::to_owned)
                    .boxed(),
                ],
                inner,
                0..6,
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A request-shaped body: mostly valid envelopes with arbitrary params.
fn any_envelope() -> impl Strategy<Value = Value> {
    let method = prop_oneof![
        Just("tools/call"),
        Just("tools/list"),
        Just("tasks/get"),
        Just("tasks/update"),
        Just("tasks/cancel"),
        Just("subscriptions/listen"),
        Just("server/discover"),
        Just("prompts/get"),
        Just("resources/read"),
        Just("ping"),
        Just("nope"),
    ];
    (method, any_json(), any_json(), any::<bool>()).prop_map(
        |(method, params, meta, valid_meta)| {
            let mut params = match params {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            params.insert(
                "_meta".into(),
                if valid_meta {
                    common::meta(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))
                } else {
                    meta
                },
            );
            json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params })
        },
    )
}

fn assert_clear(response: &mcp_tasks_edge::http::HttpResponse) {
    if response.status == 202 || response.body.is_empty() {
        return;
    }
    let body: Value = serde_json::from_slice(&response.body).expect("every answer is JSON");
    if let Some(error) = body.get("error") {
        assert!(error["code"].is_i64(), "{body}");
        assert!(
            error["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{body}"
        );
        assert!(response.status >= 200, "{body}");
    }
}

fn handle(request: &HttpRequest) {
    let server = server();
    // Other actions (reaching task objects or streams) come from valid requests.
    if let Action::Respond(response) = common::run_action(&server, server.handle(request, &ctx())) {
        assert_clear(&response);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_envelope_parser_never_panics_on_bytes(body in prop::collection::vec(any::<u8>(), 0..256)) {
        if let Err(e) = jsonrpc::parse_message(&body) {
            prop_assert!(!e.error.message.is_empty());
        }
    }

    #[test]
    fn the_envelope_parser_never_panics_on_json(value in any_json()) {
        let _ = jsonrpc::parse_message(value.to_string().as_bytes());
    }

    #[test]
    fn the_handler_answers_any_body_clearly(value in any_envelope()) {
        let method = value["method"].as_str().unwrap_or_default().to_owned();
        let mut request = common::raw(&value.to_string());
        request.headers.push("mcp-method", &method);
        if let Some(name) = value["params"].get("name").or(value["params"].get("taskId")).and_then(Value::as_str) {
            request.headers.push("mcp-name", &headers::encode_value(name));
        }
        handle(&request);
    }

    #[test]
    fn the_handler_answers_any_headers_clearly(
        pairs in prop::collection::vec((
            prop_oneof![
                Just("mcp-method".to_owned()), Just("mcp-name".to_owned()),
                Just("mcp-protocol-version".to_owned()), Just("mcp-param-a".to_owned()),
                Just("content-type".to_owned()), Just("content-length".to_owned()),
                Just("origin".to_owned()), "[a-z-]{1,12}",
            ],
            prop_oneof!["\\PC{0,20}", "=\\?base64\\?[A-Za-z0-9+/=]{0,12}\\?=", Just("2026-07-28".to_owned())],
        ), 0..6),
    ) {
        let mut request = common::post("tools/call", json!({"name": "echo", "arguments": {"message": "hi"}}));
        for (name, value) in &pairs {
            request.headers.push(name, value);
        }
        handle(&request);
    }

    #[test]
    fn header_values_decode_or_refuse(raw in prop_oneof!["\\PC{0,30}", "=\\?base64\\?\\PC{0,16}\\?="]) {
        if let Err(e) = headers::decode_value(&raw, "Mcp-Name") {
            prop_assert!(!e.to_wire().message.is_empty());
        }
        // What a client encodes decodes to itself.
        prop_assert_eq!(headers::decode_value(&headers::encode_value(&raw), "x").unwrap(), raw);
    }

    #[test]
    fn request_state_opens_only_what_was_sealed(
        state in prop_oneof![
            "\\PC{0,60}",
            "[A-Za-z0-9_-]{0,40}\\.[A-Za-z0-9_-]{0,30}",
            any_json().prop_map(|v| format!("{}.{}", B64.encode(v.to_string()), B64.encode([1u8; 16]))),
        ],
    ) {
        let arguments = Map::new();
        let binding = request_state::Binding { principal: "p", request: "tools/call x", arguments: &arguments };
        let e = request_state::open(b"secret-0123456789abcdef", binding, &state, NOW).unwrap_err();
        prop_assert!(e.to_wire().message.starts_with("Invalid requestState"));
    }

    #[test]
    fn authorization_headers_never_panic(value in "\\PC{0,80}") {
        let config = AuthConfig {
            issuer: Some("https://issuer.example".into()),
            api_keys: auth::parse_api_keys(&"a".repeat(64)).unwrap(),
            ..AuthConfig::default()
        };
        let headers = Headers::from([("authorization", value.as_str())]);
        if let auth::Outcome::Refused(e) = config.authenticate(&headers) {
            prop_assert!(!e.to_wire().message.is_empty());
            prop_assert!(!e.http_headers("https://x/.well-known/oauth-protected-resource/mcp").is_empty());
        }
    }

    #[test]
    fn jwts_parse_or_refuse_clearly(
        header in any_json(), claims in any_json(), sig in prop::collection::vec(any::<u8>(), 0..80),
        alg in prop_oneof![Just("RS256"), Just("ES256"), Just("none"), Just("HS256"), Just("")],
    ) {
        let mut header = header;
        if let Value::Object(m) = &mut header {
            m.insert("alg".into(), alg.into());
        }
        let token = format!("{}.{}.{}", B64.encode(header.to_string()), B64.encode(claims.to_string()), B64.encode(&sig));
        match jwt::parse(&token) {
            Ok(t) => {
                prop_assert!(matches!(alg, "RS256" | "ES256"));
                let audiences = vec!["https://x/mcp".to_owned()];
                let rules = jwt::ClaimRules { issuer: "https://issuer.example", audiences: &audiences, now_ms: NOW };
                if let Err(jwt::Invalid(why)) = jwt::check_claims(&t.claims, &rules) {
                    prop_assert!(!why.is_empty());
                }
            }
            Err(jwt::Invalid(why)) => prop_assert!(!why.is_empty()),
        }
    }

    #[test]
    fn jwt_shaped_garbage_never_panics(token in "[A-Za-z0-9_.-]{0,120}") {
        let _ = jwt::parse(&token);
        let _ = jwt::parse_jwks(token.as_bytes());
    }

    #[test]
    fn api_key_lists_parse_or_refuse_clearly(value in prop_oneof!["\\PC{0,100}", "([a-z]{1,5}=)?[0-9a-f]{60,66}(,[0-9a-f]{64})?"]) {
        if let Err(e) = auth::parse_api_keys(&value) {
            prop_assert!(e.starts_with("API_KEYS"));
        }
    }

    #[test]
    fn allow_lists_parse_or_refuse_and_check_any_url(
        spec in prop_oneof!["\\PC{0,40}", "(\\*\\.)?[a-z0-9.\\[\\]:]{1,20}(:(\\*|[0-9]{1,6}))?(, ?[a-z.*]{1,10})?"],
        url in prop_oneof!["\\PC{0,40}", "https?://[a-z0-9.\\[\\]:-]{1,24}(:[0-9]{1,5})?/[a-z]{0,5}"],
    ) {
        if let Ok(list) = mcp_tasks_edge::host::AllowList::parse(&spec) {
            match list.check(&url) {
                Ok(()) => prop_assert!(url.starts_with("http")),
                Err(e) => prop_assert!(!e.to_string().is_empty()),
            }
        }
    }

    #[test]
    fn any_public_host_is_never_this_machine_nor_a_private_network(
        host in not_public_host(),
        scheme in prop_oneof![Just("http"), Just("https")],
        port in prop_oneof![Just(String::new()), (1u16..).prop_map(|p| format!(":{p}"))],
        spec in prop_oneof![Just("*"), Just("*, api.example.com"), Just("*.example.com, *")],
    ) {
        let url = format!("{scheme}://{host}{port}/x");
        let list = mcp_tasks_edge::host::AllowList::parse(spec).unwrap();
        prop_assert!(list.check(&url).is_err(), "{spec} allowed {url}");
    }

    #[test]
    fn typed_params_decode_or_name_the_field(value in any_json()) {
        use mcp_tasks_edge::mcp::params::{self, CursorParams, SetLevelParams, TaskIdParams, UriParams};
        let Value::Object(map) = value else { return Ok(()) };
        for message in [
            params::parse::<TaskIdParams>(&map).err(),
            params::parse::<CursorParams>(&map).err(),
            params::parse::<UriParams>(&map).err(),
            params::parse::<SetLevelParams>(&map).err(),
        ].into_iter().flatten().map(|e| e.to_wire().message) {
            prop_assert!(message.starts_with("params"), "{message}");
        }
    }

    #[test]
    fn the_session_planner_decides_any_request(
        value in prop_oneof![any_json(), session_message()],
        method in prop_oneof![Just("POST"), Just("GET"), Just("DELETE"), Just("PATCH")],
        owner in any::<bool>(),
    ) {
        use mcp_tasks_edge::legacy::plan::{Decision, Incoming, plan};
        let s = server();
        let sid = "0123456789abcdef0123456789abcdef";
        let init = serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": { "protocolVersion": "2025-11-25" } })).unwrap();
        let incoming = |method, principal, body| Incoming { method, session_id: sid, principal, last_event_id: None, accept: None, body };
        let Decision::Initialize { session, .. } = plan(&s, None, incoming("POST", "key:a", &init), NOW) else {
            panic!("initialize")
        };
        let body = serde_json::to_vec(&value).unwrap();
        let caller = if owner { "key:a" } else { "key:b" };
        let decision = plan(&s, Some(*session), incoming(method, caller, &body), NOW);
        if !owner {
            // Another principal's session is indistinguishable from none at all; only a
            // legacy `initialize`, which the Worker sends to fresh ids only, differs: over
            // an existing session it is 404 too.
            let unknown = plan(&s, None, incoming(method, caller, &body), NOW);
            let http = mcp_tasks_edge::http::HttpRequest {
                method: method.into(),
                path: "/mcp".into(),
                headers: Headers::from([("mcp-session-id", sid)]),
                body: body.clone(),
            };
            let fresh = matches!(mcp_tasks_edge::legacy::route(&s, &http), Some(mcp_tasks_edge::legacy::Route::New(_)));
            if fresh {
                // The Worker sends it to a fresh id, never here; here it is a 404, or the
                // same 400 as anywhere for a message that is not a request at all.
                let malformed = matches!(decision, Decision::Reply { status: 400, .. }) && decision == unknown;
                prop_assert!(decision == Decision::NotFound || malformed, "{decision:?}");
            } else {
                prop_assert!(matches!(decision, Decision::NotFound | Decision::Reply { status: 400 | 405, .. }), "{decision:?}");
                prop_assert_eq!(&decision, &unknown);
            }
        }
        if let Decision::Reply { body, .. } = decision {
            let v: Value = serde_json::from_slice(&body).unwrap();
            prop_assert!(v.get("error").is_none_or(|e| e["message"].as_str().is_some_and(|m| !m.is_empty())));
        }
    }
}
