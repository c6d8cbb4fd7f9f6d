//! The outbound policy (`src/host/policy.rs`), natively over `FakeHost`: the allow-list's
//! patterns, redirects as RFC 9110 §15.4 says (each hop checked before it is sent), the
//! hop limit, credentials kept to their origin, size and time bounds, and a tool's own
//! widening.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::host::fake::FakeHost;
use mcp_tasks_edge::host::policy::redirect;
use mcp_tasks_edge::host::{
    AllowList, Host, HostError, Inbound, Outbound, Policy, block_on, get, post,
};
use mcp_tasks_edge::prelude::*;
use mcp_tasks_edge::tools::Call;

fn allowed(spec: &str, url: &str) -> bool {
    AllowList::parse(spec).unwrap().check(url).is_ok()
}

#[test]
fn allow_list_patterns() {
    let table = [
        ("api.example.com", "https://api.example.com/x", true),
        ("api.example.com", "https://api.example.com:8443/x", false),
        (
            "api.example.com",
            "https://evil.com/?api.example.com",
            false,
        ),
        (
            "api.example.com:8443",
            "https://api.example.com:8443/x",
            true,
        ),
        ("api.example.com:*", "http://api.example.com:1/x", true),
        ("*.example.com", "https://a.b.example.com/", true),
        ("*.example.com", "https://example.com/", false),
        ("*.example.com", "https://evilexample.com/", false),
        ("*.example.com", "https://example.com.evil.net/", false),
        ("*", "https://api.github.com/", true),
        ("*", "http://93.184.216.34/", true),
        ("*", "http://localhost/", false),
        ("*", "http://app.localhost/", false),
        ("*", "http://127.0.0.1/", false),
        ("*", "http://10.1.2.3/", false),
        ("*", "http://172.16.0.1/", false),
        ("*", "http://192.168.1.1/", false),
        ("*", "http://169.254.169.254/latest/meta-data/", false),
        ("*", "http://100.64.0.1/", false),
        ("*", "http://0.0.0.0/", false),
        ("*", "http://[::1]/", false),
        ("*", "http://[fd00::1]/", false),
        ("*", "http://[fe80::1]/", false),
        ("*", "http://[::ffff:127.0.0.1]/", false),
        ("*", "http://[2606:4700::1]/", true),
        ("*:*", "http://example.org:8080/", true),
        ("[::1]:8080", "http://[::1]:8080/", true),
        ("", "https://api.example.com/", false),
        ("api.example.com", "file:///etc/passwd", false),
        ("api.example.com", "ftp://api.example.com/", false),
    ];
    for (spec, url, expected) in table {
        assert_eq!(allowed(spec, url), expected, "{spec} vs {url}");
    }
    for bad in ["a.*.com", "*example.com", "*.", "host:port", "[::1"] {
        assert!(AllowList::parse(bad).is_err(), "{bad} must not parse");
    }
}

fn answer(status: u16, location: &str) -> Inbound {
    Inbound {
        status,
        headers: vec![("location".into(), location.into())],
        body: Vec::new(),
        url: String::new(),
    }
}

#[test]
fn redirects_change_method_and_body_as_rfc_9110_says() {
    let with_body = |method: &str| {
        Outbound::new(method, "https://a.test/start")
            .header("content-type", "application/json")
            .body(b"{}".to_vec())
    };
    // (status, method, expected method, body kept)
    let table = [
        (301, "POST", "GET", false),
        (302, "POST", "GET", false),
        (303, "POST", "GET", false),
        (303, "PUT", "GET", false),
        (303, "DELETE", "GET", false),
        (303, "HEAD", "HEAD", true),
        (307, "POST", "POST", true),
        (308, "POST", "POST", true),
        (301, "PUT", "PUT", true),
        (302, "DELETE", "DELETE", true),
        (307, "DELETE", "DELETE", true),
    ];
    for (status, method, expected, kept) in table {
        let next = redirect(&with_body(method), &answer(status, "/next"))
            .expect("a redirect")
            .unwrap();
        assert_eq!(next.method, expected, "{status} {method}");
        assert_eq!(next.url, "https://a.test/next");
        assert_eq!(!next.body.is_empty(), kept, "{status} {method} body");
        assert_eq!(
            next.headers.iter().any(|(n, _)| n == "content-type"),
            kept,
            "{status} {method} content-type"
        );
    }
    assert!(redirect(&get("https://a.test/"), &answer(200, "/x")).is_none());
    assert!(redirect(&get("https://a.test/"), &answer(304, "/x")).is_none());
    let no_location = Inbound {
        headers: Vec::new(),
        ..answer(302, "")
    };
    assert!(redirect(&get("https://a.test/"), &no_location).is_none());
}

#[test]
fn credentials_stay_with_their_origin() {
    let request = get("https://a.test/x")
        .bearer("secret")
        .header("cookie", "c=1")
        .header("x-other", "kept");
    let same = redirect(&request, &answer(302, "https://a.test/y"))
        .unwrap()
        .unwrap();
    assert!(same.headers.iter().any(|(n, _)| n == "authorization"));
    let other = redirect(&request, &answer(302, "https://b.test/y"))
        .unwrap()
        .unwrap();
    let names: Vec<&str> = other.headers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["x-other"]);
    let other_port = redirect(&request, &answer(307, "https://a.test:444/y"))
        .unwrap()
        .unwrap();
    assert!(!other_port.headers.iter().any(|(n, _)| n == "authorization"));
}

