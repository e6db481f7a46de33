//! Corruption, snapshot isolation, space reuse and file-device tests of the
//! storage layer.

use std::ops::Bound;
use tinyjoin_engine::storage::format::PAGE_SIZE;
use tinyjoin_engine::storage::{
    CommitMode, FileDevice, MemoryDevice, Store, StoreOptions, TreeRead, Validation,
};
use tinyjoin_engine::Error;

fn opts() -> StoreOptions {
    StoreOptions::default()
}

fn all(r: &dyn TreeRead, tree: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    let mut it = r.range(tree, Bound::Unbounded, Bound::Unbounded).unwrap();
    while let Some(e) = it.next().unwrap() {
        out.push(e);
    }
    out
}

/// A valid file with three trees, overflow values and a free list.
fn multi_tree_file() -> Vec<u8> {
    multi_tree_file_committed(opts())
}

/// [`multi_tree_file`] written with `opts`, synced at the end (which
/// confirms a one-flush or deferred last commit).
fn multi_tree_file_committed(opts: StoreOptions) -> Vec<u8> {
    let dev = MemoryDevice::new();
    let store = Store::open(Box::new(dev.clone()), opts).unwrap();
    for round in 0..3u32 {
        let mut t = store.write().unwrap();
        for name in ["users", "posts", "blobs"] {
            t.create_tree(name).unwrap();
        }
        for i in 0..400u32 {
            let k = format!("{i:05}");
            t.insert(
                "users",
                k.as_bytes(),
                format!("user {i} round {round}").as_bytes(),
            )
            .unwrap();
            if i % 3 == 0 {
                t.insert("posts", k.as_bytes(), &vec![round as u8; 300])
                    .unwrap();
            }
        }
        for i in 0..4u32 {
            t.insert(
                "blobs",
                &i.to_be_bytes(),
                &vec![i as u8 + round as u8; 9000],
            )
            .unwrap();
        }
        for i in (0..400u32).step_by(7) {
            t.remove("users", format!("{i:05}").as_bytes()).unwrap();
        }
        t.commit().unwrap();
    }
    store.sync().unwrap();
    assert!(!store.needs_sync());
    dev.to_bytes()
}

/// Reads everything through the API; any error is returned.
fn read_everything(store: &Store) -> Result<usize, Error> {
    let r = store.read()?;
    let mut n = 0;
    for name in r.tree_names()? {
        let mut it = r.range(&name, Bound::Unbounded, Bound::Unbounded)?;
        while it.next()?.is_some() {
            n += 1;
        }
    }
    Ok(n)
}

/// In every commit mode, once synced: a one-flush or deferred commit is
/// confirmed by the sync, so a damaged page of it is reported, never taken
/// for a torn commit (which would open the previous state).
#[test]
fn bit_flips_in_every_page_are_reported_as_corrupt_naming_the_page() {
    for commit in [
        CommitMode::TwoFlush,
        CommitMode::OneFlush,
        CommitMode::Deferred,
    ] {
        let opts = StoreOptions { commit, ..opts() };
        flips_are_reported(multi_tree_file_committed(opts));
    }
}

