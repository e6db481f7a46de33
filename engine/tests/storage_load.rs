//! `WriteTxn::load_sorted`: an empty tree built bottom-up from sorted
//! entries must read, validate, change and reopen exactly as the same
//! entries inserted one by one; bad input fails cleanly and leaks no page.

mod storage_common;

use storage_common::{contents, rng, Entries, Model};
use tinyjoin_engine::storage::format::MAX_KEY_LEN;
use tinyjoin_engine::storage::{MemoryDevice, Store, StoreOptions, TreeRead};
use tinyjoin_engine::Error;

fn opts(limit: u64) -> StoreOptions {
    StoreOptions {
        cache_pages: 64,
        batch_limit_bytes: limit,
        ..StoreOptions::default()
    }
}

/// `n` distinct entries: key lengths from 0 to MAX_KEY_LEN (long keys make
/// branches of few children), values empty, short or overflowing.
fn entries(seed: u64, n: usize, long_keys: bool) -> Model {
    let mut r = rng(seed);
    let mut m = Model::new();
    while m.len() < n {
        let len = match r() % 10 {
            0 if long_keys => MAX_KEY_LEN - (r() % 3) as usize,
            1 => 0,
            _ => 1 + (r() % 24) as usize,
        };
        let key: Vec<u8> = (0..len).map(|_| (r() % 4) as u8).collect();
        let value = match r() % 20 {
            0 => vec![9; 5000 + (r() % 9000) as usize],
            1..=5 => Vec::new(),
            _ => vec![(r() % 256) as u8; (r() % 60) as usize],
        };
        m.insert(key, value);
    }
    m
}

fn check(store: &Store, what: &str) {
    let report = store.check().unwrap();
    assert!(report.is_ok(), "{what}: {:?}", report.problems);
}

#[test]
fn loaded_trees_read_validate_change_and_reopen_like_inserted_ones() {
    for (seed, n, long_keys, limit) in [
        (1, 0, false, 16 << 20),
        (2, 1, false, 16 << 20),
        (3, 2, true, 16 << 20),
        (4, 300, true, 16 << 20),
        (5, 6000, false, 16 << 20),
        (6, 6000, true, 64 << 10),
        (7, 40_000, false, 256 << 10),
    ] {
        let what = format!("seed {seed}, {n} entries, limit {limit}");
        let mut model = entries(seed, n, long_keys);
        let dev = MemoryDevice::new();
        let store = Store::open(Box::new(dev.clone()), opts(limit)).unwrap();
        let mut t = store.write().unwrap();
        t.create_tree("t").unwrap();
        let list: Vec<(Vec<u8>, Vec<u8>)> = model.clone().into_iter().collect();
        assert_eq!(
            t.load_sorted("t", &mut Entries(list.iter())).unwrap(),
            n as u64
        );
        assert_eq!(t.tree_len("t").unwrap(), n as u64, "{what}");
        t.commit().unwrap();
        check(&store, &what);
        assert_eq!(contents(&store), model, "{what}: after the load");

        // Changes to the loaded tree: inserts between and around its keys,
        // removals, replacements.
        let mut r = rng(seed + 100);
        let mut t = store.write().unwrap();
        let keys: Vec<Vec<u8>> = model.keys().cloned().collect();
        for i in 0..(n / 2 + 50) {
            if !keys.is_empty() && i % 3 == 0 {
                let k = &keys[(r() % keys.len() as u64) as usize];
                t.remove("t", k).unwrap();
                model.remove(k);
            } else {
                let k: Vec<u8> = (0..1 + r() % 20).map(|_| (r() % 4) as u8).collect();
                let v = vec![(i % 256) as u8; (r() % 80) as usize];
                t.insert("t", &k, &v).unwrap();
                model.insert(k, v);
            }
        }
        t.commit().unwrap();
        check(&store, &what);
        assert_eq!(contents(&store), model, "{what}: after changes");
        drop(store);
        let store = Store::open(Box::new(dev.clone()), opts(limit)).unwrap();
        check(&store, &what);
        assert_eq!(contents(&store), model, "{what}: after reopening");
    }
}

