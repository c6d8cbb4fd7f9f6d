//! A client's connection as a 2025-11-25 session's streams see it (`legacy::replay::
//! Closable`, `legacy::resumable::Channel`), recording the frames it got and whether it
//! was closed (tests/legacy_resumable.rs, tests/legacy_notices.rs), and request ids drawn
//! in order.

use mcp_tasks_edge::legacy::replay::Closable;
use mcp_tasks_edge::legacy::resumable::Channel;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

#[derive(Clone, Default)]
pub struct Fake {
    pub frames: Rc<RefCell<Vec<String>>>,
    pub closed: Rc<Cell<bool>>,
}

impl Closable for Fake {
    fn is_finished(&self) -> bool {
        self.closed.get()
    }

    fn close(&self) {
        self.closed.set(true);
    }
}

impl Channel for Fake {
    fn send_raw(&self, frames: Vec<u8>) {
        assert!(!self.closed.get(), "nothing is sent on a closed connection");
        let text = String::from_utf8(frames).unwrap();
        self.frames.borrow_mut().push(text);
    }
}

impl Fake {
    /// The ids of the events it got.
    pub fn ids(&self) -> Vec<String> {
        let frames = self.frames.borrow();
        let lines = frames.iter().flat_map(|f| f.lines().map(str::to_owned));
        let ids = lines.filter_map(|l| l.strip_prefix("id: ").map(str::to_owned));
        ids.collect()
    }

    /// The JSON-RPC messages of its `message` events (after an `id:` line, if any; a
    /// priming event carries none).
    pub fn messages(&self) -> Vec<Value> {
        let frames = self.frames.borrow();
        let events = frames.iter().filter_map(|f| {
            let event = f
                .split_once('\n')
                .filter(|(first, _)| first.starts_with("id: "));
            let event = event.map_or(f.as_str(), |(_, rest)| rest);
            event.strip_prefix("event: message\ndata: ")
        });
        let parsed = events.map(|data| serde_json::from_str(data.trim_end()).unwrap());
        parsed.collect()
    }
}

/// Request ids `q-1`, `q-2`, … as a session draws them.
pub fn question_ids() -> impl FnMut() -> String {
    let mut n = 0;
    move || {
        n += 1;
        format!("q-{n}")
    }
}