/// Before the confirmation, a damaged page of the newest one-flush commit
/// reads as a torn commit: the file opens at the previous commit, whole
/// (FORMAT.md's known limit), and never with wrong data.
#[test]
fn an_unconfirmed_one_flush_commit_with_a_damaged_page_opens_at_the_previous_commit() {
    let opts = StoreOptions {
        commit: CommitMode::OneFlush,
        ..opts()
    };
    let dev = MemoryDevice::new();
    let store = Store::open(Box::new(dev.clone()), opts.clone()).unwrap();
    let put = |v: &[u8]| {
        let mut t = store.write().unwrap();
        t.create_tree("t").ok();
        t.insert("t", b"k", v).unwrap();
        t.commit().unwrap();
    };
    put(b"first");
    store.sync().unwrap();
    put(b"second");
    assert!(
        store.needs_sync(),
        "a one-flush commit waits for its confirmation"
    );
    let before = store.stats();
    // The file with a bit flipped in the newest value's payload, and the
    // page that holds it.
    let damaged = || {
        let mut bytes = dev.to_bytes();
        let at = bytes
            .windows(6)
            .rposition(|w| w == b"second")
            .expect("the newest value is in the file");
        bytes[at] ^= 1;
        (bytes, at / PAGE_SIZE)
    };
    let reopened = Store::open(
        Box::new(MemoryDevice::from_bytes(damaged().0)),
        opts.clone(),
    )
    .unwrap();
    assert_eq!(
        reopened.read().unwrap().get("t", b"k").unwrap().as_deref(),
        Some(&b"first"[..])
    );
    // Confirmed, the same damage is reported.
    store.sync().unwrap();
    assert!(!store.needs_sync());
    assert!(
        store.stats().flushes > before.flushes,
        "the confirmation flushed"
    );
    let (bytes, leaf) = damaged();
    match Store::open(Box::new(MemoryDevice::from_bytes(bytes)), opts) {
        Err(Error::Corrupt { page, .. }) => assert_eq!(page as usize, leaf),
        other => panic!("a damaged confirmed commit opened: {:?}", other.map(|_| ())),
    }
}

fn flips_are_reported(good: Vec<u8>) {
    let expected = read_everything(
        &Store::open(Box::new(MemoryDevice::from_bytes(good.clone())), opts()).unwrap(),
    )
    .unwrap();
    let pages = good.len() / PAGE_SIZE;
    let mut detected = 0;
    for page in 0..pages {
        for (offset, bit) in [
            (0usize, 0u8),
            (5, 3),
            (PAGE_SIZE / 2, 7),
            (PAGE_SIZE - 1, 1),
        ] {
            let mut bytes = good.clone();
            bytes[page * PAGE_SIZE + offset] ^= 1 << bit;
            let dev = MemoryDevice::from_bytes(bytes);
            // Full validation on open must refuse the file and name the page,
            // unless the flip hit a superblock slot the other one replaces,
            // or a page no committed state references.
            match Store::open(Box::new(dev.clone()), opts()) {
                Err(Error::Corrupt { page: p, .. }) => {
                    assert!(p == page as u64, "flip in page {page} reported as page {p}");
                    detected += 1;
                }
                Err(e) => panic!("flip in page {page}: unexpected error {e}"),
                Ok(store) => {
                    // Never wrong data: what opens reads exactly as before.
                    assert_eq!(
                        read_everything(&store).unwrap(),
                        expected,
                        "flip in page {page} changed data"
                    );
                    assert!(store.check().unwrap().is_ok());
                }
            }
            // Quick validation may open it, but reads must fail or be right.
            let quick = StoreOptions {
                validation: Validation::Quick,
                ..opts()
            };
            if let Ok(store) = Store::open(Box::new(dev), quick) {
                match read_everything(&store) {
                    Ok(n) => assert_eq!(n, expected, "flip in page {page} changed data (quick)"),
                    Err(Error::Corrupt { .. }) => {}
                    Err(e) => panic!("flip in page {page}: unexpected error {e}"),
                }
                let report = store.check().unwrap();
                if !report.is_ok() {
                    assert!(
                        report.problems.iter().any(|p| p.page == page as u64),
                        "{page}: {:?}",
                        report.problems
                    );
                }
            }
        }
    }
    // Free pages hold nothing; every other flip outside the superblocks
    // (whose second copy takes over) must be caught on open.
    let free = Store::open(Box::new(MemoryDevice::from_bytes(good)), opts())
        .unwrap()
        .check()
        .unwrap()
        .free_pages as usize;
    println!("pages: {pages} ({free} free), flips detected on open: {detected}");
    assert_eq!(detected, (pages - 2 - free) * 4, "flips missed");
}

