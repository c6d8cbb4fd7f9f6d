//! How a task is laid out in its object's storage: one hot record, read by every request
//! and rewritten by every write, holding the task with its large parts (arguments,
//! checkpoint, answers, result) while they fit in [`INLINE_BYTES`] together, and the
//! first [`INLINE_ENTRIES`] entries of its timeline. A part that does not fit lives apart,
//! split into chunks well under the per-value limit (2 MB on SQLite-backed objects).
//! A small task is therefore one key: each write of it is one row, each read one row.
//!
//! # Format
//!
//! ```text
//! task              {"format":3, ...the record, its inline parts included...,
//!                    "parts":{"arguments":0,"checkpoint":0,"result":3,"answers":{"name":1},
//!                             "timeline":9,"entries":{"0":{…},…,"7":{…}}}}
//! result.0..2       a part kept apart (here a result too large to inline), in 3 chunks
//! answer.name.0     an answer kept apart (to the tool's input key "name")
//! timeline.8        a timeline entry from number INLINE_ENTRIES on (`super::timeline`):
//!                   the first and the last `timeline::KEEP - 1` entries are kept
//! ```
//!
//! In `parts`, a part's chunk count 0 means it is inline, in the record (a result only
//! once the task completed); `entries` holds the inline timeline entries by number.
//!
//! Format 2 kept every part apart (chunk counts of at least 1) and every timeline entry
//! under its own key; it reads by the same rules, and the next write stores it as
//! format 3 (the parts it kept apart stay apart until they change). Format 1 (before
//! leases) kept the whole record as one JSON value under `task`, with `stepRunning`
//! instead of a lease; it is still read, and rewritten whole on the next write. So a
//! deploy never strands the tasks already in flight.

use super::record::TaskRecord;
use super::task::TaskStatus;
use super::transition::{Entry, KEEP};
use crate::pairs::Pairs;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod encode;

pub use encode::{Writes, encode};

pub const HOT_KEY: &str = "task";
pub const FORMAT: u32 = 3;
/// Bytes of JSON of the large parts kept inline in the hot record, at most: a part that
/// does not fit in what is left is kept apart. Bounds what every request reads.
pub const INLINE_BYTES: usize = 16 * 1024;
/// Timeline entries numbered below this are kept inline in the hot record (their
/// messages are clipped: `timeline::MAX_MESSAGE_CHARS`); later ones under their own key.
pub const INLINE_ENTRIES: u32 = 8;
/// Bytes of JSON per chunk: a chunk stays under the 2 MB value limit even if the
/// runtime stores strings as UTF-16.
pub const CHUNK_BYTES: usize = 512 * 1024;

/// How many chunks each large part has (0: inline, in the record), and the inline
/// timeline entries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Parts {
    #[serde(default)]
    pub arguments: u32,
    #[serde(default)]
    pub checkpoint: u32,
    #[serde(default)]
    pub result: u32,
    #[serde(default)]
    pub answers: Pairs<String, u32>,
    /// Timeline entries ever written (entry `n` is in `entries` or under `timeline.n`;
    /// only the first and the last `timeline::KEEP - 1` are kept).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub timeline: u32,
    /// The kept timeline entries stored inline, by number (those below
    /// [`INLINE_ENTRIES`] written since format 3).
    #[serde(default, skip_serializing_if = "Pairs::is_empty")]
    pub entries: Pairs<u32, Entry>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Which large parts an operation reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// The hot record only (`tasks/update`, `tasks/cancel` without a hook).
    Hot,
    /// The result too, if the task completed (`tasks/get`, notifications).
    Result,
    /// Everything a step reads: arguments, checkpoint, answers.
    Step,
    /// The timeline's kept entries (`mcp-tasks-edge/tasks/timeline`, the operator's view).
    Timeline,
    /// Every part (what a step reads and the result).
    All,
}

