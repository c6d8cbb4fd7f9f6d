//! The keywords of strings, arrays and objects: their assertions, their applicators to
//! items and properties, and `unevaluatedItems`/`unevaluatedProperties`, which read what
//! every other keyword of the same schema evaluated.

use super::super::compile::{Keywords, Node};
use super::super::message::{self, Failure, Path};
use super::{Run, Seen, Sink, Stop};
use serde_json::{Map, Value};

/// What a count below its minimum or above its maximum says.
type Says = fn(u64) -> message::What;

/// `minLength`/`maxLength`, `minItems`/`maxItems`, `minProperties`/`maxProperties`: what
/// is wrong with a count `n`, if anything.
fn count(
    n: u64,
    (min, max): (Option<u64>, Option<u64>),
    (few, many): (Says, Says),
) -> Option<message::What> {
    match (min.filter(|&min| n < min), max.filter(|&max| n > max)) {
        (Some(min), _) => Some(few(min)),
        (None, Some(max)) => Some(many(max)),
        (None, None) => None,
    }
}

impl Run<'_> {
    pub(super) fn string(
        &mut self,
        k: &Keywords,
        s: &str,
        path: &Path,
        sink: &mut Sink,
    ) -> Result<(), Stop> {
        let at = &k.at;
        if k.min_length.is_some() || k.max_length.is_some() {
            let chars = s.chars().count() as u64;
            if let Some(what) = count(
                chars,
                (k.min_length, k.max_length),
                (message::too_short, message::too_long),
            ) {
                self.fail(sink, || Failure::at(path, at, what))?;
            }
        }
        if let Some(pattern) = &k.pattern
            && !pattern.is_match(s)
        {
            self.fail(sink, || {
                Failure::at(path, at, message::no_match(s, pattern.as_str()))
            })?;
        }
        if let Some(format) = &k.format
            && !super::super::pattern::format_ok(format, s)
        {
            self.fail(sink, || {
                Failure::at(path, at, message::bad_format(s, format))
            })?;
        }
        Ok(())
    }

    pub(super) fn array<'v>(
        &mut self,
        k: &Keywords,
        items: &'v [Value],
        path: &Path,
        sink: &mut Sink,
        seen: &mut Seen<'v>,
    ) -> Result<(), Stop> {
        let at = &k.at;
        let len = items.len() as u64;
        if let Some(what) = count(
            len,
            (k.min_items, k.max_items),
            (message::few_items, message::many_items),
        ) {
            self.fail(sink, || Failure::at(path, at, what))?;
        }
        if k.unique_items
            && let Some((i, j)) = first_duplicate(items)
        {
            self.fail(sink, || Failure::at(path, at, message::equal_items(i, j)))?;
        }
        for (i, (&sub, item)) in k.prefix_items.iter().zip(items).enumerate() {
            self.eval(sub, item, &Path::Item(path, i), "prefixItems", sink)?;
        }
        seen.items_upto = seen.items_upto.max(k.prefix_items.len().min(items.len()));
        if let Some(sub) = k.items {
            for (i, item) in items.iter().enumerate().skip(k.prefix_items.len()) {
                self.eval(sub, item, &Path::Item(path, i), "items", sink)?;
            }
            seen.all_items = true;
        }
        if let Some(sub) = k.contains {
            let mut matched = 0u64;
            for (i, item) in items.iter().enumerate() {
                if self.check(sub, item, &Path::Item(path, i))?.is_some() {
                    matched += 1;
                    seen.items.push(i);
                }
            }
            let min = k.min_contains.unwrap_or(1);
            if matched < min {
                self.fail(sink, || {
                    Failure::at(
                        path,
                        at,
                        message::few_contained(matched, min, k.min_contains.is_some()),
                    )
                })?;
            }
            if let Some(max) = k.max_contains.filter(|&max| matched > max) {
                self.fail(sink, || {
                    Failure::at(path, at, message::many_contained(matched, max))
                })?;
            }
        }
        Ok(())
    }

    pub(super) fn object<'v>(
        &mut self,
        k: &Keywords,
        map: &'v Map<String, Value>,
        path: &Path,
        sink: &mut Sink,
        seen: &mut Seen<'v>,
    ) -> Result<(), Stop> {
        let at = &k.at;
        let len = map.len() as u64;
        if let Some(what) = count(
            len,
            (k.min_properties, k.max_properties),
            (message::few_properties, message::many_properties),
        ) {
            self.fail(sink, || Failure::at(path, at, what))?;
        }
        let missing: Vec<&str> = k
            .required
            .iter()
            .filter(|n| !map.contains_key(*n))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            self.fail(sink, || Failure::at(path, at, message::missing(&missing)))?;
        }
        for (name, needs) in &k.dependent_required {
            let missing: Vec<&str> = needs
                .iter()
                .filter(|n| !map.contains_key(*n))
                .map(String::as_str)
                .collect();
            if map.contains_key(name) && !missing.is_empty() {
                self.fail(sink, || {
                    Failure::at(path, at, message::dependency(name, &missing))
                })?;
            }
        }
        let mut extra = Vec::new();
        for (name, value) in map {
            let at_name = Path::Prop(path, name);
            let mut matched = false;
            if let Some((_, sub)) = k.properties.iter().find(|(p, _)| p == name) {
                self.eval(*sub, value, &at_name, "properties", sink)?;
                matched = true;
            }
            for (pattern, sub) in &k.pattern_properties {
                if pattern.is_match(name) {
                    self.eval(*sub, value, &at_name, "patternProperties", sink)?;
                    matched = true;
                }
            }
            if matched {
                seen.props.push(name);
            } else if let Some(sub) = k.additional_properties {
                if matches!(self.schema.nodes[sub], Node::Bool(false)) {
                    extra.push(name.as_str());
                } else {
                    self.eval(sub, value, &at_name, "additionalProperties", sink)?;
                }
            }
            if let Some(names) = k.property_names
                && self
                    .check(names, &Value::String(name.clone()), path)?
                    .is_none()
            {
                self.fail(sink, || Failure::at(path, at, message::bad_name(name)))?;
            }
        }
        if !extra.is_empty() {
            self.fail(sink, || Failure::at(path, at, message::unexpected(&extra)))?;
        }
        if k.additional_properties.is_some() {
            seen.all_props = true;
        }
        Ok(())
    }

    pub(super) fn unevaluated_items<'v>(
        &mut self,
        k: &Keywords,
        items: &'v [Value],
        path: &Path,
        sink: &mut Sink,
        seen: &mut Seen<'v>,
    ) -> Result<(), Stop> {
        let Some(sub) = k.unevaluated_items else {
            return Ok(());
        };
        seen.sort();
        for (i, item) in items.iter().enumerate() {
            if !seen.has_item(i) {
                self.eval(sub, item, &Path::Item(path, i), "unevaluatedItems", sink)?;
            }
        }
        seen.all_items = true;
        Ok(())
    }

    pub(super) fn unevaluated_properties<'v>(
        &mut self,
        k: &Keywords,
        map: &'v Map<String, Value>,
        path: &Path,
        sink: &mut Sink,
        seen: &mut Seen<'v>,
    ) -> Result<(), Stop> {
        let Some(sub) = k.unevaluated_properties else {
            return Ok(());
        };
        seen.sort();
        for (name, value) in map {
            if !seen.has_prop(name) {
                self.eval(
                    sub,
                    value,
                    &Path::Prop(path, name),
                    "unevaluatedProperties",
                    sink,
                )?;
            }
        }
        seen.all_props = true;
        Ok(())
    }
}

/// The first pair of equal items, `(i, j)` with `i < j` and `j` as small as it can be.
fn first_duplicate(items: &[Value]) -> Option<(usize, usize)> {
    (1..items.len()).find_map(|j| {
        (0..j)
            .find(|&i| equal(&items[i], &items[j]))
            .map(|i| (i, j))
    })
}

/// JSON equality: numbers by value (`1` equals `1.0`), objects regardless of order.
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => super::super::number::same(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| equal(a, b)))
        }
        _ => a == b,
    }
}
