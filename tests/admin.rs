//! The operator's view (`ops::admin`), attacked: operator credentials and how they are
//! configured, the methods refused (as unknown) without them, with ordinary credentials
//! and anonymously, and what an operator sees and does on a task object.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use common::object::{ID, Object};
use common::*;
use mcp_tasks_edge::auth::{self, Outcome};
use mcp_tasks_edge::http::Headers;
use mcp_tasks_edge::ops::admin::{self, AdminRequest};
use mcp_tasks_edge::ops::log::LogSettings;
use mcp_tasks_edge::server::{Action, Config, Context, Server};
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::record::{NewTask, TaskRecord};
use mcp_tasks_edge::vars::ConfigError;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

const SECRET: &str = "s3cr3t-marker";

fn digest(key: &str) -> String {
    Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn config(vars: &[(&str, String)]) -> Result<Config, ConfigError> {
    Config::from_vars(|name| {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    })
}

fn with_operators() -> Server {
    let config = config(&[
        ("API_KEYS", format!("alice={}", digest("alice-key"))),
        ("ADMIN_KEYS", format!("ops={}", digest("ops-key"))),
        ("CONFORMANCE_FIXTURES", "true".into()),
    ])
    .unwrap();
    Server::new(config)
}

fn bearer(token: &str) -> Headers {
    Headers::from([("authorization", format!("Bearer {token}").as_str())])
}

fn as_principal(principal: &str) -> Context {
    Context {
        principal: principal.into(),
        now_ms: NOW,
    }
}

/// The error body `server` answers `method` with for `principal`, with the method's name
/// replaced, so answers for different methods compare.
fn refusal(server: &Server, method: &str, principal: &str) -> Value {
    let request = post(method, json!({ "taskId": ID, "principal": "key:alice" }));
    let response = match server.handle(&request, &as_principal(principal)) {
        Action::Respond(response) => response,
        other => panic!("{method} as {principal}: expected a refusal, got {other:?}"),
    };
    let text = String::from_utf8(response.body)
        .unwrap()
        .replace(method, "METHOD");
    json!({ "status": response.status, "body": serde_json::from_str::<Value>(&text).unwrap() })
}

#[test]
fn operator_keys_and_scopes_are_configured_apart_from_callers() {
    let server = with_operators();
    let auth = &server.config.auth;
    assert!(auth.has_operators());
    assert_eq!(
        auth.authenticate(&bearer("ops-key")),
        Outcome::Principal("admin:ops".into())
    );
    assert_eq!(
        auth.authenticate(&bearer("alice-key")),
        Outcome::Principal("key:alice".into())
    );
    assert!(admin::is_operator("admin:ops"));
    assert!(!admin::is_operator("key:admin"));

    // One key cannot be both.
    let both = config(&[
        ("API_KEYS", format!("alice={}", digest("k"))),
        ("ADMIN_KEYS", format!("ops={}", digest("k"))),
    ]);
    assert_eq!(
        both.unwrap_err(),
        ConfigError::new(
            "ADMIN_KEYS",
            "ADMIN_KEYS: the key \"ops\" is also in API_KEYS; an operator key must be a key of its own"
        )
    );
    assert!(
        config(&[("ADMIN_KEYS", "not-a-digest".into())])
            .unwrap_err()
            .reason
            .starts_with("ADMIN_KEYS: \"not-a-digest\" is not a lowercase SHA-256 hex digest")
    );
    assert!(config(&[("OAUTH_ADMIN_SCOPE", "a b".into())]).is_err());
    // Without ADMIN_KEYS (or an issuer and OAUTH_ADMIN_SCOPE) there are no operators.
    assert!(!Config::default().auth.has_operators());
    let scope_without_issuer = config(&[("OAUTH_ADMIN_SCOPE", "mcp:admin".into())]).unwrap();
    assert!(!scope_without_issuer.auth.has_operators());
}

#[test]
fn an_oauth_token_with_the_admin_scope_is_an_operators_own_principal() {
    let issuer = "https://issuer.example";
    let resource = "https://mcp.example/mcp";
    let auth = config(&[
        ("OAUTH_ISSUER", issuer.into()),
        ("OAUTH_ADMIN_SCOPE", "mcp:admin".into()),
    ])
    .unwrap()
    .auth;
    assert!(auth.has_operators());
    let token = |scope: &str| {
        let claims = json!({ "iss": issuer, "sub": "carol", "aud": resource,
            "exp": NOW / 1000 + 600, "iat": NOW / 1000, "scope": scope });
        let text = format!(
            "{}.{}.{}",
            B64.encode(json!({ "alg": "RS256" }).to_string()),
            B64.encode(claims.to_string()),
            B64.encode([7u8; 64])
        );
        auth::jwt::parse(&text).unwrap()
    };
    let ordinary = auth.grant(&token("mcp:tools"), resource, NOW).unwrap();
    assert_eq!(ordinary, auth::oauth_principal(issuer, "carol"));
    let operator = auth
        .grant(&token("mcp:tools mcp:admin"), resource, NOW)
        .unwrap();
    assert_eq!(operator, format!("admin:{ordinary}"));
    assert!(admin::is_operator(&operator));
}

#[test]
fn operator_methods_do_not_exist_for_anyone_else() {
    let server = with_operators();
    let unknown = refusal(&server, "mcp-tasks-edge/no/such/method", "key:alice");
    assert_eq!(unknown["body"]["error"]["code"], -32601);
    for method in [admin::GET, admin::LIST, admin::CANCEL] {
        // Ordinary credentials, anonymous callers, anonymous tasks' principals.
        for principal in ["key:alice", "anonymous", "anonymous-task:abc", "oauth:00ff"] {
            assert_eq!(
                refusal(&server, method, principal),
                unknown,
                "{method} {principal}"
            );
        }
        // A server without operators: not even an operator's principal reaches them.
        assert_eq!(
            refusal(&common::server(), method, "admin:ops"),
            unknown,
            "{method} unconfigured"
        );
    }
}

#[test]
fn an_operator_reaches_the_methods_with_checked_params() {
    let server = with_operators();
    let ops = as_principal("admin:ops");
    let action = |method: &str, params: Value| server.handle(&post(method, params), &ops);
    match action(admin::GET, json!({ "taskId": ID })) {
        Action::Admin { request, .. } => {
            assert_eq!(*request, AdminRequest::Get { task_id: ID.into() })
        }
        other => panic!("{other:?}"),
    }
    match action(
        admin::LIST,
        json!({ "principal": "key:alice", "cursor": "50" }),
    ) {
        Action::Admin { request, .. } => assert_eq!(
            *request,
            AdminRequest::List {
                principal: "key:alice".into(),
                cursor: Some("50".into())
            }
        ),
        other => panic!("{other:?}"),
    }
    let error = |method: &str, params: Value| match action(method, params) {
        Action::Respond(response) => body(&response)["error"].clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        error(admin::CANCEL, json!({}))["message"],
        "params: missing field `taskId`"
    );
    assert_eq!(
        error(admin::GET, json!({ "taskId": "../x" }))["code"],
        -32602
    );
    assert_eq!(
        error(admin::LIST, json!({ "principal": 7 }))["message"],
        "params.principal: invalid type: integer `7`, expected a string"
    );
}

fn task_of(owner: &str) -> Object {
    let server = common::server();
    let mut o = Object::new(server.registry.clone(), server.limits());
    let mut record = TaskRecord::new(NewTask {
        tool: "slow_compute".into(),
        title: None,
        owner: owner.into(),
        arguments: json!({ "seconds": 5, "note": SECRET })
            .as_object()
            .unwrap()
            .clone(),
        capabilities: Map::new(),
        checkpoint: Value::Null,
        answers: Map::new(),
        status_message: None,
        amount: None,
        now_ms: NOW,
        ttl_ms: Some(60_000),
        poll_interval_ms: 1000,
        next_step_at_ms: NOW,
    });
    record.assign_id(ID.into());
    let create = ObjectRequest::Create {
        record: Box::new(record),
    };
    assert!(matches!(
        o.request(create, owner, NOW),
        ObjectReply::Result(_)
    ));
    o
}

#[test]
fn an_operator_sees_any_task_without_its_data_and_cancels_it() {
    let mut o = task_of("key:alice");
    o.tick(NOW);
    let ObjectReply::Result(view) = o.request(
        ObjectRequest::Inspect { task_id: ID.into() },
        "admin:ops",
        NOW + 10,
    ) else {
        panic!()
    };
    let task = &view["task"];
    assert_eq!(task["taskId"], ID);
    assert_eq!(task["status"], "working");
    assert_eq!(task["tool"], "slow_compute");
    assert_eq!(task["owner"], "ce597ac46d430f16");
    assert_eq!(task["expiresAt"], "2025-11-25T10:31:00.000Z");
    assert_eq!(task["timeline"][0]["event"], "created");
    assert!(!view.to_string().contains(SECRET), "{view}");
    // The owner's name, which admin/tasks/list takes: from a task to its owner's others.
    assert_eq!(task["principal"], "key:alice");
    let list = admin::parse(
        admin::LIST,
        json!({ "principal": task["principal"] })
            .as_object()
            .unwrap(),
        "admin:ops",
        true,
    );
    assert_eq!(
        list,
        Some(Ok(AdminRequest::List {
            principal: "key:alice".into(),
            cursor: None
        }))
    );

    // Cancelling someone else's task is "not found" for callers, done for an operator.
    let cancel = |who| (ObjectRequest::Cancel { task_id: ID.into() }, who);
    let (request, who) = cancel("key:mallory");
    assert!(matches!(
        o.request(request, who, NOW + 20),
        ObjectReply::Error(_)
    ));
    let reply = o.request(
        ObjectRequest::OperatorCancel { task_id: ID.into() },
        "admin:ops",
        NOW + 30,
    );
    assert_eq!(
        reply,
        ObjectReply::Result(json!({ "resultType": "complete" }))
    );
    let task = o.get_as("key:alice", NOW + 40);
    assert_eq!(task["status"], "cancelled");
    assert_eq!(task["statusMessage"], "Cancelled by an operator");

    // Expired tasks are gone for operators too.
    let expired = o.request(
        ObjectRequest::Inspect { task_id: ID.into() },
        "admin:ops",
        NOW + 60_000,
    );
    assert!(matches!(expired, ObjectReply::Error(e) if e.code.0 == -32602));
}

#[test]
fn every_operator_request_is_logged() {
    let settings = LogSettings::default();
    let get = AdminRequest::Get { task_id: ID.into() };
    assert_eq!(
        get.log_line("admin:ops", Some("r9"), "not_found")
            .render(&settings)
            .unwrap(),
        format!(
            r#"{{"event":"admin","level":"info","principal":"37044aa59f993173","requestId":"r9","method":"mcp-tasks-edge/admin/tasks/get","outcome":"not_found","taskId":"{ID}"}}"#
        )
    );
    let list = AdminRequest::List {
        principal: "key:alice".into(),
        cursor: None,
    };
    let line = list
        .log_line("admin:ops", None, "ok")
        .render(&settings)
        .unwrap();
    assert!(line.contains(r#""owner":"ce597ac46d430f16""#), "{line}");
    assert!(!line.contains("key:alice"), "{line}");
}
