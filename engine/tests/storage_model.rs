//! Model test of the storage layer: random sequences of put / delete /
//! sorted batches of removals and of empty-valued inserts / range scan /
//! commit / rollback / savepoint (copy-on-write and undo-log; rolled back,
//! kept, released) / reopen / snapshot / compaction (`Store::compact`, with
//! snapshots open across it) against a `BTreeMap` model. Keys and values
//! range from empty to multi-page.

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::ops::Bound;
use tinyjoin_engine::storage::{MemoryDevice, ReadTxn, Store, StoreOptions, TreeRead, WriteTxn};

const TREES: [&str; 3] = ["alpha", "beta", "gamma"];

type Model = BTreeMap<&'static str, BTreeMap<Vec<u8>, Vec<u8>>>;

#[derive(Clone, Debug)]
enum Op {
    Put(usize, Vec<u8>, Vec<u8>),
    Delete(usize, Vec<u8>),
    DeleteNth(usize, usize),
    /// `WriteTxn::remove_sorted` of the keys at these positions of the
    /// tree (modulo its length) and of these other keys, sorted (repeats
    /// kept).
    RemoveSorted(usize, Vec<usize>, Vec<Vec<u8>>),
    /// `WriteTxn::insert_keys_sorted` of these keys, sorted (repeats kept).
    InsertKeysSorted(usize, Vec<Vec<u8>>),
    /// Tree, bounds, reverse, and whether each bound is inclusive.
    Range(usize, Option<Vec<u8>>, Option<Vec<u8>>, bool, (bool, bool)),
    Commit,
    Rollback,
    Savepoint,
    /// An undo-log savepoint, as a statement takes.
    StatementSavepoint,
    /// Roll back to the newest savepoint and release it.
    RollbackToSavepoint,
    /// Roll back to the newest savepoint, keeping it open.
    RollbackKeep,
    /// Release the newest savepoint, keeping its changes.
    ReleaseSavepoint,
    Reopen,
    OpenSnapshot,
    CheckSnapshots,
    CloseSnapshot,
    ClearTree(usize),
    /// Commits the open transaction, then `Store::compact`.
    Compact,
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => prop::collection::vec(0u8..4, 0..6),
        4 => prop::collection::vec(any::<u8>(), 0..40),
        1 => prop::collection::vec(any::<u8>(), 900..1025),
    ]
}

fn value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => prop::collection::vec(any::<u8>(), 0..64),
        3 => prop::collection::vec(any::<u8>(), 500..2100),
        1 => prop::collection::vec(any::<u8>(), 4000..20000),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        40 => (0..3usize, key(), value()).prop_map(|(t, k, v)| Op::Put(t, k, v)),
        8 => (0..3usize, key()).prop_map(|(t, k)| Op::Delete(t, k)),
        10 => (0..3usize, any::<usize>()).prop_map(|(t, n)| Op::DeleteNth(t, n)),
        3 => (0..3usize, prop::collection::vec(any::<usize>(), 0..40), prop::collection::vec(key(), 0..4))
            .prop_map(|(t, at, other)| Op::RemoveSorted(t, at, other)),
        3 => (0..3usize, prop::collection::vec(key(), 0..40)).prop_map(|(t, k)| Op::InsertKeysSorted(t, k)),
        5 => (0..3usize, prop::option::of(key()), prop::option::of(key()), any::<bool>(), any::<(bool, bool)>())
            .prop_map(|(t, lo, hi, rev, inc)| Op::Range(t, lo, hi, rev, inc)),
        8 => Just(Op::Commit),
        2 => Just(Op::Rollback),
        2 => Just(Op::Savepoint),
        3 => Just(Op::StatementSavepoint),
        2 => Just(Op::RollbackToSavepoint),
        1 => Just(Op::RollbackKeep),
        2 => Just(Op::ReleaseSavepoint),
        2 => Just(Op::Reopen),
        2 => Just(Op::OpenSnapshot),
        2 => Just(Op::CheckSnapshots),
        1 => Just(Op::CloseSnapshot),
        1 => (0..3usize).prop_map(Op::ClearTree),
        2 => Just(Op::Compact),
    ]
}

