//! The first pass over a schema document: its dialect, its schema resources (the root and
//! every subschema with an `$id`), their anchors, and every location that holds a
//! subschema, found by walking the keywords that hold subschemas (JSON Schema Core
//! 2020-12 §9.2: an `$id` inside `enum`, `const` or an unknown keyword identifies nothing).

use crate::pairs::Pairs;
use crate::uri::Uri;
use serde_json::{Map, Value};

/// The dialects this validator knows (basic/index "Schema Dialect": 2020-12 is the default
/// and must be supported; others are documented where they are accepted).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Draft {
    /// JSON Schema 2020-12, the dialect of a schema without `$schema`.
    D2020,
    /// Draft 7: `$ref` replaces its siblings, `items` may be an array, `format` asserts.
    D7,
}

impl Draft {
    /// The dialect a `$schema` value names; `None` for any other (refused by the caller).
    pub(super) fn named(uri: &str) -> Option<Draft> {
        let uri = uri.trim_end_matches('#');
        match uri
            .strip_prefix("http://")
            .or(uri.strip_prefix("https://"))?
        {
            "json-schema.org/draft/2020-12/schema" => Some(Draft::D2020),
            "json-schema.org/draft-07/schema" => Some(Draft::D7),
            _ => None,
        }
    }
}

/// One schema resource: where it starts in the document and the names its anchors give.
pub(super) struct Resource {
    pub uri: Uri,
    /// JSON Pointer of its root in the document.
    pub root: String,
    /// `$anchor` and `$dynamicAnchor` names (and draft 7's `"$id": "#name"`) → pointer.
    pub anchors: Pairs<String, String>,
    /// `$dynamicAnchor` names only, for `$dynamicRef`'s dynamic scope.
    pub dynamic: Vec<String>,
}

/// What the first pass found.
pub(super) struct Index {
    pub draft: Draft,
    pub resources: Vec<Resource>,
    /// Every subschema location (document pointer) → the resource it belongs to. At most
    /// `MAX_SUBSCHEMAS` (and added in document order, so nearly always at the end).
    pub locations: Pairs<String, usize>,
}

impl Index {
    /// Indexes `root`, whose base URI is `base`.
    pub(super) fn build(root: &Value, base: Uri) -> Result<Index, String> {
        let draft = match root.get("$schema") {
            None => Draft::D2020,
            Some(Value::String(uri)) => Draft::named(uri).ok_or_else(|| unsupported(uri))?,
            Some(_) => return Err("the schema's \"$schema\" must be a string".into()),
        };
        let mut index = Index {
            draft,
            resources: Vec::new(),
            locations: Pairs::new(),
        };
        index.walk(root, String::new(), &base, None)?;
        Ok(index)
    }

    /// The resource `uri` (without fragment) names.
    pub(super) fn resource(&self, uri: &Uri) -> Option<usize> {
        let uri = uri.without_fragment();
        self.resources.iter().position(|r| r.uri == uri)
    }

    /// The resource a location belongs to: its own when indexed, else the innermost
    /// resource whose root contains it.
    pub(super) fn resource_of(&self, pointer: &str) -> usize {
        if let Some(&r) = self.locations.get(pointer) {
            return r;
        }
        (0..self.resources.len())
            .filter(|&r| inside(pointer, &self.resources[r].root))
            .max_by_key(|&r| self.resources[r].root.len())
            .unwrap_or(0)
    }