#[test]
fn keys_out_of_order_fail_and_leave_the_tree_empty_without_leaking_pages() {
    let model = entries(8, 3000, false);
    let mut list: Vec<(Vec<u8>, Vec<u8>)> = model.into_iter().collect();
    list.swap(2500, 2501);
    let store = Store::open(Box::new(MemoryDevice::new()), opts(16 << 20)).unwrap();
    let mut t = store.write().unwrap();
    t.create_tree("t").unwrap();
    let err = t.load_sorted("t", &mut Entries(list.iter())).unwrap_err();
    assert!(matches!(err, Error::Misuse(_)), "{err:?}");
    assert_eq!(t.tree_len("t").unwrap(), 0);
    // Equal keys are out of order too.
    let twice = [(b"a".to_vec(), vec![]), (b"a".to_vec(), vec![])];
    let err = t.load_sorted("t", &mut Entries(twice.iter())).unwrap_err();
    assert!(matches!(err, Error::Misuse(_)), "{err:?}");
    t.insert("t", b"k", b"v").unwrap();
    t.commit().unwrap();
    check(&store, "after failed loads");
    let expected: Model = [(b"k".to_vec(), b"v".to_vec())].into_iter().collect();
    assert_eq!(contents(&store), expected);
}

#[test]
fn a_tree_that_is_not_empty_is_inserted_into() {
    let model = entries(9, 2000, false);
    let list: Vec<(Vec<u8>, Vec<u8>)> = model.clone().into_iter().collect();
    let store = Store::open(Box::new(MemoryDevice::new()), opts(16 << 20)).unwrap();
    let mut t = store.write().unwrap();
    t.create_tree("t").unwrap();
    t.insert("t", b"\xff\xff", b"last").unwrap();
    t.load_sorted("t", &mut Entries(list.iter())).unwrap();
    t.commit().unwrap();
    let mut expected = model;
    expected.insert(b"\xff\xff".to_vec(), b"last".to_vec());
    check(&store, "load into a non-empty tree");
    assert_eq!(contents(&store), expected);
}

/// Pages in use in the newest commit (the file's pages less the free ones).
fn live_pages(store: &Store) -> u64 {
    let report = store.check().unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    report.pages - report.free_pages
}

#[test]
fn loaded_leaves_leave_room_for_a_few_insertions_each() {
    // 24,000 eight-byte keys with empty values, then one new key after
    // every 100th: a few per leaf, as an UPDATE of an indexed column gives
    // an index built by CREATE INDEX. Full leaves would all split.
    let key = |i: u64, extra: u8| {
        let mut k = i.to_be_bytes().to_vec();
        if extra > 0 {
            k.push(extra);
        }
        k
    };
    let list: Vec<(Vec<u8>, Vec<u8>)> = (0..24_000u64).map(|i| (key(i, 0), vec![])).collect();
    let store = Store::open(Box::new(MemoryDevice::new()), opts(16 << 20)).unwrap();
    let mut t = store.write().unwrap();
    t.create_tree("t").unwrap();
    t.load_sorted("t", &mut Entries(list.iter())).unwrap();
    t.commit().unwrap();
    let loaded = live_pages(&store);

    let mut t = store.write().unwrap();
    for i in (0..24_000u64).step_by(100) {
        t.insert("t", &key(i, 1), b"").unwrap();
    }
    t.commit().unwrap();
    // The old versions of the changed leaves are free now; the free list
    // that records them may take a page more.
    let grown = live_pages(&store) - loaded;
    assert!(
        grown <= 1,
        "{grown} more pages in use after 240 insertions into {loaded}"
    );
    assert_eq!(contents(&store).len(), 24_240);
}
