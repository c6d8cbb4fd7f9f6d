//! Writing a task in the layout of [`super`]: which parts go inline in the hot record,
//! which apart in chunks, and the timeline entry of the write.

use super::{
    CHUNK_BYTES, Dirty, FORMAT, HOT_KEY, Hot, INLINE_BYTES, INLINE_ENTRIES, Parts, answer_part,
    chunk_keys, timeline_key,
};
use crate::tasks::record::TaskRecord;
use crate::tasks::task::TaskStatus;
use crate::tasks::transition::KEEP;
use serde::Serialize;

/// What to write: (key, value) pairs and keys to delete.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Writes {
    pub put: Vec<(String, String)>,
    pub delete: Vec<String>,
}

/// Splits `text` into chunks of at most [`CHUNK_BYTES`], on character boundaries.
fn chunks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = rest.len().min(CHUNK_BYTES);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    if out.is_empty() {
        out.push("");
    }
    out
}

fn json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

/// Places the parts a write changed: inline while they fit in `room` bytes, else apart.
struct Placer<'a> {
    writes: &'a mut Writes,
    room: usize,
}

impl Placer<'_> {
    /// Stores part `name` (`before` chunks until now, 0: inline) and returns its chunk
    /// count, 0 if it goes inline. Chunks it no longer needs are deleted.
    fn place<T: Serialize + ?Sized>(&mut self, name: &str, value: &T, before: u32) -> u32 {
        let text = json(value);
        if text.len() <= self.room {
            self.room -= text.len();
            self.writes.delete.extend(chunk_keys(name, before));
            return 0;
        }
        let pieces = chunks(&text);
        let count = pieces.len() as u32;
        for (i, piece) in pieces.into_iter().enumerate() {
            self.writes
                .put
                .push((format!("{name}.{i}"), piece.to_owned()));
        }
        self.writes
            .delete
            .extend(chunk_keys(name, before).skip(count as usize));
        count
    }
}

/// Bytes of the inline parts this write leaves as they are.
fn unchanged_inline(record: &TaskRecord, before: &Parts, dirty: &Dirty) -> usize {
    let mut bytes = 0;
    if !dirty.arguments && before.arguments == 0 {
        bytes += json(record.arguments()).len();
    }
    if !dirty.checkpoint && before.checkpoint == 0 {
        bytes += json(record.checkpoint()).len();
    }
    for (key, answer) in record.answers() {
        if !dirty.answers.contains(key) && !before.answers.contains_key(key) {
            bytes += json(answer).len();
        }
    }
    if let (false, 0, TaskStatus::Completed { result }) =
        (dirty.result, before.result, record.status())
    {
        bytes += json(result).len();
    }
    bytes
}

/// The writes that store `record` given the parts stored `before` and what changed;
/// returns them with the new parts index. The hot record is always written; an inline
/// part that did not change stays inline (its bytes count against [`INLINE_BYTES`]
/// first), one that changed goes inline if it fits in what is left.
pub fn encode(record: &TaskRecord, before: &Parts, dirty: &Dirty) -> (Writes, Parts) {
    let mut writes = Writes::default();
    let mut parts = before.clone();
    let room = INLINE_BYTES.saturating_sub(unchanged_inline(record, before, dirty));
    let mut placer = Placer {
        writes: &mut writes,
        room,
    };
    if dirty.arguments {
        parts.arguments = placer.place("arguments", record.arguments(), before.arguments);
    }
    if dirty.checkpoint {
        parts.checkpoint = placer.place("checkpoint", record.checkpoint(), before.checkpoint);
    }
    for key in &dirty.answers {
        if let Some(answer) = record.answers().get(key) {
            let before_chunks = before.answers.get(key).copied().unwrap_or(0);
            match placer.place(&answer_part(key), answer, before_chunks) {
                0 => parts.answers.remove(key),
                count => parts.answers.insert(key.clone(), count),
            };
        }
    }
    if let (true, TaskStatus::Completed { result }) = (dirty.result, record.status()) {
        parts.result = placer.place("result", result, before.result);
    }
    if let Some(entry) = &dirty.timeline {
        let n = before.timeline;
        if n < INLINE_ENTRIES {
            parts.entries.insert(n, entry.clone());
        } else {
            writes.put.push((timeline_key(n), json(entry)));
        }
        // The entry leaving the window (never the first) goes in the same write.
        if n >= KEEP {
            let gone = n + 1 - KEEP;
            if parts.entries.remove(&gone).is_none() {
                writes.delete.push(timeline_key(gone));
            }
        }
        parts.timeline = n + 1;
    }
    let hot_record = record.without_parts(
        parts.arguments > 0,
        parts.checkpoint > 0,
        &parts.answers,
        parts.result > 0,
    );
    let hot = Hot {
        format: FORMAT,
        record: &hot_record,
        parts: &parts,
    };
    writes.put.push((HOT_KEY.to_owned(), json(&hot)));
    (writes, parts)
}
