//! `mcp_tasks_edge::uri` on the browser's own `URL`, the parser a Worker uses too: the
//! table tests/uri.rs runs natively on the `url` crate, unchanged.

use wasm_bindgen_test::wasm_bindgen_test;

#[path = "../support/uri_cases.rs"]
mod uri_cases;

#[wasm_bindgen_test]
fn urls_parse_as_the_url_standard_says() {
    uri_cases::urls_parse_as_the_url_standard_says();
}

#[wasm_bindgen_test]
fn references_resolve_as_rfc_3986_says() {
    uri_cases::references_resolve_as_rfc_3986_says();
}

#[wasm_bindgen_test]
fn origins_are_tuples_or_opaque() {
    uri_cases::origins_are_tuples_or_opaque();
}

#[wasm_bindgen_test]
fn no_spelling_of_a_private_host_passes_the_policy() {
    uri_cases::no_spelling_of_a_private_host_passes_the_policy();
}
