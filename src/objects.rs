//! What the Durable Objects do, once, for every platform: each object's runner loads what
//! a request needs, lets the pure core decide (`tasks::object`, `tasks::execution`),
//! writes once, then has the effects happen (watchers pushed, lines printed, the quota
//! ledger told). A runner is generic over its object's platform, a small trait of
//! storage rows, an alarm and effect sinks: the Cloudflare adapter implements it on a
//! Durable Object's storage (`cloudflare::task_object`, `cloudflare::principal_object`),
//! the native tests on a map, so the tests exercise the very sequence the deployed object
//! runs. The 2025-11-25 session object's runner belongs to its era: `legacy::object`.

pub mod mirror;
pub mod principal;
pub mod task;
#[cfg(feature = "gateway")]
pub mod upstream;

/// One write of an object's rows and alarm, issued as one transaction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Write {
    /// Erase every row and the alarm (the object's state expired); nothing else is set.
    pub erase: bool,
    pub put: Vec<(String, String)>,
    pub delete: Vec<String>,
    /// Set the alarm to this absolute time, or clear it (`Some(None)`); `None`: leave it.
    pub alarm: Option<Option<u64>>,
}

impl Write {
    /// The write that erases every row and the alarm.
    pub fn erase() -> Write {
        Write {
            erase: true,
            ..Write::default()
        }
    }
}