#[test]
fn a_redirect_off_the_list_is_refused_before_it_is_sent() {
    let fake = FakeHost::new().allow("a.test").redirect(
        "POST",
        "https://a.test/start",
        307,
        "http://169.254.169.254/steal",
    );
    let host = Host::new(fake.clone());
    let err = block_on(host.fetch(post("https://a.test/start").json(&"body"))).unwrap_err();
    assert_eq!(
        err,
        HostError::Refused(
            "https://a.test/start redirected to http://169.254.169.254/steal, which is not allowed: the host 169.254.169.254 is not in FETCH_ALLOWED_HOSTS"
                .into()
        )
    );
    let sent: Vec<String> = fake.requests().iter().map(|r| r.url.clone()).collect();
    assert_eq!(sent, ["https://a.test/start"]);
}

#[test]
fn redirects_are_followed_up_to_the_limit() {
    let fake = FakeHost::new()
        .allow("a.test")
        .var("FETCH_MAX_REDIRECTS", "2")
        .redirect("GET", "https://a.test/1", 301, "/2")
        .redirect("GET", "https://a.test/2", 302, "/3")
        .route("GET", "https://a.test/3", 200, "end");
    let host = Host::new(fake.clone());
    let answer = block_on(host.fetch(get("https://a.test/1"))).unwrap();
    assert_eq!(
        (answer.status, answer.url.as_str()),
        (200, "https://a.test/3")
    );

    let fake = fake.redirect("GET", "https://a.test/0", 302, "/1");
    let host = Host::new(fake);
    let err = block_on(host.fetch(get("https://a.test/0"))).unwrap_err();
    assert_eq!(
        err,
        HostError::Refused(
            "https://a.test/0 redirected more than 2 times (FETCH_MAX_REDIRECTS)".into()
        )
    );
    // Asked not to follow, the tool sees the redirect itself.
    let fake = FakeHost::new().allow("a.test").redirect(
        "GET",
        "https://a.test/1",
        301,
        "https://elsewhere.test/",
    );
    let answer = block_on(Host::new(fake).fetch(get("https://a.test/1").no_redirects())).unwrap();
    assert_eq!(answer.status, 301);
}

#[test]
fn bodies_are_bounded_and_nothing_is_allowed_by_default() {
    let fake = FakeHost::new()
        .allow("a.test")
        .var("FETCH_MAX_BYTES", "4")
        .route("GET", "https://a.test/big", 200, "12345");
    let host = Host::new(fake.clone());
    assert_eq!(
        block_on(host.fetch(get("https://a.test/big"))).unwrap_err(),
        HostError::TooLarge {
            url: "https://a.test/big".into(),
            limit: 4
        }
    );
    // A request may ask for more, explicitly.
    let answer = block_on(host.fetch(get("https://a.test/big").max_bytes(5))).unwrap();
    assert_eq!(answer.body, b"12345");

    let closed = Host::new(FakeHost::new().route("GET", "https://a.test/", 200, ""));
    assert!(matches!(
        block_on(closed.fetch(get("https://a.test/"))),
        Err(HostError::Refused(why)) if why.contains("not in FETCH_ALLOWED_HOSTS")
    ));
    let misconfigured = Host::new(FakeHost::new().allow("a.test:port"));
    assert!(matches!(
        block_on(misconfigured.fetch(get("https://a.test/"))),
        Err(HostError::Misconfigured(why)) if why.contains("FETCH_ALLOWED_HOSTS")
    ));
    assert!(Policy::from_vars(|n| (n == "FETCH_TIMEOUT_MS").then(|| "soon".into())).is_err());
}

/// A header or method the runtime could not send is refused before anything is sent, on
/// every way out (a header value with a line break could otherwise smuggle a header in).
#[test]
fn a_header_or_method_the_runtime_cannot_send_is_refused_before_anything_is_sent() {
    let fake = FakeHost::new()
        .allow("a.test")
        .route("GET", "https://a.test/", 200, "ok");
    let host = Host::new(fake.clone());
    let refused = [
        (
            get("https://a.test/").header("x-a", "1\r\nx-b: 2"),
            "invalid value of header x-a",
        ),
        (
            get("https://a.test/").header("x a", "1"),
            "invalid header name \"x a\"",
        ),
        (
            get("https://a.test/").header("x,a", "1"),
            "invalid header name \"x,a\"",
        ),
        (
            get("https://a.test/").header("x-a", "caf\u{e9}"),
            "invalid value of header x-a",
        ),
        (
            Outbound::new("GE T", "https://a.test/"),
            "invalid method \"GE T\"",
        ),
    ];
    for (request, why) in refused {
        let expected = HostError::Refused(why.into());
        assert_eq!(block_on(host.fetch(request.clone())).unwrap_err(), expected);
        assert_eq!(
            block_on(host.open(request.clone())).err(),
            Some(expected.clone())
        );
        assert_eq!(
            block_on(host.fetch_service("SVC", request.clone())).unwrap_err(),
            expected
        );
        assert_eq!(
            block_on(host.open_service("SVC", request)).err(),
            Some(expected)
        );
    }
    assert!(fake.requests().is_empty(), "nothing was sent");
    let sent = get("https://a.test/").header("x-a", "a, b; c=\"d\"\t");
    assert_eq!(block_on(host.fetch(sent)).unwrap().body, b"ok");
}