thread_local! {
    /// Batch limit for the current case: small limits make every
    /// transaction spill dirty pages, mixing spills with savepoints.
    static BATCH_LIMIT: std::cell::Cell<u64> = const { std::cell::Cell::new(16 << 20) };
}

fn open(dev: &MemoryDevice) -> Store {
    let opts = StoreOptions {
        cache_pages: 64,
        batch_limit_bytes: BATCH_LIMIT.with(|l| l.get()),
        ..StoreOptions::default()
    };
    Store::open(Box::new(dev.clone()), opts).expect("open")
}

fn dump(r: &dyn TreeRead, tree: &str) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut out = BTreeMap::new();
    if !r.tree_exists(tree).unwrap() {
        return out;
    }
    let mut it = r.range(tree, Bound::Unbounded, Bound::Unbounded).unwrap();
    while let Some((k, v)) = it.next().unwrap() {
        out.insert(k, v);
    }
    assert_eq!(
        r.tree_len(tree).unwrap(),
        out.len() as u64,
        "tree_len of {tree}"
    );
    out
}

fn assert_state(r: &dyn TreeRead, model: &Model) {
    for t in TREES {
        let empty = BTreeMap::new();
        let want = model.get(t).unwrap_or(&empty);
        assert_eq!(&dump(r, t), want, "contents of {t}");
        if !r.tree_exists(t).unwrap() {
            continue;
        }
        // Point lookups in key order (a snapshot's remembered leaf serves
        // most of them), each followed by a probe just above the key.
        for (k, v) in want {
            assert_eq!(r.get(t, k).unwrap().as_ref(), Some(v), "get {k:?} in {t}");
            let mut above = k.clone();
            above.push(0);
            assert_eq!(
                r.get(t, &above).unwrap().as_ref(),
                want.get(&above),
                "get {above:?}"
            );
        }
    }
}

fn bound(b: &Option<Vec<u8>>, inclusive: bool) -> Bound<Vec<u8>> {
    match b {
        None => Bound::Unbounded,
        Some(k) if inclusive => Bound::Included(k.clone()),
        Some(k) => Bound::Excluded(k.clone()),
    }
}

struct Harness {
    dev: MemoryDevice,
    store: Store,
    txn: Option<WriteTxn>,
    committed: Model,
    working: Model,
    savepoints: Vec<(tinyjoin_engine::storage::Savepoint, Model)>,
    snapshots: Vec<(ReadTxn, Model)>,
}