#[test]
fn arbitrary_garbage_never_panics() {
    let good = multi_tree_file();
    let mut x = 12345u64;
    for round in 0..300 {
        let mut bytes = good.clone();
        for _ in 0..(1 + round % 20) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = (x as usize) % bytes.len();
            bytes[i] = (x >> 32) as u8;
        }
        if round % 10 == 0 {
            bytes.truncate((x as usize) % bytes.len());
        }
        if let Ok(store) = Store::open(Box::new(MemoryDevice::from_bytes(bytes)), opts()) {
            let _ = read_everything(&store);
            let _ = store.check();
        }
    }
}

#[test]
fn snapshot_sees_old_state_during_and_after_a_write() {
    let dev = MemoryDevice::new();
    let store = Store::open(Box::new(dev), opts()).unwrap();
    let mut t = store.write().unwrap();
    t.create_tree("t").unwrap();
    for i in 0..2000u32 {
        t.insert("t", &i.to_be_bytes(), b"old").unwrap();
    }
    t.commit().unwrap();
    let snap = store.read().unwrap();
    let before = all(&snap, "t");
    let mut t = store.write().unwrap();
    for i in 0..2000u32 {
        if i % 2 == 0 {
            t.remove("t", &i.to_be_bytes()).unwrap();
        } else {
            t.insert("t", &i.to_be_bytes(), b"new").unwrap();
        }
        if i % 500 == 0 {
            assert_eq!(all(&snap, "t"), before, "snapshot changed during the write");
        }
    }
    assert_eq!(all(&snap, "t"), before);
    t.commit().unwrap();
    assert_eq!(all(&snap, "t"), before, "snapshot changed after the commit");
    // More commits must not reuse the pages the snapshot still reads.
    for round in 0..5u32 {
        let mut t = store.write().unwrap();
        for i in 0..2000u32 {
            t.insert("t", &i.to_be_bytes(), &round.to_be_bytes())
                .unwrap();
        }
        t.commit().unwrap();
    }
    assert_eq!(all(&snap, "t"), before);
    let now = store.read().unwrap();
    assert_eq!(all(&now, "t").len(), 2000);
    assert!(all(&now, "t").iter().all(|(_, v)| v == &4u32.to_be_bytes()));
}

#[test]
fn steady_updates_reuse_space() {
    steady_updates(false);
}

/// The same with a read of the newest state (opened and closed, like an
/// autocommit SELECT) before each write: pages freed behind such reads are
/// reused too (a closed snapshot of the newest state leaves a zero count
/// behind, which must not hold freed pages back).
#[test]
fn steady_updates_reuse_space_with_reads_between() {
    steady_updates(true);
}

fn steady_updates(reads: bool) {
    let dev = MemoryDevice::new();
    let store = Store::open(Box::new(dev.clone()), opts()).unwrap();
    let mut t = store.write().unwrap();
    t.create_tree("t").unwrap();
    for i in 0..1000u32 {
        t.insert("t", &i.to_be_bytes(), &[0u8; 100]).unwrap();
    }
    t.commit().unwrap();
    let mut size_after_100 = 0;
    for n in 0..2000u32 {
        if reads {
            let snap = store.read().unwrap();
            assert!(snap.get("t", &(n % 1000).to_be_bytes()).unwrap().is_some());
        }
        let mut t = store.write().unwrap();
        for j in 0..5u32 {
            let k = (n * 37 + j * 101) % 1000;
            if j == 4 {
                t.remove("t", &k.to_be_bytes()).unwrap();
                t.insert("t", &k.to_be_bytes(), &[j as u8; 100]).unwrap();
            } else {
                t.insert("t", &k.to_be_bytes(), &[n as u8; 100]).unwrap();
            }
        }
        t.commit().unwrap();
        if n == 100 {
            size_after_100 = dev.to_bytes().len();
        }
    }
    let final_size = dev.to_bytes().len();
    println!("file size after 100 transactions: {size_after_100}, after 2000: {final_size}");
    assert!(
        final_size < 3 * size_after_100,
        "file grew from {size_after_100} to {final_size}"
    );
    assert!(store.check().unwrap().is_ok());
}

