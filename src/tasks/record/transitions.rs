//! The named writes of a [`TaskRecord`]: each transition of the state machine with what
//! changes along with it, and what the layout and the watchers write. Nothing outside
//! `crate::tasks` writes a record (invariant 3); everyone reads it through its accessors.

use super::{Lease, TaskRecord, wire_key};
use crate::jsonrpc::ErrorObject;
use crate::tasks::machine::{Event, Illegal};
use crate::tasks::task::TaskStatus;
use crate::tools::Amount;
use serde_json::{Map, Value};

impl TaskRecord {
    /// `tasks/cancel` took effect (by the client or an operator, said by `message`).
    pub(in crate::tasks) fn cancel(&mut self, message: &str, now_ms: u64) -> Result<(), Illegal> {
        self.apply(Event::Cancelled, now_ms)?;
        self.status_message = Some(message.into());
        Ok(())
    }

    /// Answers arrived for outstanding requests (`answers` keyed by the tool's keys);
    /// `remaining` are still outstanding. When none remain, the next step is due now.
    /// Returns the keys of the answers stored.
    pub(in crate::tasks) fn take_answers(
        &mut self,
        answers: Vec<(String, Value)>,
        remaining: Map<String, Value>,
        now_ms: u64,
    ) -> Result<Vec<String>, Illegal> {
        let mut keys = Vec::with_capacity(answers.len());
        for (key, answer) in answers {
            self.answers.insert(key.clone(), answer);
            keys.push(key);
        }
        self.apply(Event::InputAnswered { remaining }, now_ms)?;
        if self.status == TaskStatus::Working {
            self.status_message = Some("Input received; resuming".into());
            self.next_step_at_ms = Some(now_ms);
        }
        Ok(keys)
    }

    /// The questions an interrupted attempt asked mid-step (`Call::ask_now`) go with it:
    /// the step runs again from its checkpoint, and asks again if it must.
    pub(in crate::tasks) fn withdraw_questions(&mut self, now_ms: u64) -> Result<(), Illegal> {
        self.apply(
            Event::InputAnswered {
                remaining: Map::new(),
            },
            now_ms,
        )?;
        self.status_message = Some("The step that asked was interrupted; it runs again".into());
        Ok(())
    }

    /// Attempt `attempt` at the current step starts; presumed lost after `deadline_ms`.
    pub(in crate::tasks) fn start_attempt(&mut self, attempt: u32, deadline_ms: u64) {
        self.lease = Some(Lease {
            attempt,
            deadline_ms,
        });
    }

    /// The attempt in flight reported its outcome.
    pub(in crate::tasks) fn end_attempt(&mut self) {
        self.lease = None;
    }

    /// A format-1 record stored while a step ran (`stepRunning`): that attempt is lost.
    pub(in crate::tasks) fn assume_interrupted(&mut self) {
        self.start_attempt(1, 0);
    }

    /// The task failed with `error`.
    pub(in crate::tasks) fn fail(
        &mut self,
        error: ErrorObject,
        now_ms: u64,
    ) -> Result<(), Illegal> {
        self.status_message = Some(format!("Failed: {}", error.message));
        self.apply(Event::Failed(error), now_ms)
    }

    /// The tool produced its result.
    pub(in crate::tasks) fn complete(&mut self, result: Value, now_ms: u64) -> Result<(), Illegal> {
        // The result says the rest: no message, no progress left over from a step.
        self.status_message = None;
        self.progress = None;
        self.total = None;
        self.apply(Event::Completed(result), now_ms)
    }

    /// A step finished and more work remains, due at `next_step_at_ms`: the new
    /// checkpoint, status message and progress in numbers, if the step set them. Returns
    /// whether the checkpoint changed.
    pub(in crate::tasks) fn progress(
        &mut self,
        checkpoint: Option<Value>,
        status_message: Option<String>,
        amount: Option<Amount>,
        next_step_at_ms: u64,
        now_ms: u64,
    ) -> Result<bool, Illegal> {
        let changed = checkpoint.is_some();
        if let Some(checkpoint) = checkpoint {
            self.checkpoint = checkpoint;
        }
        if status_message.is_some() {
            self.status_message = status_message;
        }
        if let Some(amount) = amount {
            self.progress = Some(amount.progress);
            self.total = amount.total;
        }
        self.next_step_at_ms = Some(next_step_at_ms);
        self.apply(Event::Progressed, now_ms)?;
        Ok(changed)
    }

    /// Progress reported while a step runs: the message and the numbers, nothing else.
    pub(in crate::tasks) fn report(
        &mut self,
        status_message: String,
        amount: Amount,
        now_ms: u64,
    ) -> Result<(), Illegal> {
        self.status_message = Some(status_message);
        self.progress = Some(amount.progress);
        self.total = amount.total;
        self.apply(Event::Progressed, now_ms)
    }

    /// The tool needs input: a new round, its requests keyed task-unique ([`wire_key`]),
    /// and the checkpoint the step re-runs with if it set one (`Step::NeedInputAt`).
    pub(in crate::tasks) fn need_input(
        &mut self,
        requests: Map<String, Value>,
        checkpoint: Option<Value>,
        now_ms: u64,
    ) -> Result<(), Illegal> {
        if let Some(checkpoint) = checkpoint {
            self.checkpoint = checkpoint;
        }
        self.round += 1;
        let round = self.round;
        // `extend`, not `collect`: a map collected from an iterator sorts it first, and
        // each such site adds a sort to the wasm (docs/architecture.md, "What keeps the
        // Worker small").
        let mut keyed = Map::new();
        keyed.extend(requests.into_iter().map(|(k, v)| (wire_key(&k, round), v)));
        self.next_step_at_ms = None;
        self.status_message = Some("Waiting for input".into());
        self.apply(Event::InputNeeded(keyed), now_ms)
    }

    /// Numbers this write: `version` (one more than the stored record's).
    pub(in crate::tasks) fn number_write(&mut self, version: u64) {
        self.version = version;
    }

    /// The large parts read apart from the hot record (`crate::tasks::layout`).
    pub(in crate::tasks) fn fill_step_parts(
        &mut self,
        arguments: Map<String, Value>,
        checkpoint: Value,
        answers: Map<String, Value>,
    ) {
        self.arguments = arguments;
        self.checkpoint = checkpoint;
        self.answers = answers;
    }

    /// A completed task's result, read apart from the hot record (`crate::tasks::layout`).
    pub(in crate::tasks) fn fill_result(&mut self, result: Value) {
        if let TaskStatus::Completed { result: slot } = &mut self.status {
            *slot = result;
        }
    }

    /// The record as its hot key stores it (`crate::tasks::layout`): the large parts kept
    /// apart emptied (the arguments, the checkpoint, the answers named in `answers`, the
    /// result), the inline ones kept.
    pub(in crate::tasks) fn without_parts(
        &self,
        arguments: bool,
        checkpoint: bool,
        answers: &crate::pairs::Pairs<String, u32>,
        result: bool,
    ) -> TaskRecord {
        let mut hot = self.clone();
        if arguments {
            hot.arguments = Map::new();
        }
        if checkpoint {
            hot.checkpoint = Value::Null;
        }
        hot.answers.retain(|key, _| !answers.contains_key(key));
        if result {
            hot.fill_result(Value::Null);
        }
        hot
    }
}
