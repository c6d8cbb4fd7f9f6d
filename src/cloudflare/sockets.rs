//! Watch sockets to task objects (`tasks::watch`), for everything that follows tasks: a
//! listen stream (`listen`, many at once) and the follow of one task (`watcher`). Each
//! socket's reader hands its events to one [`Inbox`] in arrival order, read by
//! [`Sockets::next`].

use super::http::request_init;
use super::rpc::{fetch_object, whole};
use super::{TASKS_BINDING, now_ms};
use crate::concurrent::Inbox;
use crate::server::fanin::{OpenSockets, Opened, Woken};
use crate::tasks::calls::principal_header;
use crate::tasks::watch::{WatchMessage, watch_url};
use futures_util::StreamExt;
use futures_util::future::{Either, select};
use std::pin::pin;
use std::time::Duration;
use worker::wasm_bindgen_futures::spawn_local;
use worker::worker_sys::ext::ResponseExt;
use worker::ws_events::WebsocketEvent;
use worker::{Delay, Env, WebSocket};

/// What a socket's reader reports: a message of the watch protocol, or that the socket is
/// gone (a text that is not such a message is as good as a lost socket).
enum SocketEvent {
    Message(WatchMessage),
    Lost,
}

/// (task id, socket generation, event).
type Event = (String, u64, SocketEvent);

/// The open sockets (`fanin::OpenSockets`: a reopened socket's generation), their events
/// in one inbox.
#[derive(Default)]
pub(super) struct Sockets {
    open: OpenSockets<WebSocket>,
    events: Inbox<Event>,
}

impl Sockets {
    /// A current socket's next event, until `until_ms` (for ever without it); the events
    /// of sockets replaced or closed since are passed over.
    pub(super) async fn next(&self, until_ms: Option<u64>) -> Woken {
        loop {
            let event = match until_ms {
                None => self.events.receive().await,
                Some(until) => {
                    let left = until.saturating_sub(now_ms()).max(1);
                    let timer = Delay::from(Duration::from_millis(left));
                    match select(pin!(self.events.receive()), timer).await {
                        Either::Left((event, _)) => event,
                        Either::Right(_) => return Woken::Timer,
                    }
                }
            };
            // Never: nothing ends an inbox (`Inbox::receive`).
            let Some((task_id, generation, event)) = event else {
                return Woken::Timer;
            };
            if self.open.is_current(&task_id, generation) {
                return match event {
                    SocketEvent::Message(message) => Woken::Pushed(task_id, message),
                    SocketEvent::Lost => Woken::Lost(task_id),
                };
            }
        }
    }

    pub(super) fn add(&mut self, task_id: &str, socket: WebSocket) {
        let (generation, replaced) = self.open.add(task_id, socket.clone());
        if let Some(replaced) = replaced {
            close(&replaced, 1000, "done");
        }
        let events = self.events.sender();
        let task_id = task_id.to_owned();
        spawn_local(async move {
            let lost = (task_id.clone(), generation, SocketEvent::Lost);
            // Listen first, accept second: an accepted socket dispatches its messages at
            // once, and one dispatched before a listener exists is lost (the object's
            // first message is the task's current state, sent once).
            let Ok(mut stream) = socket.events() else {
                if !events.send(lost) { /* the stream is over */ }
                return;
            };
            if socket.accept().is_err() {
                if !events.send(lost) { /* the stream is over */ }
                return;
            }
            while let Some(event) = stream.next().await {
                let event = match event {
                    Ok(WebsocketEvent::Message(message)) => match message.text() {
                        Some(text) => match WatchMessage::decode(&text) {
                            Ok(message) => SocketEvent::Message(message),
                            // Not a message of the watch protocol: as good as lost.
                            Err(_) => {
                                close(&socket, 1002, "not a watch message");
                                SocketEvent::Lost
                            }
                        },
                        None => continue,
                    },
                    Ok(WebsocketEvent::Close(_)) | Err(_) => SocketEvent::Lost,
                };
                let last = matches!(event, SocketEvent::Lost);
                if !events.send((task_id.clone(), generation, event)) || last {
                    return;
                }
            }
        });
    }

    /// Forgets `task_id`'s socket, returning it.
    pub(super) fn remove(&mut self, task_id: &str) -> Option<WebSocket> {
        self.open.remove(task_id)
    }

    pub(super) fn close(&mut self, task_id: &str) {
        if let Some(socket) = self.remove(task_id) {
            close(&socket, 1000, "done");
        }
    }
}

impl Drop for Sockets {
    /// The stream ended (or the client went away): release every object.
    fn drop(&mut self) {
        for socket in self.open.drain() {
            close(&socket, 1000, "done");
        }
    }
}

/// Closes `socket`; one already closed or closing needs nothing more.
pub(super) fn close(socket: &WebSocket, code: u16, reason: &str) {
    if socket.close(Some(code), Some(reason)).is_err() {
        // Already closed by the other side: nothing to do.
    }
}

/// Opens a watch socket to `task_id`'s object.
pub(super) async fn open_watch(
    env: &Env,
    task_id: &str,
    principal: &str,
) -> (Opened, Option<WebSocket>) {
    match try_open(env, task_id, principal).await {
        Ok(opened) => opened,
        Err(e) => (Opened::Failed(e.to_string()), None),
    }
}

async fn try_open(
    env: &Env,
    task_id: &str,
    principal: &str,
) -> worker::Result<(Opened, Option<WebSocket>)> {
    let stub = env.durable_object(TASKS_BINDING)?.get_by_name(task_id)?;
    let (name, principal) = principal_header(principal, task_id);
    let headers = [("upgrade", "websocket"), (name, &principal)];
    let init = request_init("GET", headers, None)?;
    let response = fetch_object(stub, &watch_url(task_id), &init).await?;
    let status = response.status();
    if status == 101 {
        // Not accepted here: the socket is accepted once its reader listens
        // (`Sockets::add`), since the other opens of the batch are awaited in between.
        return Ok(match response.websocket() {
            Some(socket) => (Opened::Watching, Some(socket.into())),
            None => (Opened::Failed("101 without a socket".into()), None),
        });
    }
    Ok((Opened::refused(status, &whole(&response).await?), None))
}
