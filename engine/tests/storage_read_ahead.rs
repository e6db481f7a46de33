//! A forward scan that must read a leaf from the device reads the sibling
//! leaves that follow it in the file in the same call (OPFS charges per
//! call): fewer reads, the same entries, the cache's bound kept, and a bad
//! page read ahead reported only when the scan reaches it.

use std::ops::Bound;
use tinyjoin_engine::storage::format::{KIND_LEAF, KIND_OFFSET, PAGE_SIZE};
use tinyjoin_engine::storage::{MemoryDevice, Store, StoreOptions, TreeRead, Validation};
use tinyjoin_engine::Error;

const ROWS: u32 = 3_000;

type Entries = Vec<(Vec<u8>, Vec<u8>)>;

fn key(i: u32) -> Vec<u8> {
    format!("k{i:05}").into_bytes()
}

/// One tree of `ROWS` entries of about 100 bytes (some 80 leaves), loaded
/// in key order over a few commits.
fn file() -> Vec<u8> {
    let dev = MemoryDevice::new();
    let store = Store::open(Box::new(dev.clone()), StoreOptions::default()).unwrap();
    for part in 0..3 {
        let mut t = store.write().unwrap();
        t.create_tree("t").ok();
        for i in (part * ROWS / 3)..((part + 1) * ROWS / 3) {
            t.insert("t", &key(i), format!("{i:0100}").as_bytes())
                .unwrap();
        }
        t.commit().unwrap();
    }
    store.sync().unwrap();
    dev.to_bytes()
}

/// Opened without reading its trees (quick validation) and an empty cache.
fn open(bytes: Vec<u8>, cache_pages: usize) -> Store {
    let opts = StoreOptions {
        validation: Validation::Quick,
        cache_pages,
        ..StoreOptions::default()
    };
    Store::open(Box::new(MemoryDevice::from_bytes(bytes)), opts).unwrap()
}

/// Every entry of `t` forward (or backward, then put in key order), and
/// the device reads that took.
fn scan(store: &Store, forward: bool) -> (Entries, u64) {
    let before = store.stats().reads;
    let r = store.read().unwrap();
    let mut it = r.range("t", Bound::Unbounded, Bound::Unbounded).unwrap();
    let mut out = Vec::new();
    loop {
        let e = if forward { it.next() } else { it.next_back() };
        match e.unwrap() {
            Some(e) => out.push(e),
            None => break,
        }
    }
    if !forward {
        out.reverse();
    }
    (out, store.stats().reads - before)
}

fn expected() -> Entries {
    (0..ROWS)
        .map(|i| (key(i), format!("{i:0100}").into_bytes()))
        .collect()
}

/// The reads of a forward and of a backward scan of [`file`], each on a
/// store of its own with a `cache_pages` cache; both return every entry.
fn reads_both_ways(cache_pages: usize) -> (u64, u64) {
    let bytes = file();
    let (back, back_reads) = scan(&open(bytes.clone(), cache_pages), false);
    let (fwd, fwd_reads) = scan(&open(bytes, cache_pages), true);
    assert_eq!(fwd, expected());
    assert_eq!(back, expected());
    (fwd_reads, back_reads)
}

#[test]
fn a_cold_forward_scan_reads_runs_of_leaves() {
    let (fwd_reads, back_reads) = reads_both_ways(8192);
    assert!(back_reads > 60, "{back_reads} reads backward");
    assert!(
        fwd_reads * 4 < back_reads,
        "forward {fwd_reads} reads, backward {back_reads}"
    );
}

#[test]
fn a_full_cache_reads_leaf_by_leaf() {
    let (fwd_reads, back_reads) = reads_both_ways(16);
    assert!(
        fwd_reads + 20 > back_reads,
        "forward {fwd_reads}, backward {back_reads}"
    );
}

#[test]
fn a_bad_page_read_ahead_fails_the_scan_only_where_it_lies() {
    let mut bytes = file();
    // The leaf that holds k01500: one byte of it flipped.
    let needle = key(1500);
    let at = (0..bytes.len() / PAGE_SIZE)
        .find(|&p| {
            let page = &bytes[p * PAGE_SIZE..(p + 1) * PAGE_SIZE];
            page[KIND_OFFSET] == KIND_LEAF && page.windows(needle.len()).any(|w| w == needle)
        })
        .expect("a leaf holds k01500");
    bytes[at * PAGE_SIZE + PAGE_SIZE / 2] ^= 0x20;
    let store = open(bytes, 8192);
    let r = store.read().unwrap();
    let mut it = r.range("t", Bound::Unbounded, Bound::Unbounded).unwrap();
    // The leaves before it, one of them read with the bad one ahead of it.
    let mut read = 0;
    let err = loop {
        match it.next() {
            Ok(Some((k, _))) => {
                assert_eq!(k, key(read));
                read += 1;
            }
            Ok(None) => panic!("the scan passed a bad page"),
            Err(e) => break e,
        }
    };
    assert!((1400..=1500).contains(&read), "failed after {read} entries");
    match err {
        Error::Corrupt { page, .. } => assert_eq!(page as usize, at),
        other => panic!("expected Corrupt, got {other}"),
    }
}
