//! The task Durable Object, [`TaskRunner`]: one object per task, named by the task id.
//! What it does per request and per alarm is the core's runner (`objects::task`); this
//! file is its platform (`store`: the rows, through the instance's mirror of the hot
//! record, and the alarm) plus the sockets, the log printer and the HTTP framing.
//! Replies leave only after the write: the runtime's output gate holds them until the
//! write is durable, which is what makes task creation strongly consistent.
//!
//! Watchers (`tasks::watch`): a watch request is accepted as a hibernatable WebSocket
//! (`state.accept_web_socket`); after every write the runner pushes the new state to
//! every socket. Between changes the object may hibernate: idle watchers cost no
//! requests and no duration.

use super::log;
use super::mirror::Mirror;
use super::rpc::{object_reply, request_body, request_path};
use super::sockets::close;
use super::{WorkerHost, now_ms, upstreams};
use crate::host::Host;
use crate::objects::task::live;
use crate::objects::task::{self as runner, Runtime, TaskPlatform, Write};
use crate::ops::log::{Line, LogSettings};
use crate::pairs::Pairs;
use crate::server::Server;
use crate::tasks::layout;
use crate::tasks::protocol::{PRINCIPAL_HEADER, REQUEST_ID_HEADER};
use crate::tasks::watch::{CLOSE_GONE, WATCH_PATH, WatchMessage};
use std::cell::{Cell, RefCell};
use worker::{
    Env, Response, Result, State, Storage, WebSocket, WebSocketIncomingMessage, WebSocketPair,
    web_sys,
};

mod store;

/// What the `TaskObject` class of `export_worker!` runs (see [`super`]).
pub struct TaskRunner {
    state: State,
    /// `state.storage()`, asked once: every call of it crosses into the runtime.
    storage: Storage,
    env: Env,
    build: fn() -> Server,
    /// The attempt this instance is running right now (`TaskPlatform::running`).
    running: Cell<Option<u32>>,
    /// Where a step running here hears of requests' writes (`TaskPlatform::live`).
    live: RefCell<Option<live::Sender>>,
    /// The hot record (`layout::HOT_KEY`) as this instance last read or wrote it
    /// (`super::mirror`): it spares the rows an alarm would read again around its step
    /// and a poll would read again.
    hot: Mirror,
}

/// The platform of one request or alarm: this object, and the server's definition.
struct Platform<'a> {
    object: &'a TaskRunner,
    server: &'a Server,
}

impl TaskPlatform for Platform<'_> {
    async fn hot(&mut self) -> std::result::Result<Option<String>, String> {
        self.object.hot_row().await.map_err(|e| e.to_string())
    }

    async fn rows(
        &mut self,
        keys: Vec<String>,
    ) -> std::result::Result<Pairs<String, String>, String> {
        self.object.rows(keys).await.map_err(|e| e.to_string())
    }

    async fn write(&mut self, write: Write) -> std::result::Result<(), String> {
        self.object.write(write).await.map_err(|e| e.to_string())
    }

    /// A socket that cannot take the message is closed: its watcher reconnects and reads
    /// the current state.
    fn push(&mut self, message: &WatchMessage) {
        let sockets = self.object.state.get_websockets();
        if sockets.is_empty() {
            return;
        }
        let text = message.encode();
        for socket in sockets {
            let sent = socket.send_with_str(&text);
            if sent.is_err() || *message == WatchMessage::Gone {
                close(&socket, CLOSE_GONE, "the task is gone");
            }
        }
    }

    fn watchers(&self) -> usize {
        self.object.state.get_websockets().len()
    }

    fn print(&mut self, lines: Vec<Line>) {
        log::print_all(lines, &self.server.config.log);
    }

    async fn task_ended(&mut self, owner: &str, task_id: &str) {
        let settings: &LogSettings = &self.server.config.log;
        super::task_ended(&self.object.env, owner, task_id, settings).await;
    }

    fn now_ms(&self) -> u64 {
        now_ms()
    }

    fn host(&self) -> Host {
        WorkerHost::host(self.object.env.clone(), self.server)
    }

    fn running(&self) -> Option<u32> {
        self.object.running.get()
    }

    fn set_running(&mut self, attempt: Option<u32>) {
        self.object.running.set(attempt);
    }

    fn live(&self) -> Option<live::Sender> {
        self.object.live.borrow().clone()
    }

    fn set_live(&mut self, live: Option<live::Sender>) {
        *self.object.live.borrow_mut() = live;
    }
}

impl TaskRunner {
    /// The runner for the object `state` belongs to; `build` defines the server.
    pub fn new(state: State, env: Env, build: fn() -> Server) -> Self {
        TaskRunner {
            storage: state.storage(),
            state,
            env,
            build,
            running: Cell::new(None),
            live: RefCell::new(None),
            hot: Mirror::new(layout::HOT_KEY, super::bench::TASK),
        }
    }

    /// A request from the Worker (see `tasks::protocol`), or a watch (`tasks::watch`).
    pub async fn fetch(&self, req: web_sys::Request) -> Result<web_sys::Response> {
        // Set by the Worker on every call; a Durable Object is not reachable from outside.
        let headers = req.headers();
        let principal = headers.get(PRINCIPAL_HEADER)?.unwrap_or_default();
        let request_id = headers.get(REQUEST_ID_HEADER)?;
        let server = upstreams::current(&self.env, self.build).await?;
        let mut platform = Platform {
            object: self,
            server: &server,
        };
        if let Some(task_id) = request_path(&req).strip_prefix(WATCH_PATH) {
            return match runner::watch(&mut platform, task_id, &principal)
                .await
                .map_err(super::rust_error)?
            {
                Ok(first) => {
                    let pair = WebSocketPair::new()?;
                    self.state.accept_web_socket(&pair.server);
                    pair.server.send_with_str(first.encode())?;
                    Response::from_websocket(pair.client).map(web_sys::Response::from)
                }
                Err(refused) => object_reply(&refused),
            };
        }
        let (body, rt) = (request_body(&req).await, Runtime::of(&server));
        let trace = request_id.as_deref();
        let reply = runner::serve(&mut platform, rt, body, &principal, trace).await;
        object_reply(&reply.map_err(super::rust_error)?)
    }

    /// A watcher never sends anything that needs an answer; messages are ignored.
    pub async fn websocket_message(
        &self,
        _ws: WebSocket,
        _message: WebSocketIncomingMessage,
    ) -> Result<()> {
        Ok(())
    }

    /// A watcher went away (its stream ended): complete the closing handshake.
    pub async fn websocket_close(
        &self,
        ws: WebSocket,
        _code: usize,
        _reason: String,
        _was_clean: bool,
    ) -> Result<()> {
        close(&ws, 1000, "bye");
        Ok(())
    }

    /// A watcher's socket failed: the runtime drops it; nothing to keep.
    pub async fn websocket_error(&self, ws: WebSocket, _error: worker::Error) -> Result<()> {
        close(&ws, 1011, "socket error");
        Ok(())
    }

    /// The alarm: expiry, lost attempts, and the due step (`objects::task::alarm`).
    pub async fn alarm(&self) -> Result<Response> {
        let server = upstreams::current(&self.env, self.build).await?;
        let mut platform = Platform {
            object: self,
            server: &server,
        };
        runner::alarm(&mut platform, Runtime::of(&server))
            .await
            .map_err(super::rust_error)?;
        Response::empty()
    }
}