#[test]
fn a_tool_widens_the_policy_for_itself_only() {
    async fn fetch_it(call: Call<Value>, host: Host) -> Result<Step, ToolError> {
        let url = call.args["url"].as_str().unwrap_or_default().to_owned();
        let answer = host.fetch(get(url)).await?;
        Ok(Step::text(answer.text()?))
    }
    let wide = Tool::new("wide", "d")
        .allow_hosts("*.github.test")
        .run(fetch_it);
    let narrow = Tool::new("narrow", "d").run(fetch_it);
    let fake = FakeHost::new().route("GET", "https://api.github.test/", 200, "hi");
    let host = Host::new(fake);
    let call = || Call::new(json!({ "url": "https://api.github.test/" }));
    assert_eq!(block_on(wide.step(call(), host.clone())), Step::text("hi"));
    let refused = block_on(narrow.step(call(), host));
    assert!(
        matches!(&refused, Step::Complete(r) if r["isError"] == json!(true)),
        "{refused:?}"
    );
    let bad = Tool::new("bad", "d").allow_hosts("a:b").run(fetch_it);
    let server = Server::builder("s").tool(bad).build();
    assert!(server.problems().iter().any(|p| p.contains("allow_hosts")));
}

/// The value of `name` in a `NAME = "value"` (wrangler.toml) or `NAME=value` (.dev.vars) line.
fn starter_var(file: &str, name: &str) -> String {
    let path = format!("{}/templates/starter/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the starter's file");
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix(name)?.trim_start().strip_prefix('='))
        .unwrap_or_else(|| panic!("{path} sets {name}"));
    line.trim().trim_matches('"').to_string()
}

#[test]
fn the_starter_denies_every_host_when_deployed_and_reaches_only_this_machine_locally() {
    let deployed = starter_var("wrangler.toml", "FETCH_ALLOWED_HOSTS");
    let policy = Policy::from_vars(|n| (n == "FETCH_ALLOWED_HOSTS").then(|| deployed.clone()))
        .expect("the deployed list parses");
    let local = starter_var(".dev.vars", "FETCH_ALLOWED_HOSTS");
    for url in [
        "https://example.com/",
        "http://93.184.216.34/",
        "http://127.0.0.1:8787/",
    ] {
        assert!(!allowed(&deployed, url), "deployed: {url} must be refused");
    }
    assert_eq!(
        policy,
        Policy::default(),
        "deployed: the default, deny-all policy"
    );
    for (url, ok) in [
        ("http://127.0.0.1:40123/ok", true),
        ("http://localhost:8787/", true),
        ("https://example.com/", false),
        ("http://192.168.1.1/private", false),
    ] {
        assert_eq!(allowed(&local, url), ok, "wrangler dev: {url}");
    }
}

#[test]
fn the_deadline_spans_every_redirect_hop() {
    // Each hop takes 500 ms of a 1 s deadline: two hops use it up, and the third is not
    // sent (with a fresh deadline per hop, the chain would complete).
    let chain = |latency| {
        FakeHost::new()
            .allow("a.test")
            .var("FETCH_TIMEOUT_MS", "1000")
            .latency(latency)
            .redirect("GET", "https://a.test/1", 302, "/2")
            .redirect("GET", "https://a.test/2", 302, "/3")
            .route("GET", "https://a.test/3", 200, "end")
    };
    let timeout = HostError::Timeout {
        url: "https://a.test/1".into(),
        ms: 1000,
    };
    let fake = chain(500);
    let err = block_on(Host::new(fake.clone()).fetch(get("https://a.test/1"))).unwrap_err();
    assert_eq!(err, timeout);
    let sent: Vec<_> = fake.requests().into_iter().map(|r| r.url).collect();
    assert_eq!(sent, ["https://a.test/1", "https://a.test/2"]);
    // 400 ms a hop: the third is sent with the 200 ms left, and times out with them,
    // reported as the whole exchange's deadline.
    let fake = chain(400);
    let err = block_on(Host::new(fake.clone()).fetch(get("https://a.test/1"))).unwrap_err();
    assert_eq!(err, timeout);
    assert_eq!(fake.requests().len(), 3);
    // Within the deadline the chain completes; a request's own timeout replaces it.
    let answer = block_on(Host::new(chain(300)).fetch(get("https://a.test/1"))).unwrap();
    assert_eq!(answer.url, "https://a.test/3");
    let own = get("https://a.test/1").timeout(Duration::from_millis(2000));
    let answer = block_on(Host::new(chain(500)).fetch(own)).unwrap();
    assert_eq!(answer.url, "https://a.test/3");
}
