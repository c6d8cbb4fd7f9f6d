//! Evaluating an instance against a compiled schema (Core 2020-12 §7, Validation 2020-12).
//!
//! A schema is evaluated in one of two modes. *Collecting* (the instance as a whole, and
//! the in-place applicators under it: `$ref`, `allOf`, `properties`, ...) keeps the first
//! failure in a fixed order, so the message names the keyword that refused the value.
//! *Checking* (the alternatives of `anyOf`/`oneOf`, `not`, `if`, `contains`,
//! `propertyNames`) stops at the first failure: only whether it matched counts.
//!
//! Each successful evaluation returns the properties and items it evaluated (annotations,
//! Core §7.7), which `unevaluatedProperties`/`unevaluatedItems` read; a failed subschema
//! contributes none. Every evaluation is counted against [`MAX_STEPS`], and a `$ref` that
//! comes back to the same schema at the same value is a loop: both stop the validation,
//! so no schema and instance can make it run unbounded (basic/index "Composition-Keyword
//! Resource Use").

use super::compile::{Compiled, Keywords, Node};
use super::message::{self, Failure, Path};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Most subschema evaluations in one validation.
pub const MAX_STEPS: usize = 100_000;

/// What a successful evaluation looked at, at its instance location.
#[derive(Default)]
struct Seen<'v> {
    props: BTreeSet<&'v str>,
    all_props: bool,
    /// Items `0..items_upto` were evaluated (`prefixItems`).
    items_upto: usize,
    items: BTreeSet<usize>,
    all_items: bool,
}

impl<'v> Seen<'v> {
    fn merge(&mut self, other: Seen<'v>) {
        self.props.extend(other.props);
        self.all_props |= other.all_props;
        self.items_upto = self.items_upto.max(other.items_upto);
        self.items.extend(other.items);
        self.all_items |= other.all_items;
    }

    fn has_prop(&self, name: &str) -> bool {
        self.all_props || self.props.contains(name)
    }

    fn has_item(&self, i: usize) -> bool {
        self.all_items || i < self.items_upto || self.items.contains(&i)
    }
}

/// Why an evaluation stopped early.
enum Stop {
    /// Checking mode: the schema does not match.
    Mismatch,
    /// The validation as a whole ends with this failure (a loop, the step budget).
    Abort(Failure),
}

/// Where failures go: checking mode stops at the first, collecting mode keeps the first
/// in [`Failure::order`].
struct Sink {
    checking: bool,
    first: Option<Failure>,
    failures: usize,
}

impl Sink {
    fn new(checking: bool) -> Sink {
        Sink {
            checking,
            first: None,
            failures: 0,
        }
    }
}

type Eval<'v> = Result<Seen<'v>, Stop>;

/// Validates `instance`; `Err` is the failure to describe.
pub(super) fn validate(schema: &Compiled, instance: &Value) -> Result<(), Failure> {
    let mut run = Run {
        schema,
        scope: Vec::new(),
        refs: Vec::new(),
        steps: 0,
    };
    let mut sink = Sink::new(false);
    match run.eval(schema.root, instance, &Path::Root, "", &mut sink) {
        Err(Stop::Abort(failure)) => Err(failure),
        Err(Stop::Mismatch) | Ok(_) => sink.first.map_or(Ok(()), Err),
    }
}

struct Run<'s> {
    schema: &'s Compiled,
    /// The dynamic scope: the resources entered, outermost first.
    scope: Vec<usize>,
    /// The references being followed, with the value each was followed at.
    refs: Vec<(usize, *const Value)>,
    steps: usize,
}

impl<'s> Run<'s> {
    fn fail(&self, sink: &mut Sink, make: impl FnOnce() -> Failure) -> Result<(), Stop> {
        if sink.checking {
            return Err(Stop::Mismatch);
        }
        sink.failures += 1;
        let failure = make();
        if sink.first.as_ref().is_none_or(|f| failure.order(f).is_lt()) {
            sink.first = Some(failure);
        }
        Ok(())
    }

