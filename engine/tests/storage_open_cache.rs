//! An open with full validation reads every page of the file; the tree
//! nodes it read stay in the cache (up to its free room), so the first
//! statements after the open do not read them again. Those nodes fill only
//! free room and, until something reads one, count as room for a scan
//! (which caches only into room). That free pages are never among them is
//! a unit test of `storage::check`.

use std::ops::Bound;
use tinyjoin_engine::storage::{MemoryDevice, Store, StoreOptions, TreeRead, Validation};

type Entries = Vec<(Vec<u8>, Vec<u8>)>;

fn key(i: u32) -> Vec<u8> {
    format!("k{i:05}").into_bytes()
}

fn value(tree: &str, i: u32) -> Vec<u8> {
    format!("{tree}{i:0100}").into_bytes()
}

/// Trees `a` and `b` of `rows` entries of about 100 bytes each (some 27
/// leaves per 1,000 entries), then a commit that rewrites every tenth
/// entry of `a`: the leaves it replaced are free pages that still hold
/// leaves, with valid checksums.
fn file(rows: u32) -> Vec<u8> {
    let dev = MemoryDevice::new();
    let store = Store::open(Box::new(dev.clone()), StoreOptions::default()).unwrap();
    for tree in ["a", "b"] {
        let mut t = store.write().unwrap();
        t.create_tree(tree).unwrap();
        for i in 0..rows {
            t.insert(tree, &key(i), &value(tree, i)).unwrap();
        }
        t.commit().unwrap();
    }
    let mut t = store.write().unwrap();
    for i in (0..rows).step_by(10) {
        t.insert("a", &key(i), &value("A", i)).unwrap();
    }
    t.commit().unwrap();
    // And one more commit, so that the pages the last one freed are free
    // in the state a reopen sees rather than reused.
    let mut t = store.write().unwrap();
    t.insert("b", &key(rows), &value("b", rows)).unwrap();
    t.commit().unwrap();
    store.sync().unwrap();
    dev.to_bytes()
}

fn expected(tree: &str, rows: u32) -> Entries {
    (0..rows + u32::from(tree == "b"))
        .map(|i| {
            let v = if tree == "a" && i % 10 == 0 {
                value("A", i)
            } else {
                value(tree, i)
            };
            (key(i), v)
        })
        .collect()
}

fn open(bytes: Vec<u8>, validation: Validation, cache_pages: usize) -> Store {
    let opts = StoreOptions {
        validation,
        cache_pages,
        ..StoreOptions::default()
    };
    Store::open(Box::new(MemoryDevice::from_bytes(bytes)), opts).unwrap()
}

/// Every entry of `tree`, and the device reads that took.
fn scan(store: &Store, tree: &str) -> (Entries, u64) {
    let before = store.stats().reads;
    let r = store.read().unwrap();
    let mut it = r.range(tree, Bound::Unbounded, Bound::Unbounded).unwrap();
    let mut out = Vec::new();
    while let Some(e) = it.next().unwrap() {
        out.push(e);
    }
    (out, store.stats().reads - before)
}

#[test]
fn after_a_full_validation_the_first_reads_come_from_the_cache() {
    let bytes = file(3_000);
    let full = open(bytes.clone(), Validation::Full, 8192);
    let quick = open(bytes, Validation::Quick, 8192);
    for tree in ["a", "b"] {
        let (entries, reads) = scan(&full, tree);
        assert_eq!(entries, expected(tree, 3_000));
        assert_eq!(reads, 0, "tree {tree}: reads after a full validation");
        let (entries, reads) = scan(&quick, tree);
        assert_eq!(entries, expected(tree, 3_000));
        assert!(reads > 0, "tree {tree}: no reads after a quick validation");
    }
    // Point reads too, and the store stays writable and sound.
    let before = full.stats().reads;
    let r = full.read().unwrap();
    for i in (0..3_000).step_by(7) {
        assert_eq!(r.get("b", &key(i)).unwrap(), Some(value("b", i)));
    }
    drop(r);
    assert_eq!(full.stats().reads, before);
    let mut t = full.write().unwrap();
    for i in (0..3_000).step_by(3) {
        t.remove("a", &key(i)).unwrap();
    }
    t.commit().unwrap();
    assert!(full.check().unwrap().is_ok());
    let (entries, _) = scan(&full, "a");
    let want: Entries = expected("a", 3_000)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % 3 != 0)
        .map(|(_, e)| e)
        .collect();
    assert_eq!(entries, want);
}

/// Tree `a` of 6,000 entries (some 160 leaves), then tree `b` of 2,000
/// (some 55), each in a commit of its own: b's pages lie after a's.
fn a_then_b() -> Vec<u8> {
    let dev = MemoryDevice::new();
    let store = Store::open(Box::new(dev.clone()), StoreOptions::default()).unwrap();
    for (tree, rows) in [("a", 6_000), ("b", 2_000)] {
        let mut t = store.write().unwrap();
        t.create_tree(tree).unwrap();
        for i in 0..rows {
            t.insert(tree, &key(i), &value(tree, i)).unwrap();
        }
        t.commit().unwrap();
    }
    store.sync().unwrap();
    dev.to_bytes()
}

#[test]
fn nodes_the_open_cached_make_room_for_a_scan() {
    // A cache of 100 nodes: the open fills it with the branches and the
    // first of a's leaves, which nothing reads.
    let store = open(a_then_b(), Validation::Full, 100);
    let (first, first_reads) = scan(&store, "b");
    assert!(first_reads > 0, "b was cached at the open");
    // The first scan cached b's leaves in place of a's: the second reads
    // none (b has fewer nodes than the cache holds).
    let (again, again_reads) = scan(&store, "b");
    let want: Entries = (0..2_000).map(|i| (key(i), value("b", i))).collect();
    assert_eq!(first, want);
    assert_eq!(again, want);
    assert_eq!(again_reads, 0, "the scan found no room in the cache");
    // a's leaves that stayed cached are still served from it.
    let (entries, _) = scan(&store, "a");
    assert_eq!(entries.len(), 6_000);
}