/// Which large parts a write changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dirty {
    pub arguments: bool,
    pub checkpoint: bool,
    pub result: bool,
    /// Tool keys of new answers.
    pub answers: Vec<String>,
    /// The transition this write records in the timeline ([`super::timeline::note`]).
    pub timeline: Option<Entry>,
}

impl Dirty {
    /// Everything (a new task, or a format-1 record being rewritten).
    pub fn all(record: &TaskRecord) -> Dirty {
        Dirty {
            arguments: true,
            checkpoint: true,
            result: true,
            answers: record.answers().keys().cloned().collect(),
            timeline: None,
        }
    }

    /// What a write of `record` over `before` must store: the parts index to start from
    /// and the parts to write. A format-1 record is rewritten whole; the timeline entry
    /// of `self` is kept either way.
    pub fn over(self, before: Option<&Stored>, record: &TaskRecord) -> (Parts, Dirty) {
        match before {
            Some(stored) if stored.legacy => (
                Parts::default(),
                Dirty {
                    timeline: self.timeline,
                    ..Dirty::all(record)
                },
            ),
            Some(stored) => (stored.parts.clone(), self),
            None => (Parts::default(), self),
        }
    }
}

/// A record as read: the hot part decoded, large parts filled in as far as loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    pub record: TaskRecord,
    pub parts: Parts,
    /// Read from format 1: the next write must write everything.
    pub legacy: bool,
    /// The kept timeline entries, oldest first (loaded with [`Need::Timeline`]).
    pub timeline: Vec<Entry>,
}

/// The hot record as written: the record with the layout's own members, `format` and
/// `parts`. Read by [`decode_hot`], which takes those two members out and reads the rest
/// as the record (no flattening on the way in).
#[derive(Serialize)]
struct Hot<'a> {
    format: u32,
    #[serde(flatten)]
    record: &'a TaskRecord,
    parts: &'a Parts,
}

/// Decodes the value under [`HOT_KEY`] (format 1, 2 or 3).
pub fn decode_hot(text: &str) -> Result<Stored, String> {
    let value: Value =
        crate::jsonrpc::read(text.as_bytes()).map_err(|e| format!("corrupt task record: {e}"))?;
    let Value::Object(mut hot) = value else {
        return Err("corrupt task record: not a JSON object".into());
    };
    match hot.get("format").and_then(Value::as_u64) {
        Some(2 | 3) => {
            let parts = hot
                .remove("parts")
                .ok_or("corrupt task record: missing field `parts`")?;
            let parts: Parts = crate::jsonrpc::from_value(parts)
                .map_err(|e| format!("corrupt task record: parts: {e}"))?;
            let record: TaskRecord = crate::jsonrpc::from_value(Value::Object(hot))
                .map_err(|e| format!("corrupt task record: {e}"))?;
            Ok(Stored {
                record,
                parts,
                legacy: false,
                timeline: Vec::new(),
            })
        }
        Some(other) => Err(format!(
            "task record format {other} is newer than this server understands"
        )),
        None => {
            // Format 1: the whole record; `stepRunning: true` means a step was in flight.
            let interrupted = hot.get("stepRunning").and_then(Value::as_bool) == Some(true);
            let mut record: TaskRecord = crate::jsonrpc::from_value(Value::Object(hot))
                .map_err(|e| format!("corrupt format-1 task record: {e}"))?;
            if interrupted {
                record.assume_interrupted();
            }
            Ok(Stored {
                record,
                parts: Parts::default(),
                legacy: true,
                timeline: Vec::new(),
            })
        }
    }
}

/// The chunk keys of part `name` with `chunks` chunks.
fn chunk_keys(name: &str, chunks: u32) -> impl Iterator<Item = String> + '_ {
    (0..chunks).map(move |i| format!("{name}.{i}"))
}

fn answer_part(key: &str) -> String {
    format!("answer.{key}")
}

fn timeline_key(n: u32) -> String {
    format!("timeline.{n}")
}

