//! Page allocation: a stream of small commits settles into writing each
//! commit's pages as one run (one device write, plus the superblock's),
//! and the file grows for it by a bounded number of pages.

use tinyjoin_engine::storage::{
    CommitMode, CrashMode, DeviceCall, FaultDevice, FaultHandle, Store, StoreOptions, TreeRead,
};

mod storage_common;

/// One single-entry commit into tree `t`.
fn commit_one(store: &Store, k: u32) {
    storage_common::put(store, k, &[7; 40]);
}

/// The writes of each of `n` single-entry commits after the first `n`.
fn writes_per_commit(h: &FaultHandle, store: &Store, n: u32) -> Vec<usize> {
    for k in 0..n {
        commit_one(store, k);
    }
    h.take_log();
    (n..2 * n)
        .map(|k| {
            commit_one(store, k);
            h.take_log()
                .iter()
                .filter(|c| matches!(c, DeviceCall::Write { .. }))
                .count()
        })
        .collect()
}

#[test]
fn single_entry_commits_write_their_pages_in_one_run() {
    for commit in [
        CommitMode::OneFlush,
        CommitMode::TwoFlush,
        CommitMode::Deferred,
    ] {
        let (dev, h) = FaultDevice::new(Vec::new());
        let opts = StoreOptions {
            commit,
            ..StoreOptions::default()
        };
        let store = Store::open(Box::new(dev), opts).unwrap();
        let writes = writes_per_commit(&h, &store, 100);
        // The pages (leaf, catalog, free list) in one call, the superblock
        // in another; a commit that splits a leaf needs more pages than
        // the last one wrote and may take two runs. Lowest-first allocation
        // wrote every commit's pages in two runs here.
        let one_run = writes.iter().filter(|&&w| w == 2).count();
        assert!(
            one_run >= 95 && writes.iter().all(|&w| w <= 3),
            "{commit:?}: {writes:?}"
        );
        let report = store.check().unwrap();
        assert!(report.is_ok(), "{:?}", report.problems);
        if commit != CommitMode::Deferred {
            // The tree (4 pages), superblocks, two runs used in turn and a
            // spare one: 19 pages here.
            assert!(report.pages <= 24, "{commit:?}: {} pages", report.pages);
        }
        store.sync().unwrap();
        drop(store);
        let image = h.crash_image(CrashMode::DropUnflushed);
        let store =
            Store::open(Box::new(FaultDevice::new(image).0), StoreOptions::default()).unwrap();
        assert_eq!(store.read().unwrap().tree_len("t").unwrap(), 200);
    }
}

#[test]
fn with_many_pages_free_the_file_does_not_grow() {
    // A dropped tree of about 900 pages leaves them free, scattered in
    // runs by the tree's splits; 300 small commits into another tree then
    // take only free pages, though no run may be as long as they want.
    let (dev, _h) = FaultDevice::new(Vec::new());
    let store = Store::open(Box::new(dev), StoreOptions::default()).unwrap();
    let mut t = store.write().unwrap();
    t.create_tree("big").unwrap();
    for k in 0u32..6000 {
        // Scattered keys: splits interleave the leaves' pages.
        t.insert(
            "big",
            &k.wrapping_mul(2_654_435_761).to_be_bytes(),
            &[1; 500],
        )
        .unwrap();
    }
    t.commit().unwrap();
    let mut t = store.write().unwrap();
    t.drop_tree("big").unwrap();
    t.commit().unwrap();
    commit_one(&store, 0);
    let before = store.check().unwrap();
    assert!(before.free_pages > 800, "{before:?}");
    for k in 1..300 {
        commit_one(&store, k);
    }
    let after = store.check().unwrap();
    assert!(after.is_ok(), "{:?}", after.problems);
    assert_eq!(after.pages, before.pages);
}
