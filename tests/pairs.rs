//! `pairs::Pairs` and `pairs::SortedSet` are written and read exactly as the `BTreeMap`
//! and `BTreeSet` they replace in stored values (the task layout's parts, the quota
//! ledger, a session's subscriptions, a resource's subscribers): same bytes, same order,
//! same errors.

use mcp_tasks_edge::pairs::{Pairs, SortedSet};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

fn both<K: Ord + Clone, V: Clone>(entries: &[(K, V)]) -> (Pairs<K, V>, BTreeMap<K, V>) {
    let pairs: Pairs<K, V> = entries.iter().cloned().collect();
    let mut map = BTreeMap::new();
    map.extend(entries.iter().cloned());
    (pairs, map)
}

#[test]
fn writes_the_bytes_a_btree_map_writes() {
    // Integer keys in numeric order (2 before 10), whatever the insertion order.
    let (pairs, map) = both(&[(10u32, json!({"a": 1})), (2, json!(null)), (0, json!([]))]);
    let text = serde_json::to_string(&pairs).unwrap();
    assert_eq!(text, serde_json::to_string(&map).unwrap());
    assert_eq!(text, r#"{"0":[],"2":null,"10":{"a":1}}"#);
    let (pairs, map) = both(&[("b".to_string(), 5u64), ("a".into(), u64::MAX)]);
    assert_eq!(
        serde_json::to_string(&pairs).unwrap(),
        serde_json::to_string(&map).unwrap()
    );
    let (pairs, map) = both::<String, (u64, u64)>(&[]);
    assert_eq!(serde_json::to_string(&pairs).unwrap(), "{}");
    assert_eq!(serde_json::to_value(&map).unwrap(), json!({}));
}

#[test]
fn reads_what_a_btree_map_reads() {
    let text = r#"{"10":7,"2":3,"0":1}"#;
    let pairs: Pairs<u32, u32> = serde_json::from_str(text).unwrap();
    let map: BTreeMap<u32, u32> = serde_json::from_str(text).unwrap();
    assert_eq!(
        pairs.iter().collect::<Vec<_>>(),
        map.iter().collect::<Vec<_>>()
    );
    // Read through a parsed value too (how stored values are read: `jsonrpc::read`).
    let value: Value = serde_json::from_str(text).unwrap();
    let pairs: Pairs<u32, u32> = serde_json::from_value(value).unwrap();
    assert_eq!(pairs.keys().copied().collect::<Vec<_>>(), [0, 2, 10]);
    // A repeated key: the last value, as a map keeps it.
    let pairs: Pairs<String, u64> = serde_json::from_str(r#"{"a":1,"a":2}"#).unwrap();
    assert_eq!((pairs.len(), pairs.get("a")), (1, Some(&2)));
}

/// Every way a stored map can be wrong gives the error a `BTreeMap` gives.
#[test]
fn refuses_with_the_errors_of_a_btree_map() {
    for text in [
        r#"[1,2]"#,
        r#""x""#,
        r#"{"a":"1"}"#,
        r#"{"a":4294967296}"#,
        r#"{"a":-1}"#,
        r#"{"x":1}"#,
        r#"{"1":[1]}"#,
    ] {
        let pairs = serde_json::from_str::<Pairs<u32, u32>>(text).map(|_| ());
        let map = serde_json::from_str::<BTreeMap<u32, u32>>(text).map(|_| ());
        assert_eq!(
            pairs.unwrap_err().to_string(),
            map.unwrap_err().to_string(),
            "{text}"
        );
        let value: Value = serde_json::from_str(text).unwrap();
        let pairs = serde_json::from_value::<Pairs<String, (u64, u64)>>(value.clone());
        let map = serde_json::from_value::<BTreeMap<String, (u64, u64)>>(value);
        assert_eq!(
            pairs.map(|_| ()).unwrap_err().to_string(),
            map.map(|_| ()).unwrap_err().to_string(),
            "{text}"
        );
    }
}

#[test]
fn behaves_as_a_map() {
    let mut pairs = Pairs::new();
    assert_eq!(pairs.insert("b".to_string(), 2), None);
    assert_eq!(pairs.insert("a".to_string(), 1), None);
    assert_eq!(pairs.insert("b".to_string(), 3), Some(2));
    assert_eq!(
        pairs.iter().collect::<Vec<_>>(),
        [(&"a".to_string(), &1), (&"b".to_string(), &3)]
    );
    assert!(pairs.contains_key("a") && !pairs.contains_key("c"));
    assert_eq!(pairs.remove("a"), Some(1));
    assert_eq!(pairs.remove("a"), None);
    pairs.insert("c".into(), 9);
    pairs.retain(|_, v| *v > 5);
    assert_eq!(pairs.into_vec(), [("c".to_string(), 9)]);
}

#[test]
fn a_sorted_set_is_written_and_read_as_a_btree_set() {
    let names = ["b", "a", "c", "a"].map(String::from);
    let set: SortedSet<String> = names.iter().cloned().collect();
    let tree: BTreeSet<String> = names.iter().cloned().collect();
    let text = serde_json::to_string(&set).unwrap();
    assert_eq!(text, serde_json::to_string(&tree).unwrap());
    assert_eq!(text, r#"["a","b","c"]"#);
    // Read unsorted and with duplicates, as a BTreeSet reads it.
    let read: SortedSet<String> = serde_json::from_str(r#"["c","a","c"]"#).unwrap();
    assert_eq!(read.iter().collect::<Vec<_>>(), ["a", "c"]);
    for text in [r#"{"a":1}"#, r#""a""#, r#"["a",1]"#, "null"] {
        let set = serde_json::from_str::<SortedSet<String>>(text).map(|_| ());
        let tree = serde_json::from_str::<BTreeSet<String>>(text).map(|_| ());
        assert_eq!(
            set.unwrap_err().to_string(),
            tree.unwrap_err().to_string(),
            "{text}"
        );
    }
}

#[test]
fn a_sorted_set_behaves_as_a_set() {
    let mut set = SortedSet::new();
    assert!(set.insert("b".to_string()) && set.insert("a".to_string()));
    assert!(!set.insert("a".to_string()));
    assert!(set.contains("a") && !set.contains("c"));
    assert_eq!((&set).into_iter().collect::<Vec<_>>(), ["a", "b"]);
    assert!(set.remove("a") && !set.remove("a"));
    assert_eq!(set.len(), 1);
}

#[test]
fn a_sorted_set_pops_its_least_value_and_keeps_what_retain_accepts() {
    let mut set: SortedSet<u32> = [5, 1, 3, 9, 7].into_iter().collect();
    assert_eq!(set.pop_first(), Some(1));
    set.retain(|v| *v != 7);
    assert_eq!(set.iter().copied().collect::<Vec<_>>(), [3, 5, 9]);
    assert!(set.insert(4));
    assert_eq!(set.pop_first(), Some(3));
    assert_eq!(set.iter().copied().collect::<Vec<_>>(), [4, 5, 9]);
    let mut empty: SortedSet<u32> = SortedSet::new();
    assert_eq!(empty.pop_first(), None);
}
