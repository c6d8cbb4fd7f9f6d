//! The browser bindings in real browsers, against a real `wrangler dev` ("Done
//! when"). Run by `make test-browser` (tests/browser/run.mjs), which starts the server and
//! compiles this file with `MCP_TEST_URL` set, once for Chromium and once for Firefox.
//!
//! Every test talks to the JS API the way a page does: through the exported class and
//! its camelCase methods (`invoke`), with options objects and handlers written in JS.
#![cfg(target_arch = "wasm32")]

#[path = "browser/calls.rs"]
mod calls;
#[path = "browser/listen.rs"]
mod listen;
#[path = "browser/support.rs"]
mod support;
#[path = "browser/tasks.rs"]
mod tasks;
#[path = "browser/uri.rs"]
mod uri;
#[path = "browser/watch.rs"]
mod watch;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