impl Harness {
    fn txn(&mut self) -> &mut WriteTxn {
        if self.txn.is_none() {
            let mut t = self.store.write().unwrap();
            for name in TREES {
                t.create_tree(name).unwrap();
            }
            self.txn = Some(t);
            self.working = self.committed.clone();
        }
        self.txn.as_mut().unwrap()
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Put(t, k, v) => {
                let replaced = self.txn().insert(TREES[t], &k, &v).unwrap();
                let old = self.working.entry(TREES[t]).or_default().insert(k, v);
                assert_eq!(replaced, old.is_some());
            }
            Op::Delete(t, k) => {
                let removed = self.txn().remove(TREES[t], &k).unwrap();
                let old = self.working.entry(TREES[t]).or_default().remove(&k);
                assert_eq!(removed, old.is_some());
            }
            Op::DeleteNth(t, n) => {
                self.txn();
                let keys: Vec<Vec<u8>> = self
                    .working
                    .entry(TREES[t])
                    .or_default()
                    .keys()
                    .cloned()
                    .collect();
                if !keys.is_empty() {
                    let k = keys[n % keys.len()].clone();
                    assert!(self.txn().remove(TREES[t], &k).unwrap());
                    self.working.get_mut(TREES[t]).unwrap().remove(&k);
                }
            }
            Op::RemoveSorted(t, at, other) => {
                self.txn();
                let m = self.working.entry(TREES[t]).or_default();
                let keys: Vec<&Vec<u8>> = m.keys().collect();
                let mut batch: Vec<Vec<u8>> = match keys.len() {
                    0 => Vec::new(),
                    n => at.iter().map(|i| keys[i % n].clone()).collect(),
                };
                batch.extend(other);
                batch.sort();
                let expected = batch.iter().filter(|k| m.remove(*k).is_some()).count();
                let refs: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
                let present = self.txn().remove_sorted(TREES[t], &refs).unwrap();
                assert_eq!(present, expected as u64);
            }
            Op::InsertKeysSorted(t, mut batch) => {
                batch.sort();
                let refs: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
                self.txn().insert_keys_sorted(TREES[t], &refs).unwrap();
                let m = self.working.entry(TREES[t]).or_default();
                for k in batch {
                    m.insert(k, Vec::new());
                }
            }
            Op::Range(t, lo, hi, rev, (lo_inc, hi_inc)) => {
                self.txn();
                let m = self.working.entry(TREES[t]).or_default().clone();
                let (lo, hi) = (bound(&lo, lo_inc), bound(&hi, hi_inc));
                // BTreeMap::range panics on inverted or empty-exclusive bounds.
                match (&lo, &hi) {
                    (
                        Bound::Included(a) | Bound::Excluded(a),
                        Bound::Included(b) | Bound::Excluded(b),
                    ) if a > b || (a == b && !(lo_inc && hi_inc)) => {
                        return;
                    }
                    _ => {}
                }
                let want: Vec<(Vec<u8>, Vec<u8>)> = m
                    .range((lo.clone(), hi.clone()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let txn = self.txn.as_ref().unwrap();
                let mut it = txn.range(TREES[t], lo, hi).unwrap();
                let mut got = Vec::new();
                if rev {
                    while let Some(e) = it.next_back().unwrap() {
                        got.push(e);
                    }
                    got.reverse();
                } else {
                    while let Some(e) = it.next().unwrap() {
                        got.push(e);
                    }
                }
                assert_eq!(got, want);
            }
            Op::Commit => {
                if let Some(t) = self.txn.take() {
                    t.commit().unwrap();
                    self.committed = self.working.clone();
                    self.savepoints.clear();
                }
            }
            Op::Rollback => {
                if let Some(t) = self.txn.take() {
                    t.rollback();
                    self.working = self.committed.clone();
                    self.savepoints.clear();
                }
            }
            Op::Savepoint => {
                let sp = self.txn().savepoint();
                self.savepoints.push((sp, self.working.clone()));
            }
            Op::StatementSavepoint => {
                let sp = self.txn().statement_savepoint();
                self.savepoints.push((sp, self.working.clone()));
            }
            Op::RollbackKeep => {
                if let Some((sp, m)) = self.savepoints.pop() {
                    self.txn().rollback_to(&sp).unwrap();
                    self.working = m.clone();
                    self.savepoints.push((sp, m));
                }
            }
            Op::ReleaseSavepoint => {
                if let Some((sp, _)) = self.savepoints.pop() {
                    self.txn().release(sp).unwrap();
                }
            }
            Op::RollbackToSavepoint => {
                if let Some((sp, m)) = self.savepoints.pop() {
                    self.txn().rollback_to(&sp).unwrap();
                    self.working = m;
                    self.txn().release(sp).unwrap();
                }
            }
            Op::Reopen => {
                self.txn = None;
                self.savepoints.clear();
                self.snapshots.clear();
                self.store = open(&self.dev);
                self.working = self.committed.clone();
                let report = self.store.check().unwrap();
                assert!(report.is_ok(), "{:?}", report.problems);
                assert_state(&self.store.read().unwrap(), &self.committed);
            }
            Op::OpenSnapshot => {
                let s = self.store.read().unwrap();
                self.snapshots.push((s, self.committed.clone()));
            }
            Op::CheckSnapshots => {
                for (s, m) in &self.snapshots {
                    assert_state(s, m);
                }
            }
            Op::CloseSnapshot => {
                if !self.snapshots.is_empty() {
                    self.snapshots.remove(0);
                }
            }
            Op::ClearTree(t) => {
                self.txn().clear_tree(TREES[t]).unwrap();
                self.working.insert(TREES[t], BTreeMap::new());
            }
            Op::Compact => {
                self.apply(Op::Commit);
                let c = self.store.compact().unwrap();
                assert!(c.pages_after <= c.pages_before, "{c:?}");
                assert_eq!(
                    self.dev.to_bytes().len() as u64,
                    c.pages_after * 4096,
                    "the file ends at its last page: {c:?}"
                );
                let report = self.store.check().unwrap();
                assert!(report.is_ok(), "{:?}", report.problems);
                assert_state(&self.store.read().unwrap(), &self.committed);
            }
        }
    }
}

fn run(ops: Vec<Op>) {
    let dev = MemoryDevice::new();
    let store = open(&dev);
    let mut h = Harness {
        dev,
        store,
        txn: None,
        committed: Model::new(),
        working: Model::new(),
        savepoints: Vec::new(),
        snapshots: Vec::new(),
    };
    for op in ops {
        h.apply(op);
    }
    if let Some(t) = h.txn.as_ref() {
        assert_state(t, &h.working);
    }
    h.apply(Op::Commit);
    h.apply(Op::CheckSnapshots);
    h.snapshots.clear();
    h.apply(Op::Reopen);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, max_shrink_iters: 2000, ..ProptestConfig::default() })]

    #[test]
    fn storage_matches_model(ops in prop::collection::vec(op(), 1..120)) {
        BATCH_LIMIT.with(|l| l.set(16 << 20));
        run(ops);
    }

    #[test]
    fn storage_matches_model_while_spilling(ops in prop::collection::vec(op(), 1..120)) {
        // 40 KiB: a spill every few dirty pages.
        BATCH_LIMIT.with(|l| l.set(40 << 10));
        run(ops);
    }

    #[test]
    fn nested_savepoints_match_model(ops in prop::collection::vec(savepoint_heavy_op(), 1..60)) {
        // Statement savepoints inside and around copy-on-write ones, frozen
        // by tree clears and (40 KiB limit) by undo logs over 10 KiB.
        BATCH_LIMIT.with(|l| l.set(40 << 10));
        run(ops);
    }
}