    /// Whether `node` matches `v`, with what it saw when it does.
    fn check<'v>(
        &mut self,
        node: usize,
        v: &'v Value,
        path: &Path,
    ) -> Result<Option<Seen<'v>>, Stop> {
        let mut sink = Sink::new(true);
        match self.eval(node, v, path, "", &mut sink) {
            Ok(seen) => Ok(Some(seen)),
            Err(Stop::Mismatch) => Ok(None),
            Err(abort) => Err(abort),
        }
    }

    /// Evaluates `node` at `v` in `sink`'s mode, merging what it saw into `seen` when it
    /// matched.
    fn apply<'v>(
        &mut self,
        node: usize,
        v: &'v Value,
        path: &Path,
        via: &'static str,
        sink: &mut Sink,
        seen: &mut Seen<'v>,
    ) -> Result<(), Stop> {
        let failures = sink.failures;
        let inner = self.eval(node, v, path, via, sink)?;
        if sink.failures == failures {
            seen.merge(inner);
        }
        Ok(())
    }

    /// Evaluates `node` at `v`; `via` is the keyword that applied it (for a `false`).
    fn eval<'v>(
        &mut self,
        node: usize,
        v: &'v Value,
        path: &Path,
        via: &'static str,
        sink: &mut Sink,
    ) -> Eval<'v> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(Stop::Abort(Failure::at(path, "", message::budget())));
        }
        let k = match &self.schema.nodes[node] {
            Node::Bool(true) => return Ok(Seen::default()),
            Node::Bool(false) => {
                self.fail(sink, || Failure::at(path, "", message::false_schema(via)))?;
                return Ok(Seen::default());
            }
            Node::Keywords(k) => &**k,
        };
        let entered = self.scope.last() != Some(&k.resource);
        if entered {
            self.scope.push(k.resource);
        }
        let result = self.keywords(k, v, path, sink);
        if entered {
            self.scope.pop();
        }
        result
    }

    fn keywords<'v>(
        &mut self,
        k: &'s Keywords,
        v: &'v Value,
        path: &Path,
        sink: &mut Sink,
    ) -> Eval<'v> {
        let mut seen = Seen::default();
        if let Some(target) = k.reference {
            self.follow(target, v, path, sink, &mut seen)?;
        }
        if let Some(dynamic) = &k.dynamic_ref {
            let target = dynamic
                .anchor
                .as_ref()
                .and_then(|name| {
                    let anchors = &self.schema.dynamic_anchors;
                    self.scope
                        .iter()
                        .find_map(|&r| anchors[r].get(name).copied())
                })
                .unwrap_or(dynamic.target);
            self.follow(target, v, path, sink, &mut seen)?;
        }
        let at = &k.at;
        if k.types != 0 && !message::has_type(k.types, v) {
            self.fail(sink, || {
                Failure::at(path, at, message::wrong_type(k.types, v))
            })?;
        }
        if let Some(values) = &k.enumeration
            && !values.iter().any(|e| equal(e, v))
        {
            self.fail(sink, || {
                Failure::at(path, at, message::not_in_enum(v, values))
            })?;
        }
        if let Some(c) = &k.constant
            && !equal(c, v)
        {
            self.fail(sink, || Failure::at(path, at, message::not_const(c)))?;
        }
        match v {
            Value::Number(n) => {
                for (problem, keyword) in super::number::problems(k, n) {
                    self.fail(sink, || Failure::at(path, at, (problem, keyword)))?;
                }
            }
            Value::String(s) => self.string(k, s, path, sink)?,
            Value::Array(items) => self.array(k, items, path, sink, &mut seen)?,
            Value::Object(map) => self.object(k, map, path, sink, &mut seen)?,
            _ => {}
        }
        for &sub in &k.all_of {
            self.apply(sub, v, path, "allOf", sink, &mut seen)?;
        }
        if let Value::Object(map) = v {
            for (name, sub) in &k.dependent_schemas {
                if map.contains_key(name) {
                    self.apply(*sub, v, path, "dependentSchemas", sink, &mut seen)?;
                }
            }
        }
        self.alternatives(k, v, path, sink, &mut seen)?;
        if let Some(condition) = k.if_ {
            match self.check(condition, v, path)? {
                Some(matched) => {
                    seen.merge(matched);
                    if let Some(then) = k.then {
                        self.apply(then, v, path, "then", sink, &mut seen)?;
                    }
                }
                None => {
                    if let Some(otherwise) = k.else_ {
                        self.apply(otherwise, v, path, "else", sink, &mut seen)?;
                    }
                }
            }
        }
        // Last: they read what every other keyword here evaluated (Core §11.2, §11.3).
        match v {
            Value::Array(items) => self.unevaluated_items(k, items, path, sink, &mut seen)?,
            Value::Object(map) => self.unevaluated_properties(k, map, path, sink, &mut seen)?,
            _ => {}
        }
        Ok(seen)
    }

    /// `$ref` and `$dynamicRef`: in place, refusing a loop back to the same value.
    fn follow<'v>(
        &mut self,
        target: usize,
        v: &'v Value,
        path: &Path,
        sink: &mut Sink,
        seen: &mut Seen<'v>,
    ) -> Result<(), Stop> {
        let key = (target, v as *const Value);
        if self.refs.contains(&key) {
            return Err(Stop::Abort(Failure::at(path, "", message::ref_loop())));
        }
        self.refs.push(key);
        let result = self.apply(target, v, path, "$ref", sink, seen);
        self.refs.pop();
        result
    }

    fn alternatives<'v>(
        &mut self,
        k: &Keywords,
        v: &'v Value,
        path: &Path,
        sink: &mut Sink,
        seen: &mut Seen<'v>,
    ) -> Result<(), Stop> {
        let at = &k.at;
        if !k.any_of.is_empty() {
            let mut any = false;
            for &sub in &k.any_of {
                if let Some(matched) = self.check(sub, v, path)? {
                    seen.merge(matched);
                    any = true;
                }
            }
            if !any {
                self.fail(sink, || {
                    Failure::at(path, at, message::no_alternative("anyOf"))
                })?;
            }
        }
        if !k.one_of.is_empty() {
            let mut first = None;
            for (i, &sub) in k.one_of.iter().enumerate() {
                let Some(matched) = self.check(sub, v, path)? else {
                    continue;
                };
                match first {
                    None => {
                        first = Some(i);
                        seen.merge(matched);
                    }
                    Some(j) => {
                        return self.fail(sink, || {
                            Failure::at(path, at, message::two_alternatives(j, i))
                        });
                    }
                }
            }
            if first.is_none() {
                self.fail(sink, || {
                    Failure::at(path, at, message::no_alternative("oneOf"))
                })?;
            }
        }
        if let Some(not) = k.not
            && self.check(not, v, path)?.is_some()
        {
            self.fail(sink, || Failure::at(path, at, message::matches_not()))?;
        }
        Ok(())
    }

    fn string(&mut self, k: &Keywords, s: &str, path: &Path, sink: &mut Sink) -> Result<(), Stop> {
        let at = &k.at;
        if k.min_length.is_some() || k.max_length.is_some() {
            let chars = s.chars().count() as u64;
            if let Some(min) = k.min_length.filter(|&min| chars < min) {
                self.fail(sink, || Failure::at(path, at, message::too_short(min)))?;
            }
            if let Some(max) = k.max_length.filter(|&max| chars > max) {
                self.fail(sink, || Failure::at(path, at, message::too_long(max)))?;
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
            && !super::pattern::format_ok(format, s)
        {
            self.fail(sink, || {
                Failure::at(path, at, message::bad_format(s, format))
            })?;
        }
        Ok(())
    }

    fn array<'v>(
        &mut self,
        k: &Keywords,
        items: &'v [Value],
        path: &Path,
        sink: &mut Sink,
        seen: &mut Seen<'v>,
    ) -> Result<(), Stop> {
        let at = &k.at;
        let len = items.len() as u64;
        if let Some(min) = k.min_items.filter(|&min| len < min) {
            self.fail(sink, || Failure::at(path, at, message::few_items(min)))?;
        }
        if let Some(max) = k.max_items.filter(|&max| len > max) {
            self.fail(sink, || Failure::at(path, at, message::many_items(max)))?;
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
                    seen.items.insert(i);
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

    fn object<'v>(
        &mut self,
        k: &Keywords,
        map: &'v Map<String, Value>,
        path: &Path,
        sink: &mut Sink,
        seen: &mut Seen<'v>,
    ) -> Result<(), Stop> {
        let at = &k.at;
        let len = map.len() as u64;
        if let Some(min) = k.min_properties.filter(|&min| len < min) {
            self.fail(sink, || Failure::at(path, at, message::few_properties(min)))?;
        }
        if let Some(max) = k.max_properties.filter(|&max| len > max) {
            self.fail(sink, || {
                Failure::at(path, at, message::many_properties(max))
            })?;
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
                seen.props.insert(name);
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

    fn unevaluated_items<'v>(
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
        for (i, item) in items.iter().enumerate() {
            if !seen.has_item(i) {
                self.eval(sub, item, &Path::Item(path, i), "unevaluatedItems", sink)?;
            }
        }
        seen.all_items = true;
        Ok(())
    }

    fn unevaluated_properties<'v>(
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
        (Value::Number(x), Value::Number(y)) => super::number::same(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| equal(a, b)))
        }
        _ => a == b,
    }
}
