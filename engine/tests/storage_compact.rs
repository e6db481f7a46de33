//! `Store::compact` (SQL's VACUUM): the file shrinks to the pages its trees
//! use, whatever they hold (several trees, overflow values, the catalog);
//! the contents stay; open snapshots keep reading what they read (and hold
//! back only the pages they may read); every commit mode; a file that is
//! already compact is left as it is. Crashes inside a compaction are in
//! `storage_crash.rs`.

mod storage_common;

use std::ops::Bound;
use storage_common::{contents, Model};
use tinyjoin_engine::storage::{CommitMode, MemoryDevice, Store, StoreOptions, TreeRead};

fn opts(commit: CommitMode) -> StoreOptions {
    StoreOptions {
        cache_pages: 256,
        commit,
        ..StoreOptions::default()
    }
}

fn key(i: u64) -> Vec<u8> {
    format!("key{i:08}").into_bytes()
}

/// Every entry of tree `t` in the store's newest state.
fn tree(store: &Store, t: &str) -> Model {
    let r = store.read().unwrap();
    let mut out = Model::new();
    let mut it = r.range(t, Bound::Unbounded, Bound::Unbounded).unwrap();
    while let Some((k, v)) = it.next().unwrap() {
        out.insert(k, v);
    }
    out
}

/// A store with trees t (40,000 small entries, every 1,000th with a
/// 20 KiB overflow value) and u (3,000 entries), then most of t deleted
/// in a second commit: its pages are free, many of them before the ones
/// still in use, which lie all over the file.
fn fragmented(dev: &MemoryDevice, commit: CommitMode) -> Store {
    let store = Store::open(Box::new(dev.clone()), opts(commit)).unwrap();
    let mut w = store.write().unwrap();
    w.create_tree("t").unwrap();
    w.create_tree("u").unwrap();
    for i in 0..40_000u64 {
        let v = if i % 1000 == 7 {
            vec![(i % 251) as u8; 20_000]
        } else {
            vec![(i % 13) as u8; 60]
        };
        w.insert("t", &key(i), &v).unwrap();
        if i % 13 == 0 {
            w.insert("u", &key(i), b"u-value").unwrap();
        }
    }
    w.commit().unwrap();
    let mut w = store.write().unwrap();
    for i in 0..40_000u64 {
        if i % 10 != 3 && i % 1000 != 7 {
            w.remove("t", &key(i)).unwrap();
        }
    }
    w.commit().unwrap();
    store
}

fn file_pages(dev: &MemoryDevice) -> u64 {
    dev.to_bytes().len() as u64 / 4096
}

#[test]
fn compaction_shrinks_the_file_to_the_pages_in_use() {
    for commit in [
        CommitMode::OneFlush,
        CommitMode::TwoFlush,
        CommitMode::Deferred,
    ] {
        let dev = MemoryDevice::new();
        let store = fragmented(&dev, commit);
        let (t, u) = (tree(&store, "t"), tree(&store, "u"));
        let before = store.check().unwrap();
        assert!(
            before.free_pages > before.pages / 2,
            "{commit:?}: the deletes free most pages: {before:?}"
        );
        let c = store.compact().unwrap();
        let after = store.check().unwrap();
        assert!(after.is_ok(), "{commit:?}: {:?}", after.problems);
        assert_eq!(c.pages_after, after.pages, "{commit:?}");
        assert_eq!(
            file_pages(&dev),
            c.pages_after,
            "{commit:?}: the file is cut"
        );
        let used = before.pages - before.free_pages;
        assert!(
            after.pages <= used + 8,
            "{commit:?}: {used} pages in use, {c:?}, {} free after",
            after.free_pages
        );
        assert!(
            c.passes >= 2 && c.passes <= 8 && !c.rebuilt,
            "{commit:?}: {c:?}"
        );
        assert_eq!(tree(&store, "t"), t, "{commit:?}");
        assert_eq!(tree(&store, "u"), u, "{commit:?}");
        // Reopened from its bytes, validated in full, it holds the same.
        drop(store);
        let reopened = Store::open(Box::new(dev.clone()), opts(commit)).unwrap();
        assert_eq!(tree(&reopened, "t"), t, "{commit:?}");
        assert_eq!(tree(&reopened, "u"), u, "{commit:?}");
        // And it grows again from there.
        let mut w = reopened.write().unwrap();
        for i in 0..2_000u64 {
            w.insert("t", &key(100_000 + i), &[9; 100]).unwrap();
        }
        w.commit().unwrap();
        assert!(reopened.check().unwrap().is_ok(), "{commit:?}");
    }
}