/// Mostly savepoint operations, with enough writes between them to log,
/// freeze and spill.
fn savepoint_heavy_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..2usize, key(), value()).prop_map(|(t, k, v)| Op::Put(t, k, v)),
        3 => (0..2usize, any::<usize>()).prop_map(|(t, n)| Op::DeleteNth(t, n)),
        2 => (0..2usize, prop::collection::vec(any::<usize>(), 0..30), prop::collection::vec(key(), 0..3))
            .prop_map(|(t, at, other)| Op::RemoveSorted(t, at, other)),
        2 => (0..2usize, prop::collection::vec(key(), 0..30)).prop_map(|(t, k)| Op::InsertKeysSorted(t, k)),
        3 => Just(Op::StatementSavepoint),
        2 => Just(Op::Savepoint),
        2 => Just(Op::RollbackToSavepoint),
        2 => Just(Op::RollbackKeep),
        2 => Just(Op::ReleaseSavepoint),
        1 => (0..2usize).prop_map(Op::ClearTree),
        1 => Just(Op::Commit),
        1 => Just(Op::Reopen),
        1 => Just(Op::Compact),
    ]
}

/// Sorted appends (the rightmost-leaf fast path) interleaved with
/// savepoints, rollbacks, deletes, random puts, spills and reopens.
#[test]
fn sorted_appends_match_model() {
    use rand::Rng;
    run_seeded(
        &[(1u64, 16u64 << 20), (2, 40 << 10), (3, 40 << 10)],
        |rng| {
            let mut ops = Vec::new();
            let mut next = 0u32;
            for _ in 0..4000 {
                let t = rng.gen_range(0..2usize);
                match rng.gen_range(0..100) {
                    0..=79 => {
                        next += rng.gen_range(1..3);
                        let len = rng.gen_range(0..300);
                        ops.push(Op::Put(t, format!("k{next:08}").into_bytes(), vec![7; len]));
                    }
                    80..=83 => ops.push(Op::Put(
                        t,
                        format!("k{:08}", rng.gen_range(0..=next)).into_bytes(),
                        vec![1; 10],
                    )),
                    84..=86 => ops.push(Op::DeleteNth(t, rng.gen())),
                    87..=89 => ops.push(Op::StatementSavepoint),
                    90 => ops.push(Op::Savepoint),
                    91..=92 => ops.push(Op::RollbackKeep),
                    93..=94 => ops.push(Op::ReleaseSavepoint),
                    95 => ops.push(Op::RollbackToSavepoint),
                    96..=97 => ops.push(Op::Commit),
                    98 => ops.push(Op::Reopen),
                    _ => ops.push(Op::Range(t, None, None, rng.gen(), (true, true))),
                }
            }
            ops
        },
    );
}

