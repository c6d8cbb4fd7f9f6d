//! What a session's server→client requests (`legacy::asking`) need of the platform: ids
//! from its CSPRNG, the call's resumable response stream, its timer.

use super::Stream;
use crate::cloudflare::new_task_id;
use crate::error::McpError;
use crate::host::BoxFuture;
use crate::legacy::asking::Asking;
use std::time::Duration;

impl Asking for Stream {
    fn new_id(&self) -> Result<String, McpError> {
        new_task_id().map_err(|e| McpError::Internal(e.to_string()))
    }

    fn send(&self, message: &[u8]) {
        Stream::send(self, message)
    }

    fn sleep(&self, ms: u64) -> BoxFuture<'static, ()> {
        Box::pin(worker::Delay::from(Duration::from_millis(ms)))
    }
}
