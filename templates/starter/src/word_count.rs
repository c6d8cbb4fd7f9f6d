//! `word_count`: a synchronous tool with typed arguments and a typed result. Its input
//! and output schemas are derived from `Args` and `Counts`; the result carries `Counts`
//! as `structuredContent` (and as JSON text).

use mcp_tasks_edge::prelude::*;

/// The longest text counted, in characters.
const MAX_CHARS: usize = 100_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The text to count
    pub text: String,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Counts {
    /// Words: runs of characters between whitespace
    pub words: usize,
    /// Unicode scalar values
    pub characters: usize,
    /// Lines (0 for an empty text)
    pub lines: usize,
}

pub fn tool() -> Tool {
    Tool::new(
        "word_count",
        "Counts the words, characters and lines of a text.",
    )
    .title("Word count")
    .annotations(Annotations::new().read_only().open_world(false))
    .run_sync(word_count)
}

pub fn word_count(call: &Call<Args>) -> Result<Counts, ToolError> {
    let text = &call.args.text;
    let characters = text.chars().count();
    if characters > MAX_CHARS {
        // An `isError` result: the model reads it and can try a shorter text.
        return Err(ToolError::message(format!(
            "The text has {characters} characters; at most {MAX_CHARS} are counted."
        )));
    }
    Ok(Counts {
        words: text.split_whitespace().count(),
        characters,
        lines: text.lines().count(),
    })
}
