//! Completions (server/utilities/completion): suggestions for a prompt argument or a
//! resource template variable as the user types.

use crate::jsonrpc::{self, OneEntry};
use serde::Serialize;
use serde_json::{Map, Value};
use std::rc::Rc;

/// Suggestions for the partial `value`, given the other arguments already filled in.
pub type Completer = Rc<dyn Fn(&str, &Map<String, Value>) -> Vec<String>>;

/// The most values one answer carries (completion "Response": at most 100).
pub const MAX_VALUES: usize = 100;

/// A `completion` result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    pub values: Vec<String>,
    pub total: usize,
    pub has_more: bool,
}

impl Completion {
    pub fn of(mut values: Vec<String>) -> Completion {
        let total = values.len();
        values.truncate(MAX_VALUES);
        Completion {
            has_more: total > values.len(),
            values,
            total,
        }
    }

    /// The `CompleteResult`.
    pub fn to_result(&self) -> Value {
        jsonrpc::payload(&OneEntry("completion", self))
    }
}

/// A completer offering the `choices` that start with what was typed (case-insensitive).
pub fn complete_from(choices: &[&str]) -> Completer {
    let choices: Vec<String> = choices.iter().map(|c| c.to_string()).collect();
    Rc::new(move |value: &str, _: &Map<String, Value>| {
        let typed = value.to_lowercase();
        choices
            .iter()
            .filter(|c| c.to_lowercase().starts_with(&typed))
            .cloned()
            .collect()
    })
}