/// Long sequences of small keys: deep trees, splits and merges at every level.
#[test]
fn large_random_workload_matches_model() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let mut ops = Vec::new();
    for round in 0..6 {
        for _ in 0..3000 {
            let k: u32 = rng.gen_range(0..20_000);
            let key = format!("k{k:08}").into_bytes();
            if rng.gen_bool(0.3) && round > 0 {
                ops.push(Op::Delete(0, key));
            } else {
                let len = rng.gen_range(0..120);
                ops.push(Op::Put(0, key, vec![round as u8; len]));
            }
        }
        ops.push(Op::OpenSnapshot);
        ops.push(Op::Commit);
        ops.push(Op::CheckSnapshots);
        if round % 2 == 1 {
            ops.push(Op::Reopen);
        }
    }
    run(ops);
}

/// Runs of neighbouring keys (ascending and descending, puts and deletes)
/// interleaved across trees: the leaf-hint fast path (a change in the leaf
/// the tree's last change reached, without a descent) with splits, merges,
/// savepoints, rollbacks, spills and commits between the runs.
#[test]
fn clustered_runs_match_model() {
    use rand::Rng;
    run_seeded(
        &[
            (11u64, 16u64 << 20),
            (12, 40 << 10),
            (13, 16 << 20),
            (14, 64 << 10),
        ],
        |rng| {
            let mut ops = Vec::new();
            for _ in 0..700 {
                let t = rng.gen_range(0..3usize);
                let mut k: i64 = rng.gen_range(0..30_000);
                let step: i64 = if rng.gen_bool(0.5) { 1 } else { -1 } * rng.gen_range(1..4);
                let delete = rng.gen_bool(0.35);
                let run = rng.gen_range(1..60);
                for _ in 0..run {
                    let key = format!("k{k:06}").into_bytes();
                    if delete {
                        ops.push(Op::Delete(t, key));
                    } else {
                        let max = if rng.gen_bool(0.05) { 900 } else { 40 };
                        let len = rng.gen_range(0..max);
                        ops.push(Op::Put(t, key, vec![(k % 251) as u8; len]));
                    }
                    k += step;
                }
                ops.extend(between_runs(rng, t));
            }
            ops.push(Op::Commit);
            ops.push(Op::Reopen);
            ops
        },
    );
}

/// Runs the operations `make` draws from each case's seed, under the
/// case's batch limit.
fn run_seeded(cases: &[(u64, u64)], make: impl Fn(&mut rand::rngs::SmallRng) -> Vec<Op>) {
    use rand::SeedableRng;
    for &(seed, limit) in cases {
        BATCH_LIMIT.with(|l| l.set(limit));
        run(make(&mut rand::rngs::SmallRng::seed_from_u64(seed)));
    }
}

/// What the clustered tests put between two runs of keys, now and then: a
/// savepoint taken, rolled back or released, a commit, or a scan of tree `t`.
fn between_runs(rng: &mut rand::rngs::SmallRng, t: usize) -> Option<Op> {
    use rand::Rng;
    match rng.gen_range(0..40) {
        0..=5 => Some(Op::StatementSavepoint),
        6 => Some(Op::Savepoint),
        7 => Some(Op::RollbackKeep),
        8..=9 => Some(Op::ReleaseSavepoint),
        10 => Some(Op::RollbackToSavepoint),
        11 => Some(Op::Commit),
        12 => Some(Op::Range(t, None, None, false, (true, true))),
        _ => None,
    }
}

