//! A tool's annotations (schema.ts `ToolAnnotations`): hints about its behaviour that a
//! client may show or use to ask for confirmation, never trust for security.

use serde_json::{Map, Value};

/// [`Tool::annotations`](super::Tool::annotations)' argument. Every hint is optional; the
/// spec's defaults apply to those left out (`readOnlyHint` false, `destructiveHint` true,
/// `idempotentHint` false, `openWorldHint` true).
///
/// ```
/// use mcp_tasks_edge::prelude::*;
/// let tool = Tool::new("count", "Counts words.")
///     .annotations(Annotations::new().read_only().open_world(false));
/// assert_eq!(
///     tool.definition()["annotations"],
///     json!({ "readOnlyHint": true, "openWorldHint": false })
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Annotations {
    /// A human-readable title (the tool's own `title` wins where both are given).
    pub title: Option<String>,
    /// It does not modify its environment.
    pub read_only_hint: Option<bool>,
    /// It may perform destructive updates (meaningful when not read-only).
    pub destructive_hint: Option<bool>,
    /// Calling it again with the same arguments has no additional effect.
    pub idempotent_hint: Option<bool>,
    /// It interacts with an open world of external entities (the web, say).
    pub open_world_hint: Option<bool>,
}

impl Annotations {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn title(mut self, title: &str) -> Self {
        self.title = Some(title.to_owned());
        self
    }

    /// `readOnlyHint: true`.
    pub fn read_only(mut self) -> Self {
        self.read_only_hint = Some(true);
        self
    }

    /// `destructiveHint`.
    pub fn destructive(mut self, destructive: bool) -> Self {
        self.destructive_hint = Some(destructive);
        self
    }

    /// `idempotentHint: true`.
    pub fn idempotent(mut self) -> Self {
        self.idempotent_hint = Some(true);
        self
    }

    /// `openWorldHint`.
    pub fn open_world(mut self, open: bool) -> Self {
        self.open_world_hint = Some(open);
        self
    }

    /// The `ToolAnnotations` object, with the hints given.
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        if let Some(title) = &self.title {
            object.insert("title".into(), title.as_str().into());
        }
        let hints = [
            ("readOnlyHint", self.read_only_hint),
            ("destructiveHint", self.destructive_hint),
            ("idempotentHint", self.idempotent_hint),
            ("openWorldHint", self.open_world_hint),
        ];
        for (name, hint) in hints {
            if let Some(hint) = hint {
                object.insert(name.into(), hint.into());
            }
        }
        Value::Object(object)
    }
}
