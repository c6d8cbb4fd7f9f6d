//! [`Pairs`]: a map kept as a sorted list, written and read as a JSON object exactly as a
//! `BTreeMap` of the same keys and values is; [`SortedSet`], the same for a `BTreeSet`
//! (a JSON array).
//!
//! Every `BTreeMap<K, V>` type the Worker uses instantiates the whole B-tree (insert,
//! remove, split, merge, drop, clone) again, 5 to 10 KB of wasm each; a sorted list needs
//! a binary search and `Vec`'s insert and remove. It is meant for maps that are small, or
//! that are serialized whole on every write anyway (a stored value), where an insert that
//! moves the entries after it costs no more than writing them (docs/architecture.md "What
//! keeps the Worker small").

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;

/// A map as a list of `(key, value)` sorted by key, without duplicate keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pairs<K, V>(Vec<(K, V)>);

impl<K, V> Default for Pairs<K, V> {
    fn default() -> Self {
        Pairs(Vec::new())
    }
}

impl<K: Ord, V> Pairs<K, V> {
    pub fn new() -> Self {
        Self::default()
    }

    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.0.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|at| &self.0[at].1)
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`; the value it replaces, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(at) => Some(std::mem::replace(&mut self.0[at].1, value)),
            Err(at) => {
                self.0.insert(at, (key, value));
                None
            }
        }
    }

    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let at = self.find(key).ok()?;
        Some(self.0.remove(at).1)
    }

    /// Keeps the entries for which `keep` is true (in order).
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &V) -> bool) {
        self.0.retain(|(k, v)| keep(k, v));
    }
}

impl<K, V> Pairs<K, V> {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }

    /// The entries in key order, owned.
    pub fn into_vec(self) -> Vec<(K, V)> {
        self.0
    }
}

/// The value of `key`, which must be there (as a `BTreeMap` is indexed).
impl<K: Ord + Borrow<Q>, Q: Ord + ?Sized, V> std::ops::Index<&Q> for Pairs<K, V> {
    type Output = V;

    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("no entry found for key")
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for Pairs<K, V> {
    /// As a `BTreeMap` collects: a later duplicate key replaces the value.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let mut pairs = Pairs::new();
        for (k, v) in entries {
            pairs.insert(k, v);
        }
        pairs
    }
}

impl<K: Serialize, V: Serialize> Serialize for Pairs<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for Pairs<K, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(PairsVisitor(PhantomData))
    }
}

struct PairsVisitor<K, V>(PhantomData<(K, V)>);

impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for PairsVisitor<K, V> {
    type Value = Pairs<K, V>;

    /// serde's words for a `BTreeMap`, so that errors read the same.
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut pairs = Pairs::new();
        while let Some((k, v)) = access.next_entry()? {
            pairs.insert(k, v);
        }
        Ok(pairs)
    }
}

/// A set as a sorted list without duplicates, written and read as a `BTreeSet` is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortedSet<T>(Vec<T>);

impl<T> Default for SortedSet<T> {
    fn default() -> Self {
        SortedSet(Vec::new())
    }
}

impl<T: Ord> SortedSet<T> {
    pub fn new() -> Self {
        Self::default()
    }

    fn find<Q: Ord + ?Sized>(&self, value: &Q) -> Result<usize, usize>
    where
        T: Borrow<Q>,
    {
        self.0.binary_search_by(|v| v.borrow().cmp(value))
    }

    pub fn contains<Q: Ord + ?Sized>(&self, value: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.find(value).is_ok()
    }

    /// Adds `value`; whether it was new.
    pub fn insert(&mut self, value: T) -> bool {
        let Err(at) = self.find(&value) else {
            return false;
        };
        self.0.insert(at, value);
        true
    }

    /// Removes `value`; whether it was there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, value: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        let Ok(at) = self.find(value) else {
            return false;
        };
        self.0.remove(at);
        true
    }
}

impl<T> SortedSet<T> {
    /// Removes and returns the least value.
    pub fn pop_first(&mut self) -> Option<T> {
        (!self.0.is_empty()).then(|| self.0.remove(0))
    }

    /// Keeps the values `keep` accepts (the rest stay sorted).
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.0.retain(keep);
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The values in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// The values in order, as a slice (to take them in batches).
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }
}

impl<'a, T> IntoIterator for &'a SortedSet<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T: Ord> Extend<T> for SortedSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for item in items {
            self.insert(item);
        }
    }
}

impl<T: Ord> FromIterator<T> for SortedSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(values: I) -> Self {
        let mut set = SortedSet::new();
        set.extend(values);
        set
    }
}

impl<T: Serialize> Serialize for SortedSet<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for v in &self.0 {
            seq.serialize_element(v)?;
        }
        seq.end()
    }
}

impl<'de, T: Ord + Deserialize<'de>> Deserialize<'de> for SortedSet<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(SetVisitor(PhantomData))
    }
}

struct SetVisitor<T>(PhantomData<T>);

impl<'de, T: Ord + Deserialize<'de>> Visitor<'de> for SetVisitor<T> {
    type Value = SortedSet<T>;

    /// serde's words for a `BTreeSet`.
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut set = SortedSet::new();
        while let Some(v) = access.next_element()? {
            set.insert(v);
        }
        Ok(set)
    }
}
