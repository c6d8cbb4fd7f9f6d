//! Configuration from the Worker's variables: defaults, parsing, refusals, TTL capping and
//! the Origin allow-list patterns.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::server::Config;
use mcp_tasks_edge::vars::ConfigError;
use std::collections::HashMap;

fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Config::from_vars(|name| vars.get(name).cloned())
}

#[test]
fn defaults_and_overrides() {
    let c = config(&[]).unwrap();
    assert_eq!(c, Config::default());
    assert!(!c.fixtures && c.request_state_secret.is_none());
    let c = config(&[
        ("TASK_TTL_MS", "unlimited"),
        ("TASK_MAX_TTL_MS", "5000"),
        ("TASK_POLL_INTERVAL_MS", "0"),
        ("CONFORMANCE_FIXTURES", "true"),
        ("REQUEST_STATE_SECRET", "0123456789abcdef"),
        (
            "ALLOWED_ORIGINS",
            " https://a.example , ,http://b.example:* ",
        ),
    ])
    .unwrap();
    assert_eq!(
        (c.task_ttl_ms, c.task_max_ttl_ms, c.poll_interval_ms),
        (None, Some(5000), 1)
    );
    assert!(c.fixtures);
    assert_eq!(
        c.allowed_origins,
        ["https://a.example", "http://b.example:*"]
    );
}

#[test]
fn malformed_values_are_refused() {
    for (name, value) in [
        ("TASK_TTL_MS", "soon"),
        ("MAX_BODY_BYTES", "-1"),
        ("CONFORMANCE_FIXTURES", "yes"),
        ("REQUEST_STATE_SECRET", "short"),
        ("INLINE_BUDGET_MS", "1.5"),
        ("FETCH_ALLOWED_HOSTS", "a.example:port"),
        ("FETCH_MAX_BYTES", "lots"),
        ("FETCH_MAX_REDIRECTS", "many"),
        ("FETCH_TIMEOUT_MS", "-5"),
        ("QUOTA_SESSIONS", "some"),
        ("SESSION_IDLE_MS", "never"),
        ("OAUTH_ISSUER", "http://issuer.example"),
        ("OAUTH_ISSUER", "ftp://issuer.example"),
    ] {
        let e = config(&[(name, value)]).unwrap_err();
        // The variable is data (what a caller is told), the reason names it too (the log).
        assert_eq!(e.variable, name, "{e}");
        assert!(e.reason.contains(name), "{e}");
    }
}

#[test]
fn task_ttl_is_capped_by_the_maximum() {
    let c = config(&[("TASK_TTL_MS", "1000"), ("TASK_MAX_TTL_MS", "5000")]).unwrap();
    assert_eq!(c.task_ttl(None), Some(1000));
    assert_eq!(c.task_ttl(Some(9000)), Some(5000));
    let unlimited_default =
        config(&[("TASK_TTL_MS", "unlimited"), ("TASK_MAX_TTL_MS", "5000")]).unwrap();
    assert_eq!(unlimited_default.task_ttl(None), Some(5000));
    let no_limit = config(&[
        ("TASK_TTL_MS", "unlimited"),
        ("TASK_MAX_TTL_MS", "unlimited"),
    ])
    .unwrap();
    assert_eq!(no_limit.task_ttl(None), None);
}

#[test]
fn origin_patterns() {
    let c = config(&[(
        "ALLOWED_ORIGINS",
        "http://localhost:*,https://console.example",
    )])
    .unwrap();
    for ok in [
        "http://localhost",
        "http://localhost:8787",
        "https://console.example",
    ] {
        assert!(c.origin_allowed(ok), "{ok}");
    }
    for refused in [
        "http://localhost:",
        "http://localhost:80x",
        "http://localhost.evil.example",
        "http://localhost:8787.evil.example",
        "https://localhost:8787",
        "https://console.example:444",
        "null",
    ] {
        assert!(!c.origin_allowed(refused), "{refused}");
    }
    // Echoed in Access-Control-Allow-Origin: never one that is not a field value.
    let any = config(&[("ALLOWED_ORIGINS", "*")]).unwrap();
    assert!(any.origin_allowed("https://console.example"));
    for refused in ["https://caf\u{e9}.example", "http://a\nb", "http://a\u{7f}"] {
        assert!(!any.origin_allowed(refused), "{refused:?}");
    }
}

#[test]
fn issuers_are_https_except_on_loopback() {
    for ok in [
        "https://id.example/",
        "http://127.0.0.1:9000",
        "http://localhost:8080/",
        "http://[::1]:1/",
    ] {
        assert_eq!(
            config(&[("OAUTH_ISSUER", ok)])
                .unwrap()
                .auth
                .issuer
                .as_deref(),
            Some(ok)
        );
    }
    for bad in [
        "http://id.example/",
        "http://10.0.0.1/",
        "http://localhost.evil.example/",
        "not a url",
    ] {
        assert!(config(&[("OAUTH_ISSUER", bad)]).is_err(), "{bad}");
    }
}

#[test]
fn the_server_reads_a_task_it_follows_no_faster_than_its_floor() {
    use mcp_tasks_edge::server::config::SERVER_POLL_FLOOR_MS;
    let eager = config(&[("TASK_POLL_INTERVAL_MS", "1")]).unwrap();
    assert_eq!(eager.poll_interval_ms, 1, "what clients are told");
    assert_eq!(eager.server_poll_ms(), SERVER_POLL_FLOOR_MS);
    let calm = config(&[("TASK_POLL_INTERVAL_MS", "2500")]).unwrap();
    assert_eq!(calm.server_poll_ms(), 2500);
}
