//! The second pass: every subschema location (and every location a `$ref` points at)
//! becomes a [`Node`] in one arena, its keywords checked against the dialect (a schema
//! must be valid for its dialect: basic/index "Schema Validation") and its references
//! resolved to arena indexes, so validating never looks anything up by name.

mod keywords;

pub(super) use keywords::{Keywords, TYPES};

use super::index::{Index, escape, shown};
use crate::pairs::Pairs;
use crate::uri::Uri;
use serde_json::Value;

/// One compiled subschema.
pub(super) enum Node {
    Bool(bool),
    Keywords(Box<Keywords>),
}

/// A `$dynamicRef`: where it points statically, and the `$dynamicAnchor` name to look up
/// in the dynamic scope when that target carries it (Core 2020-12 §8.2.3.2).
pub(super) struct DynamicRef {
    pub target: usize,
    pub anchor: Option<String>,
}

/// A compiled document: the arena, its root, and each resource's dynamic anchors.
pub(super) struct Compiled {
    pub nodes: Vec<Node>,
    pub root: usize,
    pub dynamic_anchors: Vec<Pairs<String, usize>>,
}

/// Compiles `doc`, whose base URI is `base`.
pub(super) fn compile(doc: &Value, base: Uri) -> Result<Compiled, String> {
    let index = Index::build(doc, base)?;
    let mut compiler = Compiler {
        doc,
        index,
        nodes: Vec::new(),
        by_pointer: Pairs::new(),
        queue: Vec::new(),
    };
    let root = compiler.node("");
    // Every subschema, referenced or not: a schema must be valid as a whole.
    // In order: the index's map keeps them sorted.
    let locations: Vec<String> = compiler.index.locations.keys().cloned().collect();
    for at in &locations {
        compiler.node(at);
    }
    while let Some(at) = compiler.queue.pop() {
        let node = compiler.build(&at)?;
        let n = compiler.by_pointer[&at];
        compiler.nodes[n] = node;
    }
    let dynamic_anchors = compiler
        .index
        .resources
        .iter()
        .map(|r| {
            r.dynamic
                .iter()
                .map(|name| (name.clone(), compiler.by_pointer[&r.anchors[name]]))
                .collect()
        })
        .collect();
    Ok(Compiled {
        nodes: compiler.nodes,
        root,
        dynamic_anchors,
    })
}

pub(super) struct Compiler<'d> {
    doc: &'d Value,
    pub(super) index: Index,
    nodes: Vec<Node>,
    /// Locations → arena indexes (in the index's order, so nearly always added at the end).
    by_pointer: Pairs<String, usize>,
    /// Locations given an index but not built yet.
    queue: Vec<String>,
}

impl Compiler<'_> {
    /// The arena index of the subschema at `at`, queued for building when new.
    pub(super) fn node(&mut self, at: &str) -> usize {
        if let Some(&n) = self.by_pointer.get(at) {
            return n;
        }
        self.nodes.push(Node::Bool(true));
        self.by_pointer.insert(at.to_owned(), self.nodes.len() - 1);
        self.queue.push(at.to_owned());
        self.nodes.len() - 1
    }

    fn build(&mut self, at: &str) -> Result<Node, String> {
        let doc = self.doc;
        match doc.pointer(at) {
            Some(Value::Bool(b)) => Ok(Node::Bool(*b)),
            Some(Value::Object(map)) => Ok(Node::Keywords(Box::new(self.keywords(map, at)?))),
            _ => Err(format!(
                "the schema at {}: a schema must be an object or a boolean",
                shown(at)
            )),
        }
    }

    /// Resolves a `$ref`/`$dynamicRef` to the node it names, and the anchor name when the
    /// target is a `$dynamicAnchor` of that name (for `$dynamicRef`).
    pub(super) fn reference(
        &mut self,
        value: &Value,
        at: &str,
        keyword: &str,
    ) -> Result<(usize, Option<String>), String> {
        let text = value
            .as_str()
            .ok_or_else(|| bad(at, keyword, "must be a string"))?;
        let base = &self.index.resources[self.index.resource_of(at)].uri;
        let uri = base.join(text).map_err(|e| {
            bad(
                at,
                keyword,
                &format!("{text:?} is not a URI reference: {e}"),
            )
        })?;
        let Some(r) = self.index.resource(&uri) else {
            let shown = uri.without_fragment();
            return Err(format!(
                "{shown} is outside the schema, and schemas are never fetched (remote $ref or unknown $schema)"
            ));
        };
        let resource = &self.index.resources[r];
        let fragment = uri.fragment().unwrap_or_default();
        let decoded = percent_encoding::percent_decode_str(fragment).decode_utf8_lossy();
        let (target, anchor) = if decoded.is_empty() || decoded.starts_with('/') {
            (format!("{}{decoded}", resource.root), None)
        } else {
            let target = resource.anchors.get(decoded.as_ref()).ok_or_else(|| {
                bad(
                    at,
                    keyword,
                    &format!("{text:?}: the schema has no anchor {decoded:?}"),
                )
            })?;
            (target.clone(), Some(decoded.into_owned()))
        };
        let doc = self.doc;
        let Some(schema) = doc.pointer(&target) else {
            return Err(bad(
                at,
                keyword,
                &format!("{text:?} points at nothing in the schema"),
            ));
        };
        // A `$dynamicRef` is dynamic only when its target is a `$dynamicAnchor` of that
        // name (the "bookend"); otherwise it behaves as `$ref`.
        let dynamic = anchor.filter(|name| {
            keyword == "$dynamicRef"
                && schema.get("$dynamicAnchor").and_then(Value::as_str) == Some(name)
        });
        Ok((self.node(&target), dynamic))
    }

    pub(super) fn schema(
        &mut self,
        value: &Value,
        at: &str,
        keyword: &str,
        child: &str,
    ) -> Result<usize, String> {
        if value.is_object() || value.is_boolean() {
            Ok(self.node(child))
        } else {
            Err(bad(at, keyword, "must hold schemas (objects or booleans)"))
        }
    }

    pub(super) fn schema_list(
        &mut self,
        value: &Value,
        at: &str,
        keyword: &str,
    ) -> Result<Vec<usize>, String> {
        let items = value
            .as_array()
            .ok_or_else(|| bad(at, keyword, "must be an array of schemas"))?;
        let here = format!("{at}/{keyword}");
        (0..items.len())
            .map(|i| self.schema(&items[i], at, keyword, &format!("{here}/{i}")))
            .collect()
    }

    pub(super) fn schema_map(
        &mut self,
        value: &Value,
        at: &str,
        keyword: &str,
    ) -> Result<Vec<(String, usize)>, String> {
        let map = value
            .as_object()
            .ok_or_else(|| bad(at, keyword, "must be an object of schemas"))?;
        let here = format!("{at}/{}", escape(keyword));
        map.iter()
            .map(|(name, v)| {
                Ok((
                    name.clone(),
                    self.schema(v, at, keyword, &format!("{here}/{}", escape(name)))?,
                ))
            })
            .collect()
    }
}

pub(super) fn bad(at: &str, keyword: &str, why: &str) -> String {
    format!("the schema's {keyword:?} at {}: {why}", shown(at))
}