#[test]
fn a_compact_file_is_left_as_it_is() {
    let dev = MemoryDevice::new();
    let store = Store::open(Box::new(dev.clone()), opts(CommitMode::OneFlush)).unwrap();
    let c = store.compact().unwrap();
    assert_eq!((c.pages_before, c.pages_after, c.passes), (2, 2, 0));
    let mut w = store.write().unwrap();
    w.create_tree("t").unwrap();
    for i in 0..5_000u64 {
        w.insert("t", &key(i), &[1; 50]).unwrap();
    }
    w.commit().unwrap();
    let model = contents(&store);
    let first = store.compact().unwrap();
    let second = store.compact().unwrap();
    assert_eq!(second.passes, 0, "{first:?} then {second:?}");
    assert_eq!(second.pages_after, first.pages_after);
    assert!(first.pages_after <= first.pages_before, "{first:?}");
    assert_eq!(contents(&store), model);
    assert_eq!(file_pages(&dev), second.pages_after);
}

#[test]
fn snapshots_keep_reading_across_a_compaction_and_hold_back_only_their_pages() {
    let dev = MemoryDevice::new();
    let store = fragmented(&dev, CommitMode::OneFlush);
    let model = tree(&store, "t");
    // A snapshot of the state before the deletes would pin every deleted
    // page; this one reads the state after them, as it stands.
    let snapshot = store.read().unwrap();
    let held = store.compact().unwrap();
    // The pages moved out of the end stay for the snapshot: nothing to cut.
    assert!(held.passes >= 1, "{held:?}");
    assert_eq!(held.pages_after, held.pages_before, "{held:?}");
    assert!(store.check().unwrap().is_ok());
    let mut seen = Model::new();
    let mut it = snapshot
        .range("t", Bound::Unbounded, Bound::Unbounded)
        .unwrap();
    while let Some((k, v)) = it.next().unwrap() {
        seen.insert(k, v);
    }
    assert_eq!(seen, model, "the snapshot reads what it read");
    drop(it);
    drop(snapshot);
    // The pages the snapshot held are free now: a second compaction drops
    // them.
    let free = store.compact().unwrap();
    assert!(
        free.pages_after < held.pages_after / 3,
        "{held:?} then {free:?}"
    );
    assert_eq!(tree(&store, "t"), model);
    assert!(store.check().unwrap().is_ok());
}

#[test]
fn a_compaction_waits_for_no_writer_but_refuses_to_run_beside_one() {
    let dev = MemoryDevice::new();
    let store = fragmented(&dev, CommitMode::OneFlush);
    let w = store.write().unwrap();
    assert!(matches!(
        store.compact(),
        Err(tinyjoin_engine::Error::Busy(_))
    ));
    drop(w);
    assert!(store.compact().is_ok());
}

/// Overflow runs (8 pages each) between small entries most of which are
/// deleted: the holes left are shorter than a run, so packing passes stop
/// short and a rebuild pass copies everything after the end of the file,
/// then packing moves it all back, runs side by side.
#[test]
fn overflow_runs_among_short_holes_are_packed_by_a_rebuild() {
    for commit in [CommitMode::OneFlush, CommitMode::Deferred] {
        let dev = MemoryDevice::new();
        let store = Store::open(Box::new(dev.clone()), opts(commit)).unwrap();
        let mut w = store.write().unwrap();
        w.create_tree("t").unwrap();
        for i in 0..20_000u64 {
            let v = if i % 500 == 0 {
                vec![(i % 7) as u8; 30_000]
            } else {
                vec![1; 40]
            };
            w.insert("t", &key(i), &v).unwrap();
        }
        w.commit().unwrap();
        let mut w = store.write().unwrap();
        for i in (0..20_000u64).filter(|i| i % 10 != 0) {
            w.remove("t", &key(i)).unwrap();
        }
        w.commit().unwrap();
        let model = tree(&store, "t");
        let before = store.check().unwrap();
        let c = store.compact().unwrap();
        let after = store.check().unwrap();
        assert!(after.is_ok(), "{commit:?}: {:?}", after.problems);
        assert!(c.rebuilt, "{commit:?}: {c:?}");
        let used = before.pages - before.free_pages;
        assert!(after.pages <= used + 8, "{commit:?}: {used} in use, {c:?}");
        assert_eq!(file_pages(&dev), after.pages, "{commit:?}");
        assert_eq!(tree(&store, "t"), model, "{commit:?}");
        drop(store);
        let reopened = Store::open(Box::new(dev.clone()), opts(commit)).unwrap();
        assert_eq!(tree(&reopened, "t"), model, "{commit:?}");
    }
}
