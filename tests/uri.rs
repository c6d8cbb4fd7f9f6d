//! `mcp_tasks_edge::uri` natively (the `url` crate); the same table runs in Chromium and
//! Firefox on the runtime's `URL` (tests/browser/uri.rs).
#![cfg(not(target_arch = "wasm32"))]

#[path = "support/uri_cases.rs"]
mod uri_cases;

#[test]
fn urls_parse_as_the_url_standard_says() {
    uri_cases::urls_parse_as_the_url_standard_says();
}

#[test]
fn references_resolve_as_rfc_3986_says() {
    uri_cases::references_resolve_as_rfc_3986_says();
}

#[test]
fn origins_are_tuples_or_opaque() {
    uri_cases::origins_are_tuples_or_opaque();
}

#[test]
fn no_spelling_of_a_private_host_passes_the_policy() {
    uri_cases::no_spelling_of_a_private_host_passes_the_policy();
}

/// Left out of the shared table, where one browser departs from the standard (see there).
#[test]
fn what_one_browser_reads_otherwise() {
    use mcp_tasks_edge::uri::{Host, Uri};
    assert!(Uri::parse("https://ho st/").is_err());
    let file = Uri::parse("file://127.0.0.1/x").unwrap();
    assert_eq!(file.host(), Some(Host::Ipv4([127, 0, 0, 1].into())));
    assert_eq!(file.origin(), None);
}