/// The indexes of the kept entries of a timeline of `written` entries: the first, then
/// the last `KEEP - 1`.
fn kept_entries(written: u32) -> impl Iterator<Item = u32> {
    let from = written.saturating_sub(KEEP - 1).max(1);
    (0..written.min(1)).chain(from..written)
}

/// The keys to read for `need` (none for a format-1 record: it is all inline).
pub fn keys_for(stored: &Stored, need: Need) -> Vec<String> {
    if stored.legacy {
        return Vec::new();
    }
    let p = &stored.parts;
    match need {
        Need::Hot => Vec::new(),
        Need::Result if matches!(stored.record.status(), TaskStatus::Completed { .. }) => {
            chunk_keys("result", p.result).collect()
        }
        Need::Result => Vec::new(),
        Need::Step => {
            let mut keys: Vec<String> = chunk_keys("arguments", p.arguments)
                .chain(chunk_keys("checkpoint", p.checkpoint))
                .collect();
            for (key, chunks) in p.answers.iter() {
                keys.extend(chunk_keys(&answer_part(key), *chunks));
            }
            keys
        }
        Need::Timeline => kept_entries(p.timeline)
            .filter(|n| !p.entries.contains_key(n))
            .map(timeline_key)
            .collect(),
        Need::All => {
            let mut keys = keys_for(stored, Need::Step);
            keys.extend(keys_for(stored, Need::Result));
            keys
        }
    }
}

fn join(name: &str, chunks: u32, values: &Pairs<String, String>) -> Result<Value, String> {
    let mut text = String::new();
    for key in chunk_keys(name, chunks) {
        text.push_str(
            values
                .get(&key)
                .ok_or_else(|| format!("task storage lacks {key}"))?,
        );
    }
    crate::jsonrpc::read(text.as_bytes())
        .map_err(|e| format!("corrupt {name} in task storage: {e}"))
}

/// Fills the parts `need` read (the values of [`keys_for`]) into the record.
pub fn fill(stored: &mut Stored, need: Need, values: &Pairs<String, String>) -> Result<(), String> {
    if stored.legacy {
        return Ok(());
    }
    let p = stored.parts.clone();
    let record = &mut stored.record;
    match need {
        Need::Hot => {}
        Need::Result => {
            if let (TaskStatus::Completed { .. }, 1..) = (record.status(), p.result) {
                record.fill_result(join("result", p.result, values)?);
            }
        }
        Need::Step => {
            // Inline parts (0 chunks) are in the record already.
            let arguments = match p.arguments {
                0 => record.arguments().clone(),
                chunks => match join("arguments", chunks, values)? {
                    Value::Object(arguments) => arguments,
                    _ => return Err("task storage: arguments are not an object".into()),
                },
            };
            let checkpoint = match p.checkpoint {
                0 => record.checkpoint().clone(),
                chunks => join("checkpoint", chunks, values)?,
            };
            let mut answers = record.answers().clone();
            for (key, chunks) in p.answers.iter() {
                answers.insert(key.clone(), join(&answer_part(key), *chunks, values)?);
            }
            record.fill_step_parts(arguments, checkpoint, answers);
        }
        Need::Timeline => {
            let mut entries = Vec::new();
            for n in kept_entries(p.timeline) {
                if let Some(entry) = p.entries.get(&n) {
                    entries.push(entry.clone());
                    continue;
                }
                // A missing entry is skipped: the timeline informs, it never blocks the task.
                let Some(text) = values.get(&timeline_key(n)) else {
                    continue;
                };
                let entry = crate::jsonrpc::read(text.as_bytes())
                    .map_err(|e| format!("corrupt timeline entry {n} in task storage: {e}"))?;
                entries.push(entry);
            }
            stored.timeline = entries;
        }
        Need::All => {
            fill(stored, Need::Step, values)?;
            fill(stored, Need::Result, values)?;
        }
    }
    Ok(())
}
