//! Deferred commits (`CommitMode::Deferred`): no flush per commit, one per
//! sync, a power loss before the sync leaves the synced state, and pages
//! freed before a sync are reused only after it. The crash tests at every
//! call are in storage_crash.rs.

mod storage_common;

use storage_common::put;

use tinyjoin_engine::storage::{
    CommitMode, CrashMode, DeviceCall, FaultDevice, FaultHandle, MemoryDevice, Store, StoreOptions,
    TreeRead, DEFERRED_HELD_LIMIT,
};

fn opts() -> StoreOptions {
    StoreOptions {
        commit: CommitMode::Deferred,
        ..StoreOptions::default()
    }
}

/// A deferred store on a fault device holding keys `0..n` (one commit
/// each, values `v`), synced, with the device calls so far taken.
fn synced_store(n: u32, v: &[u8]) -> (Store, FaultHandle) {
    let (dev, h) = FaultDevice::new(Vec::new());
    let store = Store::open(Box::new(dev), opts()).unwrap();
    for i in 0..n {
        put(&store, i, v);
    }
    store.sync().unwrap();
    h.take_log();
    (store, h)
}

fn value(image: Vec<u8>, k: u32) -> Option<Vec<u8>> {
    let store = Store::open(Box::new(MemoryDevice::from_bytes(image)), opts()).unwrap();
    assert!(store.check().unwrap().is_ok());
    let r = store.read().unwrap();
    r.get("t", &k.to_be_bytes()).unwrap()
}

fn flushes(log: &[DeviceCall]) -> usize {
    log.iter().filter(|c| **c == DeviceCall::Flush).count()
}

#[test]
fn deferred_commits_do_not_flush_until_sync() {
    let (store, h) = synced_store(1, b"synced");
    for i in 1..=50 {
        put(&store, i, b"deferred");
    }
    let log = h.take_log();
    assert_eq!(flushes(&log), 0, "deferred commits flushed: {log:?}");
    assert!(log.len() <= 100, "{} writes for 50 commits", log.len());
    assert!(store.needs_sync());
    // A power loss now loses the deferred commits, never the synced one.
    assert_eq!(value(h.crash_image(CrashMode::DropUnflushed), 50), None);
    assert_eq!(
        value(h.crash_image(CrashMode::DropUnflushed), 0).as_deref(),
        Some(&b"synced"[..])
    );
    // A crash of the process only (the writes reached the OS) keeps them.
    assert_eq!(value(h.current(), 50).as_deref(), Some(&b"deferred"[..]));
    // The sync: a flush makes them durable, then the newest superblock's
    // confirmed copy (one write) and a second flush.
    store.sync().unwrap();
    let log = h.take_log();
    assert_eq!(flushes(&log), 2, "{log:?}");
    assert_eq!(log.len(), 3, "{log:?}");
    assert!(!store.needs_sync());
    store.sync().unwrap();
    assert!(
        h.take_log().is_empty(),
        "a sync with nothing to do touched the device"
    );
    assert_eq!(
        value(h.crash_image(CrashMode::DropUnflushed), 50).as_deref(),
        Some(&b"deferred"[..])
    );
}

#[test]
fn freed_pages_wait_for_the_sync_and_are_reused_after_it() {
    let (store, h) = synced_store(200, &[1; 100]);
    let len_of = |h: &FaultHandle| h.current().len() / 4096;
    let before = len_of(&h);
    // Rewrites of the same keys, a sync every 10 commits: the file stops
    // growing once the freed pages come back after each sync.
    for round in 0..50u8 {
        for i in 0..10 {
            put(&store, i, &[round; 100]);
        }
        store.sync().unwrap();
    }
    let after = len_of(&h);
    assert!(
        after <= before + 60,
        "file grew from {before} to {after} pages"
    );
    assert_eq!(
        value(h.crash_image(CrashMode::DropUnflushed), 3),
        Some(vec![49; 100])
    );
}

#[test]
fn a_deferred_commit_syncs_by_itself_past_the_held_limits() {
    let (store, h) = synced_store(2000, &[2; 100]);
    // Each commit frees a few pages (a leaf and its ancestors): without a
    // sync, they pile up until their pages (DEFERRED_HELD_LIMIT) or their
    // runs (DEFERRED_HELD_RUNS) make a commit flush.
    let mut commits = 0;
    while store.needs_sync() || commits == 0 {
        put(&store, (commits * 7919) % 2000, &[3; 100]);
        commits += 1;
        assert!(
            commits <= 2 * DEFERRED_HELD_LIMIT as u32,
            "never synced by itself"
        );
    }
    assert!(flushes(&h.take_log()) >= 1);
    assert!(
        commits >= (DEFERRED_HELD_LIMIT / 8) as u32,
        "synced after {commits} commits"
    );
    assert_eq!(
        value(h.crash_image(CrashMode::DropUnflushed), 0).map(|v| v.len()),
        Some(100)
    );
}
