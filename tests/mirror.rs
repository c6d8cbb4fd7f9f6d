//! An object's mirror of one storage key (`objects::mirror`): what it answers without
//! reading, and that it never answers what storage no longer holds.

use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::objects::Write;
use mcp_tasks_edge::objects::mirror::Mirror;
use std::cell::Cell;

const KEY: &str = "hot";

fn put(key: &str, value: &str) -> Write {
    Write {
        put: vec![(key.to_owned(), value.to_owned())],
        ..Write::default()
    }
}

/// `mirror`'s value, storage answering `stored`, counting the reads in `reads`.
fn get(mirror: &Mirror, stored: Option<&str>, reads: &Cell<u32>) -> Option<String> {
    let read = async {
        reads.set(reads.get() + 1);
        Ok::<_, ()>(stored.map(str::to_owned))
    };
    block_on(mirror.get(read)).unwrap()
}

fn write(mirror: &Mirror, write: Write, fails: bool) -> Result<(), &'static str> {
    block_on(mirror.write(write, |_| async move {
        match fails {
            true => Err("storage failed"),
            false => Ok(()),
        }
    }))
}

#[test]
fn a_key_is_read_once_then_answered_from_the_mirror() {
    let (mirror, reads) = (Mirror::new(KEY), Cell::new(0));
    assert_eq!(get(&mirror, Some("v1"), &reads), Some("v1".into()));
    assert_eq!(
        get(&mirror, Some("changed behind"), &reads),
        Some("v1".into())
    );
    assert_eq!(reads.get(), 1);
    // An absent key is known absent too.
    let (absent, reads) = (Mirror::new(KEY), Cell::new(0));
    assert_eq!(get(&absent, None, &reads), None);
    assert_eq!(get(&absent, Some("x"), &reads), None);
    assert_eq!(reads.get(), 1);
}

#[test]
fn a_write_is_followed_as_it_is_issued() {
    let (mirror, reads) = (Mirror::new(KEY), Cell::new(0));
    write(&mirror, put(KEY, "v2"), false).unwrap();
    assert_eq!(get(&mirror, Some("stale"), &reads), Some("v2".into()));
    assert_eq!(reads.get(), 0);
    // Another key's write leaves the mirrored one as it was.
    write(&mirror, put("other", "x"), false).unwrap();
    assert_eq!(get(&mirror, Some("stale"), &reads), Some("v2".into()));
    // The last put of the key in one write is the one stored.
    let twice = Write {
        put: vec![(KEY.into(), "a".into()), (KEY.into(), "b".into())],
        ..Write::default()
    };
    write(&mirror, twice, false).unwrap();
    assert_eq!(get(&mirror, Some("stale"), &reads), Some("b".into()));
    assert_eq!(reads.get(), 0);
}

#[test]
fn a_deleted_or_erased_key_is_absent_without_a_read() {
    let (mirror, reads) = (Mirror::new(KEY), Cell::new(0));
    assert_eq!(get(&mirror, Some("v1"), &reads), Some("v1".into()));
    let delete = Write {
        delete: vec![KEY.into()],
        ..Write::default()
    };
    write(&mirror, delete, false).unwrap();
    assert_eq!(get(&mirror, Some("v1"), &reads), None);
    write(&mirror, put(KEY, "v3"), false).unwrap();
    write(&mirror, Write::erase(), false).unwrap();
    assert_eq!(get(&mirror, Some("v3"), &reads), None);
    assert_eq!(reads.get(), 1);
}

#[test]
fn a_failed_write_forgets_what_storage_holds() {
    let (mirror, reads) = (Mirror::new(KEY), Cell::new(0));
    assert_eq!(get(&mirror, Some("v1"), &reads), Some("v1".into()));
    assert_eq!(write(&mirror, put(KEY, "v2"), true), Err("storage failed"));
    assert_eq!(get(&mirror, Some("v1"), &reads), Some("v1".into()));
    assert_eq!(reads.get(), 2);
}

#[test]
fn a_write_issued_during_a_read_is_newer_than_the_read() {
    let mirror = Mirror::new(KEY);
    let read = async {
        // The read's answer left storage before this write was issued.
        write(&mirror, put(KEY, "newer"), false).unwrap();
        Ok::<_, ()>(Some("older".to_owned()))
    };
    assert_eq!(block_on(mirror.get(read)), Ok(Some("newer".into())));
}
