//! URI templates (RFC 6570 level 1: `{var}` expands to one path segment or more text
//! without `/`), enough for resource templates such as `file:///logs/{date}.txt`.

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct UriTemplate {
    text: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    Var(String),
}

impl UriTemplate {
    pub fn parse(text: &str) -> Result<UriTemplate, String> {
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let close = rest[open..].find('}').ok_or("an unclosed {")? + open;
            let name = &rest[open + 1..close];
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return Err(format!(
                    "bad variable {{{name}}} (only simple {{name}} variables are supported)"
                ));
            }
            if matches!(parts.last(), Some(Part::Var(_))) {
                return Err("two variables need a literal between them".into());
            }
            parts.push(Part::Var(name.to_owned()));
            rest = &rest[close + 1..];
        }
        if rest.contains('}') {
            return Err("a } without {".into());
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate {
            text: text.to_owned(),
            parts,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var(v) => Some(v.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables if `uri` matches; each is non-empty and contains no `/`.
    pub fn matches(&self, uri: &str) -> Option<Map<String, Value>> {
        let mut vars = Map::new();
        let mut rest = uri;
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(l) => rest = rest.strip_prefix(l.as_str())?,
                Part::Var(name) => {
                    let end = match self.parts.get(i + 1) {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let value = &rest[..end];
                    if value.is_empty() || value.contains('/') {
                        return None;
                    }
                    vars.insert(name.clone(), value.into());
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(vars)
    }
}

impl UriTemplate {
    /// A template that matches nothing (what a malformed one becomes).
    pub(crate) fn never(text: &str) -> UriTemplate {
        UriTemplate {
            text: text.to_owned(),
            parts: vec![Part::Var(String::new()), Part::Literal("\u{0}never".into())],
        }
    }
}