/// An index's sorted batches over many leaves: runs of removals and of
/// empty-valued inserts, each batch a random sample of a key range (as an
/// UPDATE's or an INSERT run's queued index entries are), with repeats
/// and keys already there or absent, between savepoints, rollbacks,
/// commits, spills and reopens. The batches fill and drain leaves past
/// their split and underflow sizes, so both the one-pass path in the
/// hinted leaf and the per-key path it falls back to run.
#[test]
fn sorted_batches_match_model() {
    use rand::Rng;
    run_seeded(
        &[(21u64, 16u64 << 20), (22, 40 << 10), (23, 16 << 20)],
        |rng| {
            let mut ops = Vec::new();
            for _ in 0..120 {
                let t = rng.gen_range(0..2usize);
                let lo: u32 = rng.gen_range(0..40_000);
                let span = rng.gen_range(1..8_000);
                let n = rng.gen_range(1..1_500);
                let keys: Vec<Vec<u8>> = (0..n)
                    .map(|_| {
                        let k = lo + rng.gen_range(0..span);
                        // Mostly index-sized keys, a few long ones.
                        match rng.gen_range(0..50) {
                            0 => format!("k{k:08}{}", "x".repeat(rng.gen_range(100..900))),
                            _ => format!("k{k:08}"),
                        }
                        .into_bytes()
                    })
                    .collect();
                match rng.gen_bool(0.55) {
                    true => ops.push(Op::InsertKeysSorted(t, keys)),
                    false => ops.push(Op::RemoveSorted(t, Vec::new(), keys)),
                }
                if rng.gen_bool(0.1) {
                    ops.push(Op::RemoveSorted(
                        t,
                        (0..rng.gen_range(0..3_000)).map(|_| rng.gen()).collect(),
                        Vec::new(),
                    ));
                }
                ops.extend(between_runs(rng, t));
                match rng.gen_range(0..20) {
                    0 => ops.push(Op::Commit),
                    1 => ops.push(Op::Reopen),
                    _ => {}
                }
            }
            ops.push(Op::Commit);
            ops.push(Op::Reopen);
            ops
        },
    );
}

/// A page freed while an older savepoint can still bring it back, then
/// written by a spill, comes back with the checksum of what was written: a
/// one-flush commit lists it, and a stale checksum made reopening reject the
/// whole commit (the shrunk case the model test found).
#[test]
fn a_page_a_savepoint_brings_back_after_a_spill_keeps_its_checksum() {
    BATCH_LIMIT.with(|l| l.set(40 << 10));
    let put = |t: usize, k: &[u8], len: usize| Op::Put(t, k.to_vec(), vec![len as u8; len]);
    run(vec![
        put(0, &[], 500),
        put(2, &[0, 1, 1, 2], 51),
        put(0, &[0, 2, 2, 1, 3], 28),
        put(1, &[9; 21], 61),
        Op::StatementSavepoint,
        Op::Savepoint,
        put(1, &[2], 63),
        put(2, &[], 0),
        put(0, &[5; 16], 53),
        Op::RollbackToSavepoint,
    ]);
}

/// Removals that refill an underfull leaf from its sibling replace their
/// separator with the first key of the refilled right half, which may be
/// far longer than the old one (keys up to 1,024 bytes): the branch above
/// must split rather than outgrow its page (which once panicked at the
/// next spill or commit). Short and long keys mixed, removed in random
/// order, a commit and a full check every few hundred removals.
#[test]
fn removal_that_lengthens_a_separator_splits_the_branch() {
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    for seed in 0..12u64 {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let dev = MemoryDevice::new();
        let store = open(&dev);
        let mut model = BTreeMap::new();
        let mut t = store.write().unwrap();
        t.create_tree("alpha").unwrap();
        for _ in 0..3_000 {
            let len = match rng.gen_range(0..2) {
                0 => rng.gen_range(1..6),
                _ => rng.gen_range(700..=1024),
            };
            let k: Vec<u8> = (0..len).map(|_| rng.gen_range(0..3)).collect();
            t.insert("alpha", &k, b"v").unwrap();
            model.insert(k, b"v".to_vec());
        }
        t.commit().unwrap();
        let mut keys: Vec<Vec<u8>> = model.keys().cloned().collect();
        keys.shuffle(&mut rng);
        for chunk in keys.chunks(300) {
            let mut t = store.write().unwrap();
            for k in chunk {
                assert!(t.remove("alpha", k).unwrap());
                model.remove(k);
            }
            t.commit().unwrap();
            let report = store.check().unwrap();
            assert!(
                report.problems.is_empty(),
                "seed {seed}: {:?}",
                report.problems
            );
        }
        let r = store.read().unwrap();
        assert_eq!(dump(&r, "alpha"), model, "seed {seed}");
    }
}
