//! The `subscriptions/listen` stream: an SSE response whose body is produced by reading
//! the watched tasks' objects every `poll_ms` (fan-in by the Worker). Frames come from the
//! core (`server::listen`); this file only schedules reads and writes them out.

use super::principal_object::StreamSlot;
use super::{call_object, to_headers};
use crate::http::HttpResponse;
use crate::server::listen::{KEEPALIVE_MS, Listen, is_terminal};
use crate::tasks::protocol::{ObjectReply, ObjectRequest};
use futures_util::stream;
use serde_json::Value;
use std::collections::VecDeque;
use std::time::Duration;
use worker::{Delay, Env, Response};

enum Phase {
    Start,
    Watching,
    Done,
}

struct Stream {
    env: Env,
    listen: Listen,
    principal: String,
    /// Watched tasks and the last state sent for each.
    watched: Vec<(String, Value)>,
    queue: VecDeque<Vec<u8>>,
    phase: Phase,
    quiet_ms: u64,
    /// The stream's slot in the principal's quota ledger (`QUOTA_LISTEN_STREAMS`).
    slot: Option<StreamSlot>,
}

impl Stream {
    async fn get(&self, task_id: &str) -> Option<Value> {
        let request = ObjectRequest::Get {
            task_id: task_id.to_owned(),
        };
        let reply = call_object(&self.env, &request, &self.principal).await;
        match reply.and_then(|(status, body)| ObjectReply::decode(status, &body)) {
            Ok(ObjectReply::Result(task)) => Some(task),
            _ => None,
        }
    }

    /// Reads every requested task once; the ack lists those the caller can see.
    async fn start(&mut self) {
        for task_id in self.listen.task_ids.clone() {
            if let Some(task) = self.get(&task_id).await {
                self.watched.push((task_id, task));
            }
        }
        let accepted: Vec<String> = self.watched.iter().map(|(id, _)| id.clone()).collect();
        self.queue.push_back(self.listen.ack(&accepted));
        for (_, task) in &self.watched {
            self.queue.push_back(self.listen.task(task));
        }
        self.finish_if_all_terminal();
    }

    async fn poll(&mut self) {
        Delay::from(Duration::from_millis(self.listen.poll_ms)).await;
        if let Some(slot) = &self.slot {
            slot.keep().await;
        }
        let mut changed = Vec::new();
        for (task_id, last) in &self.watched {
            if is_terminal(last) {
                continue;
            }
            match self.get(task_id).await {
                Some(task) if &task != last => changed.push((task_id.clone(), Some(task))),
                Some(_) => {}
                // Expired or deleted while watched: nothing more will come for it.
                None => changed.push((task_id.clone(), None)),
            }
        }
        for (task_id, task) in changed {
            match task {
                Some(task) => {
                    self.queue.push_back(self.listen.task(&task));
                    if let Some(entry) = self.watched.iter_mut().find(|(id, _)| *id == task_id) {
                        entry.1 = task;
                    }
                }
                None => self.watched.retain(|(id, _)| *id != task_id),
            }
        }
        self.quiet_ms = if self.queue.is_empty() {
            self.quiet_ms + self.listen.poll_ms
        } else {
            0
        };
        if self.quiet_ms >= KEEPALIVE_MS {
            self.quiet_ms = 0;
            self.queue.push_back(Listen::keepalive().to_vec());
        }
        self.finish_if_all_terminal();
    }

    /// With tasks requested and none left to change, the subscription ends gracefully.
    fn finish_if_all_terminal(&mut self) {
        if !self.listen.task_ids.is_empty() && self.watched.iter().all(|(_, t)| is_terminal(t)) {
            self.queue.push_back(self.listen.closed());
            self.phase = Phase::Done;
        } else {
            self.phase = Phase::Watching;
        }
    }
}

pub async fn stream(
    env: Env,
    listen: Listen,
    principal: String,
    slot: Option<StreamSlot>,
) -> worker::Result<Response> {
    let mut head = HttpResponse::empty(200);
    head.headers
        .push(("content-type", "text/event-stream".into()));
    head.headers.push(("cache-control", "no-cache".into()));
    head.headers.push(("x-accel-buffering", "no".into()));
    let head = listen.cors.apply(head);
    let state = Stream {
        env,
        listen,
        principal,
        watched: Vec::new(),
        queue: VecDeque::new(),
        phase: Phase::Start,
        quiet_ms: 0,
        slot,
    };
    let body = stream::unfold(state, |mut s| async move {
        loop {
            if let Some(chunk) = s.queue.pop_front() {
                return Some((Ok::<Vec<u8>, worker::Error>(chunk), s));
            }
            match s.phase {
                Phase::Start => s.start().await,
                Phase::Watching => s.poll().await,
                Phase::Done => {
                    if let Some(slot) = s.slot.take() {
                        slot.release().await;
                    }
                    return None;
                }
            }
        }
    });
    let headers = to_headers(&head.headers)?;
    Ok(Response::from_stream(body)?.with_headers(headers))
}
