//! `http::origin_and_path`: the Worker reads a request's origin and path off the URL the
//! runtime serialized, instead of parsing it again. For any URL the runtime could hand
//! over (serialized here by the `url` crate, which implements the same WHATWG rules), the
//! split agrees with a full parse; what it cannot read with certainty it declines.
// Native only: proptest is a native dev-dependency.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::http::{origin_and_path, split_url};
use proptest::prelude::*;

fn parsed(url: &str) -> (String, String) {
    let url = url::Url::parse(url).expect("a valid URL");
    (url.origin().ascii_serialization(), url.path().to_owned())
}

proptest! {
    #[test]
    fn agrees_with_a_full_parse(
        https in any::<bool>(),
        host in prop_oneof![
            "[a-zA-Z0-9-]{1,12}(\\.[a-zA-Z0-9-]{1,8}){0,3}",
            Just("127.0.0.1".to_string()),
            Just("[::1]".to_string()),
            Just("bücher.example".to_string()),
        ],
        port in proptest::option::of(1u16..),
        path in "(/[a-zA-Z0-9%?#@:;=._~ -]{0,10}){0,4}",
        query in proptest::option::of("[a-zA-Z0-9=&/?#@ ]{0,12}"),
        fragment in proptest::option::of("[a-zA-Z0-9=&/?#@ ]{0,12}"),
    ) {
        let scheme = if https { "https" } else { "http" };
        let port = port.map(|p| format!(":{p}")).unwrap_or_default();
        let query = query.map(|q| format!("?{q}")).unwrap_or_default();
        let fragment = fragment.map(|f| format!("#{f}")).unwrap_or_default();
        let Ok(url) = url::Url::parse(&format!("{scheme}://{host}{port}{path}{query}{fragment}")) else {
            return Ok(());
        };
        // As the runtime hands it over: serialized.
        let serialized = url.as_str();
        let (origin, path) = origin_and_path(serialized).expect("a serialized http(s) URL splits");
        prop_assert_eq!((origin.to_owned(), path.to_owned()), parsed(serialized));
    }
}

#[test]
fn reads_the_usual_request_urls() {
    for url in [
        "http://127.0.0.1:8787/mcp",
        "https://edge.example.com/mcp?x=1#y",
        "https://edge.example.com/",
        "http://[::1]:9000/.well-known/oauth-protected-resource/mcp",
    ] {
        let (origin, path) = origin_and_path(url).expect(url);
        assert_eq!((origin.to_owned(), path.to_owned()), parsed(url), "{url}");
    }
}

/// Another scheme, userinfo, or no path after the host: declined, so the caller parses in
/// full.
#[test]
fn declines_what_it_cannot_read() {
    for url in [
        "https://user:pass@edge.example.com/mcp",
        "https://edge.example.com",
        "https://edge.example.com?x=1",
        "mailto:someone@example.com",
        "foo://edge.example.com/mcp",
        "wss://edge.example.com/mcp",
        "not a url",
    ] {
        assert_eq!(origin_and_path(url), None, "{url}");
    }
}

/// What the split declines is parsed in full (`split_url`): the same origin and path.
#[test]
fn the_full_parse_reads_what_the_split_declines() {
    for url in [
        "https://user:pass@edge.example.com/mcp",
        "https://edge.example.com",
        "https://edge.example.com?x=1",
        "http://127.0.0.1:8787/mcp",
    ] {
        assert_eq!(split_url(url), Ok(parsed(url)), "{url}");
    }
    assert!(split_url("not a url").is_err());
}
