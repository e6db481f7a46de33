//! Helpers shared by the storage tests (`storage_crash.rs`,
//! `storage_load.rs`, `storage_deferred.rs`, `storage_alloc.rs`). Each
//! includes this module with `mod storage_common;` and uses some of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ops::Bound;
use tinyjoin_engine::storage::{SortedSource, Store, TreeRead};

/// A tree's contents, key to value.
pub type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// Entries handed to `load_sorted` one by one.
pub struct Entries<'a>(pub std::slice::Iter<'a, (Vec<u8>, Vec<u8>)>);

impl SortedSource for Entries<'_> {
    fn next_entry(&mut self) -> tinyjoin_engine::Result<Option<(&[u8], &[u8])>> {
        Ok(self.0.next().map(|(k, v)| (k.as_slice(), v.as_slice())))
    }
}

/// Puts `k` (big-endian) with value `v` into tree `t`, creating it if
/// needed, in a transaction of its own.
pub fn put(store: &Store, k: u32, v: &[u8]) {
    let mut t = store.write().unwrap();
    if !t.tree_exists("t").unwrap() {
        t.create_tree("t").unwrap();
    }
    t.insert("t", &k.to_be_bytes(), v).unwrap();
    t.commit().unwrap();
}

/// Everything tree `t` holds in the store's newest commit.
pub fn contents(store: &Store) -> Model {
    let r = store.read().unwrap();
    let mut out = Model::new();
    let mut it = r.range("t", Bound::Unbounded, Bound::Unbounded).unwrap();
    while let Some((k, v)) = it.next().unwrap() {
        out.insert(k, v);
    }
    out
}

/// A seeded xorshift generator (the same sequence on every run).
pub fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}