    fn walk(
        &mut self,
        schema: &Value,
        at: String,
        base: &Uri,
        resource: Option<usize>,
    ) -> Result<(), String> {
        let Value::Object(map) = schema else {
            let r = resource.unwrap_or_else(|| self.add_resource(base, &at));
            self.locations.insert(at, r);
            return Ok(());
        };
        if let Some(Value::String(uri)) = map.get("$schema")
            && Draft::named(uri) != Some(self.draft)
        {
            return Err(unsupported(uri));
        }
        // Draft 7: `$ref` replaces every sibling, `$id` included (draft-07 core §8.3).
        let only_ref = self.draft == Draft::D7 && map.contains_key("$ref");
        let mut resource = resource;
        let mut base = base.clone();
        let id = map.get("$id").and_then(Value::as_str).filter(|_| !only_ref);
        match id {
            Some(anchor) if self.draft == Draft::D7 && anchor.starts_with('#') => {}
            Some(id) => {
                base = base
                    .join(id)
                    .map_err(|e| format!("the schema's \"$id\" {id:?} at {}: {e}", shown(&at)))?
                    .without_fragment();
                resource = None;
            }
            None => {}
        }
        let r = resource.unwrap_or_else(|| self.add_resource(&base, &at));
        self.locations.insert(at.clone(), r);
        if only_ref {
            return Ok(());
        }
        self.anchors(map, &at, r);
        for (keyword, value) in map {
            for (child, pointer) in subschemas(self.draft, keyword, value, &at) {
                self.walk(child, pointer, &base, Some(r))?;
            }
        }
        Ok(())
    }

    fn add_resource(&mut self, uri: &Uri, root: &str) -> usize {
        self.resources.push(Resource {
            uri: uri.clone(),
            root: root.to_owned(),
            anchors: Pairs::new(),
            dynamic: Vec::new(),
        });
        self.resources.len() - 1
    }

    fn anchors(&mut self, map: &Map<String, Value>, at: &str, r: usize) {
        let resource = &mut self.resources[r];
        let name = |keyword: &str| map.get(keyword).and_then(Value::as_str).map(str::to_owned);
        match self.draft {
            Draft::D2020 => {
                if let Some(anchor) = name("$anchor") {
                    resource.anchors.insert(anchor, at.to_owned());
                }
                if let Some(anchor) = name("$dynamicAnchor") {
                    resource.anchors.insert(anchor.clone(), at.to_owned());
                    resource.dynamic.push(anchor);
                }
            }
            Draft::D7 => {
                if let Some(anchor) =
                    name("$id").and_then(|id| id.strip_prefix('#').map(str::to_owned))
                {
                    resource.anchors.insert(anchor, at.to_owned());
                }
            }
        }
    }
}

/// The subschemas `keyword` holds in `draft`, with their document pointers.
pub(super) fn subschemas<'v>(
    draft: Draft,
    keyword: &str,
    value: &'v Value,
    at: &str,
) -> Vec<(&'v Value, String)> {
    let here = |name: &str| format!("{at}/{}", escape(name));
    let one = || vec![(value, here(keyword))];
    let array = || match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (v, format!("{}/{i}", here(keyword))))
            .collect(),
        _ => Vec::new(),
    };
    let map = || match value {
        Value::Object(map) => map
            .iter()
            .filter(|(_, v)| v.is_object() || v.is_boolean())
            .map(|(k, v)| (v, format!("{}/{}", here(keyword), escape(k))))
            .collect(),
        _ => Vec::new(),
    };
    match (draft, keyword) {
        (
            _,
            "additionalProperties" | "propertyNames" | "contains" | "not" | "if" | "then" | "else",
        ) => one(),
        (_, "allOf" | "anyOf" | "oneOf") => array(),
        (_, "properties" | "patternProperties") => map(),
        (Draft::D2020, "$defs" | "dependentSchemas") => map(),
        (Draft::D2020, "prefixItems") => array(),
        (
            Draft::D2020,
            "items" | "unevaluatedItems" | "unevaluatedProperties" | "contentSchema",
        ) => one(),
        (Draft::D7, "definitions" | "dependencies") => map(),
        (Draft::D7, "items") if value.is_array() => array(),
        (Draft::D7, "items" | "additionalItems") => one(),
        _ => Vec::new(),
    }
}

/// A property name as a JSON Pointer segment (RFC 6901).
pub(super) fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A document pointer as messages show it.
pub(super) fn shown(at: &str) -> &str {
    if at.is_empty() { "(root)" } else { at }
}

fn inside(pointer: &str, root: &str) -> bool {
    pointer == root
        || pointer
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn unsupported(uri: &str) -> String {
    format!(
        "{uri} is not a supported dialect (unknown $schema): schemas are JSON Schema 2020-12 or draft 7"
    )
}
