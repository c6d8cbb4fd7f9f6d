//! What the Durable Objects do, once, for every platform: each object's runner loads what
//! a request needs, lets the pure core decide (`tasks::object`, `tasks::execution`),
//! writes once, then has the effects happen (watchers pushed, lines printed, the quota
//! ledger told). A runner is generic over its object's platform, a small trait of
//! storage rows, an alarm and effect sinks: the Cloudflare adapter implements it on a
//! Durable Object's storage (`cloudflare::task_object`), the native tests on a map, so
//! the tests exercise the very sequence the deployed object runs. The 2025-11-25 session
//! object's runner belongs to its era: `legacy::object`.

pub mod task;