#[test]
fn file_device_round_trip() {
    let dir = std::env::temp_dir().join(format!("tinyjoin-storage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("db.tj");
    let _ = std::fs::remove_file(&path);
    {
        let store = Store::open(Box::new(FileDevice::open(&path).unwrap()), opts()).unwrap();
        let mut t = store.write().unwrap();
        t.create_tree("t").unwrap();
        for i in 0..3000u32 {
            t.insert("t", &i.to_be_bytes(), &vec![7u8; (i % 50) as usize])
                .unwrap();
        }
        t.insert("t", b"big", &vec![9u8; 200_000]).unwrap();
        t.commit().unwrap();
    }
    let store = Store::open(Box::new(FileDevice::open(&path).unwrap()), opts()).unwrap();
    let r = store.read().unwrap();
    assert_eq!(r.tree_len("t").unwrap(), 3001);
    assert_eq!(r.get("t", b"big").unwrap().unwrap(), vec![9u8; 200_000]);
    assert_eq!(
        r.get("t", &17u32.to_be_bytes()).unwrap().unwrap(),
        vec![7u8; 17]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn values_up_to_64_mib_round_trip() {
    let dev = MemoryDevice::new();
    let opts = StoreOptions {
        batch_limit_bytes: 128 << 20,
        ..opts()
    };
    let store = Store::open(Box::new(dev.clone()), opts.clone()).unwrap();
    let big: Vec<u8> = (0..64u32 << 20).map(|i| (i % 251) as u8).collect();
    let mut t = store.write().unwrap();
    t.create_tree("t").unwrap();
    t.insert("t", b"huge", &big).unwrap();
    t.commit().unwrap();
    drop(store);
    let store = Store::open(Box::new(dev), opts).unwrap();
    assert!(store.read().unwrap().get("t", b"huge").unwrap().unwrap() == big);
}

#[test]
fn oversized_keys_and_names_are_typed_errors() {
    let store = Store::open(Box::new(MemoryDevice::new()), opts()).unwrap();
    let mut t = store.write().unwrap();
    t.create_tree("t").unwrap();
    assert!(matches!(
        t.insert("t", &[0u8; 1025], b""),
        Err(Error::TooLarge(_))
    ));
    assert!(t.create_tree(&"x".repeat(300)).is_err());
    assert!(t.insert("missing", b"k", b"v").is_err());
    assert!(matches!(store.write(), Err(Error::Busy(_))));
}

#[test]
fn sorted_appends_fill_pages() {
    let dev = MemoryDevice::new();
    let store = Store::open(Box::new(dev.clone()), opts()).unwrap();
    let mut t = store.write().unwrap();
    t.create_tree("t").unwrap();
    for i in 0..100_000u64 {
        t.insert("t", &i.to_be_bytes(), &[1u8; 100]).unwrap();
    }
    t.commit().unwrap();
    let report = store.check().unwrap();
    let payload = 100_000 * (8 + 100 + 7);
    let used = (report.pages - report.free_pages) as usize * PAGE_SIZE;
    println!(
        "pages {} free {} fill {:.2}",
        report.pages,
        report.free_pages,
        payload as f64 / used as f64
    );
    assert!(
        payload as f64 / used as f64 > 0.9,
        "sorted appends left pages under-filled"
    );
}

/// Writes seed files for the `open_store` fuzz target when
/// `TINYJOIN_FUZZ_SEEDS` names a folder (otherwise does nothing).
#[test]
fn write_fuzz_seeds() {
    let Ok(dir) = std::env::var("TINYJOIN_FUZZ_SEEDS") else {
        return;
    };
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(format!("{dir}/multi_tree"), multi_tree_file()).unwrap();
    let dev = MemoryDevice::new();
    let store = Store::open(Box::new(dev.clone()), opts()).unwrap();
    std::fs::write(format!("{dir}/empty"), dev.to_bytes()).unwrap();
    let mut t = store.write().unwrap();
    t.create_tree("t").unwrap();
    for i in 0..300u32 {
        t.insert("t", &i.to_be_bytes(), &[i as u8; 20]).unwrap();
    }
    t.commit().unwrap();
    std::fs::write(format!("{dir}/small"), dev.to_bytes()).unwrap();
}
