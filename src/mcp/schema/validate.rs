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
//! contributes none. Every evaluation is counted against a budget (see [`MAX_STEPS`]), and a `$ref` that
//! comes back to the same schema at the same value is a loop: both stop the validation,
//! so no schema and instance can make it run unbounded (basic/index "Composition-Keyword
//! Resource Use").

mod containers;

use super::compile::{Compiled, Keywords, Node};
use super::message::{self, Failure, Path};
use containers::equal;
use serde_json::Value;

/// Most subschema evaluations in one validation.
/// Subschema evaluations one validation may make whatever the instance: a schema's
/// alternatives nested down a value (`anyOf` in `items` in `anyOf`, ...) could otherwise
/// multiply to exponential time.
pub const MAX_STEPS: usize = 100_000;
/// And more for each value of the instance, so a large instance checked by a plain schema
/// (each value evaluated a few times) always fits.
pub const STEPS_PER_VALUE: usize = 20;

/// What a successful evaluation looked at, at its instance location. Lists, not sets:
/// they are only searched by `unevaluated*`, which sorts them first ([`Seen::sort`]).
#[derive(Default)]
pub(super) struct Seen<'v> {
    pub(super) props: Vec<&'v str>,
    pub(super) all_props: bool,
    /// Items `0..items_upto` were evaluated (`prefixItems`).
    pub(super) items_upto: usize,
    pub(super) items: Vec<usize>,
    pub(super) all_items: bool,
}

impl<'v> Seen<'v> {
    fn merge(&mut self, other: Seen<'v>) {
        self.props.extend(other.props);
        self.all_props |= other.all_props;
        self.items_upto = self.items_upto.max(other.items_upto);
        self.items.extend(other.items);
        self.all_items |= other.all_items;
    }

    /// Sorts the lists for the `has_*` searches.
    pub(super) fn sort(&mut self) {
        self.props.sort_unstable();
        self.items.sort_unstable();
    }

    /// Whether property `name` was evaluated (after [`Seen::sort`]).
    pub(super) fn has_prop(&self, name: &str) -> bool {
        self.all_props || self.props.binary_search(&name).is_ok()
    }

    /// Whether item `i` was evaluated (after [`Seen::sort`]).
    pub(super) fn has_item(&self, i: usize) -> bool {
        self.all_items || i < self.items_upto || self.items.binary_search(&i).is_ok()
    }
}

/// Why an evaluation stopped early.
pub(super) enum Stop {
    /// Checking mode: the schema does not match.
    Mismatch,
    /// The validation as a whole ends with this failure (a loop, the step budget).
    Abort(Failure),
}

/// Where failures go: checking mode stops at the first, collecting mode keeps the first
/// in [`Failure::order`].
pub(super) struct Sink {
    pub(super) checking: bool,
    pub(super) first: Option<Failure>,
    pub(super) failures: usize,
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
/// `budget` is the most subschema evaluations it may make.
pub(super) fn validate(schema: &Compiled, instance: &Value, budget: usize) -> Result<(), Failure> {
    let mut run = Run {
        schema,
        scope: Vec::new(),
        refs: Vec::new(),
        steps: 0,
        budget,
    };
    let mut sink = Sink::new(false);
    match run.eval(schema.root, instance, &Path::Root, "", &mut sink) {
        Err(Stop::Abort(failure)) => Err(failure),
        Err(Stop::Mismatch) | Ok(_) => sink.first.map_or(Ok(()), Err),
    }
}

pub(super) struct Run<'s> {
    pub(super) schema: &'s Compiled,
    /// The dynamic scope: the resources entered, outermost first.
    pub(super) scope: Vec<usize>,
    /// The references being followed, with the value each was followed at.
    pub(super) refs: Vec<(usize, *const Value)>,
    pub(super) steps: usize,
    pub(super) budget: usize,
}

impl<'s> Run<'s> {
    pub(super) fn fail(&self, sink: &mut Sink, make: impl FnOnce() -> Failure) -> Result<(), Stop> {
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
    pub(super) fn check<'v>(
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
    pub(super) fn eval<'v>(
        &mut self,
        node: usize,
        v: &'v Value,
        path: &Path,
        via: &'static str,
        sink: &mut Sink,
    ) -> Eval<'v> {
        self.steps += 1;
        if self.steps > self.budget {
            return Err(Stop::Abort(Failure::at(
                &Path::Root,
                "",
                message::budget(self.budget),
            )));
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
}
