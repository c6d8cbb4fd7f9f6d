//! The follower's one executor: [`Drive`] carries out the [`Follower`]'s steps on a
//! platform that only opens, reads, listens and sleeps ([`TaskWatch`]), as
//! `fanin::Drive` does for a listen stream. The adapter implements the platform
//! (`cloudflare/watcher.rs`); `tests/follow_drive.rs` runs it on a recording one.

use super::{Event, Follower, Step};
use crate::error::McpError;
use crate::tasks::protocol::ObjectError;
use serde_json::Value;

/// What a follow needs of the platform: the I/O of watching one task, no decision.
// Single threaded, as `server::perform::Effects`.
#[allow(async_fn_in_trait)]
pub trait TaskWatch {
    /// Opens the task's watch socket: [`Event::Opened`], [`Event::NotFound`] or
    /// [`Event::Lost`].
    async fn open(&mut self) -> Event;
    /// The socket's next message until `until_ms` (for ever without one):
    /// [`Event::Pushed`], [`Event::Lost`] or [`Event::Timer`].
    async fn listen(&mut self, until_ms: Option<u64>) -> Event;
    /// Closes the socket, which was lost (a reopened one replaces it).
    fn close(&mut self);
    /// Reads the task's state.
    async fn read(&mut self) -> Result<Value, ObjectError>;
    async fn sleep(&mut self, ms: u64);
    fn now_ms(&self) -> u64;
}

/// One follow of one task, step by step.
pub struct Drive {
    follower: Follower,
    step: Step,
}

impl Drive {
    /// Follows by `follower`, from its first `step` (`Follower::start`).
    pub fn new((follower, step): (Follower, Step)) -> Drive {
        Drive { follower, step }
    }

    /// The task's next state (the current one first), or its object's refusal; `None`
    /// once the follow is over. Dropped while it waits (`tasks/result` asking races it),
    /// the next call resumes the same step, and no pushed state is lost (the platform
    /// keeps the socket's messages).
    pub async fn next(&mut self, p: &mut impl TaskWatch) -> Option<Result<Value, ObjectError>> {
        loop {
            let event = match &mut self.step {
                Step::Over => return None,
                Step::NotFound => {
                    self.step = Step::Over;
                    return Some(Err(ObjectError::Refused(McpError::TaskNotFound.to_wire())));
                }
                Step::Deliver(task) => {
                    let task = std::mem::take(task);
                    self.step = self.follower.next(p.now_ms(), Event::Taken);
                    return Some(Ok(task));
                }
                Step::Read => {
                    let state = p.read().await;
                    self.step = self.follower.next(p.now_ms(), Event::Taken);
                    return Some(state);
                }
                Step::Open { after_ms } => {
                    let after_ms = *after_ms;
                    if after_ms > 0 {
                        p.sleep(after_ms).await;
                    }
                    p.open().await
                }
                Step::Listen { until_ms } => {
                    let until_ms = *until_ms;
                    p.listen(until_ms).await
                }
                Step::Sleep { until_ms } => {
                    let ms = until_ms.saturating_sub(p.now_ms());
                    if ms > 0 {
                        p.sleep(ms).await;
                    }
                    Event::Timer
                }
            };
            if event == Event::Lost {
                p.close();
            }
            self.step = self.follower.next(p.now_ms(), event);
        }
    }
}
