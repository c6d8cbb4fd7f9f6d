//! Who subscribed to a resource (2025-11-25 `resources/subscribe`): one object per URI in
//! the sessions' namespace, named `resource:{uri}` (never a session's name: those are 32
//! hex digits, and the Worker routes nothing else here), keeping the ids of the sessions
//! subscribed to it. The I/O of the core's runner (`legacy::subscribers::run`), which
//! decides: `add`, `remove`, `announce` (each subscribed session is told `updated`, and
//! sends `notifications/resources/updated` on its open GET streams).
//!
//! # Format
//!
//! ```text
//! POST https://task-object/op   x-mcp-tasks-registry: add | remove | announce | updated
//! {"uri": "...", "session": "3f0c…"}          (session: for add and remove)
//! ```
//! answered as every object answers (`tasks::protocol::ObjectReply`): an empty result, or
//! an error (a full set's -32602, which reaches the client as is).

use crate::cloudflare::bench::{self, SESSION};
use crate::cloudflare::js_api::{storage_get_strings, storage_put_strings};
use crate::cloudflare::log;
use crate::cloudflare::rpc::object_reply;
use crate::legacy::subscribers::{self, RegistryPlatform, RegistryRequest, Write};
use crate::ops::log as logs;
use crate::pairs::SortedSet;
use crate::server::Server;
use worker::{Env, Response, Result, State, web_sys};

const SUBSCRIBERS_KEY: &str = "subscribers";

/// A registry operation, or a session being told of an update (`updated`: the session's
/// part, which sends `notifications/resources/updated` on its GET streams). `state` and
/// `env`: the object's (a registry and a session share the class).
pub(crate) async fn handle(
    state: &State,
    env: &Env,
    build: fn() -> Server,
    op: &str,
    req: &web_sys::Request,
    updated: impl AsyncFn(&str) -> Result<()>,
) -> Result<Response> {
    let body = crate::cloudflare::read_whole_body(req).await?;
    let mut platform = Platform {
        state,
        env,
        build,
        updated,
    };
    object_reply(&subscribers::serve(&mut platform, op, &body).await).map(Response::from)
}

/// The object's storage and peers as the registry runner's platform.
struct Platform<'a, U> {
    state: &'a State,
    env: &'a Env,
    build: fn() -> Server,
    updated: U,
}

impl<U: AsyncFn(&str) -> Result<()>> RegistryPlatform for Platform<'_, U> {
    async fn subscribers(&mut self) -> std::result::Result<SortedSet<String>, String> {
        bench::rows_read(SESSION, 1);
        let mut subscribers = SortedSet::new();
        let storage = self.state.storage();
        storage_get_strings(&storage, SUBSCRIBERS_KEY, &mut subscribers)
            .await
            .map_err(|e| e.to_string())?;
        Ok(subscribers)
    }

    async fn write(&mut self, write: Write) -> std::result::Result<(), String> {
        let storage = self.state.storage();
        let written = match write {
            Write::Nothing => Ok(()),
            Write::Store(set) => {
                bench::rows_written(SESSION, 1);
                storage_put_strings(&storage, SUBSCRIBERS_KEY, &set).await
            }
            Write::Delete => {
                bench::before_delete_all(SESSION, &storage).await;
                storage.delete_all().await
            }
        };
        written.map_err(|e| e.to_string())
    }

    async fn tell(&self, session: &str, uri: &str) -> std::result::Result<(), String> {
        let updated = RegistryRequest::Updated {
            uri: uri.to_owned(),
        };
        subscribers::send(self.env, session, &updated)
            .await
            .map_err(|e| e.to_wire().message)
    }

    async fn updated(&mut self, uri: &str) -> std::result::Result<(), String> {
        (self.updated)(uri).await.map_err(|e| e.to_string())
    }

    fn untold(&mut self, session: &str, uri: &str, why: &str) {
        // A session that ended no longer answers for the URI: nothing to tell it.
        let line = logs::warning(&format!("resources/updated for {uri}: {why}"))
            .field("session", logs::fingerprint(session));
        log::print_configured(&line, self.env, self.build);
    }
}
