//! Crash and fault tests of the commit protocol. Four workloads run on the
//! fault device; each is crashed at every device write and flush, once
//! losing every unflushed write, once keeping them with the write in flight
//! torn, and once with a seeded random subset of unflushed pages. After each
//! crash the image is reopened with full validation and must hold exactly
//! the last acknowledged commit, or the one in flight if it became durable.
//! Then every call position is failed once with an I/O error and with
//! "disk full": the error surfaces, nothing committed is lost.

mod storage_common;

use storage_common::{contents, rng, Entries, Model};
use tinyjoin_engine::storage::{
    CommitMode, CrashMode, FaultDevice, FaultKind, MemoryDevice, Store, StoreOptions,
};
use tinyjoin_engine::Error;

#[derive(Clone)]
enum Op {
    Put(Vec<u8>, Vec<u8>),
    Del(Vec<u8>),
    /// Drops the tree, creates it again and bulk-loads these entries
    /// (ascending keys) with `load_sorted`.
    Reload(Vec<(Vec<u8>, Vec<u8>)>),
}

struct Workload {
    name: &'static str,
    txns: Vec<Vec<Op>>,
    /// Batch limit to run with (small ones make transactions spill).
    batch_limit: u64,
}

const DEFAULT_LIMIT: u64 = 16 << 20;

fn key(n: u64) -> Vec<u8> {
    format!("key{n:06}").into_bytes()
}

fn workloads() -> Vec<Workload> {
    let mut r = rng(1);
    let bulk = vec![
        (0..1500).map(|i| Op::Put(key(i), vec![b'v'; 60])).collect(),
        (1500..1800)
            .map(|i| Op::Put(key(i), vec![b'w'; 60]))
            .collect(),
    ];
    let mut updates = vec![(0..300)
        .map(|i| Op::Put(key(i), vec![1; 40]))
        .collect::<Vec<_>>()];
    for t in 0..30 {
        let ops = (0..15)
            .map(|_| {
                let k = key(r() % 400);
                if r().is_multiple_of(3) {
                    Op::Del(k)
                } else {
                    Op::Put(k, vec![t as u8; (r() % 200) as usize])
                }
            })
            .collect();
        updates.push(ops);
    }
    let large = (0..8)
        .map(|t| {
            (0..3)
                .map(|i| {
                    let k = key((t * 2 + i) % 7);
                    if t > 3 && i == 2 {
                        Op::Del(k)
                    } else {
                        Op::Put(
                            k,
                            vec![
                                (t * 3 + i) as u8;
                                3000 + ((t * 7919 + i * 104_729) % 30_000) as usize
                            ],
                        )
                    }
                })
                .collect()
        })
        .collect();
    let small = (0..120)
        .map(|i| vec![Op::Put(key(i % 90), format!("value {i}").into_bytes())])
        .collect();
    let spilling = (0..3u64)
        .map(|t| {
            (0..700)
                .map(|i| {
                    let k = key((i * 7 + t * 13) % 900);
                    if t > 0 && i % 5 == 0 {
                        Op::Del(k)
                    } else {
                        Op::Put(k, vec![t as u8; 90])
                    }
                })
                .collect()
        })
        .collect();
    // Bulk loads (full leaves, branches built bottom-up), some values
    // overflowing, then changes to the loaded tree, then a load that
    // spills under a small limit.
    let loaded = |from: u64, n: u64, len: u64| -> Vec<(Vec<u8>, Vec<u8>)> {
        (from..from + n)
            .map(|i| {
                (
                    key(i),
                    vec![(i % 251) as u8; (len + i % 97 * (i % 29 / 28) * 80) as usize],
                )
            })
            .collect()
    };
    let loads = vec![
        vec![Op::Reload(loaded(0, 1200, 40))],
        (0..200)
            .map(|i| {
                if i % 3 == 0 {
                    Op::Del(key(i * 5))
                } else {
                    Op::Put(key(i * 7 + 5000), vec![7; 50])
                }
            })
            .collect(),
        vec![Op::Reload(loaded(100, 900, 120))],
    ];
    vec![
        Workload {
            name: "bulk loads with load_sorted",
            txns: loads.clone(),
            batch_limit: DEFAULT_LIMIT,
        },
        Workload {
            name: "spilling bulk loads with load_sorted",
            txns: loads,
            batch_limit: 48 << 10,
        },
        Workload {
            name: "bulk load",
            txns: bulk,
            batch_limit: DEFAULT_LIMIT,
        },
        Workload {
            name: "random updates and deletes",
            txns: updates,
            batch_limit: DEFAULT_LIMIT,
        },
        Workload {
            name: "large values",
            txns: large,
            batch_limit: DEFAULT_LIMIT,
        },
        Workload {
            name: "many small transactions",
            txns: small,
            batch_limit: DEFAULT_LIMIT,
        },
        Workload {
            name: "spilling transactions",
            txns: spilling,
            batch_limit: 48 << 10,
        },
    ]
}

thread_local! {
    static LIMIT: std::cell::Cell<u64> = const { std::cell::Cell::new(DEFAULT_LIMIT) };
    static MODE: std::cell::Cell<CommitMode> = const { std::cell::Cell::new(CommitMode::TwoFlush) };
}

fn opts() -> StoreOptions {
    StoreOptions {
        cache_pages: 32,
        commit: MODE.with(|m| m.get()),
        batch_limit_bytes: LIMIT.with(|l| l.get()),
        ..StoreOptions::default()
    }
}

/// A fresh store's bytes, with the tree created.
fn base_image() -> Vec<u8> {
    let dev = MemoryDevice::new();
    let store = Store::open(Box::new(dev.clone()), opts()).unwrap();
    let mut t = store.write().unwrap();
    t.create_tree("t").unwrap();
    t.commit().unwrap();
    dev.to_bytes()
}

/// Runs the workload until an error; returns (acknowledged model, model of
/// the commit in flight at the error, if the error came from commit).
fn run_until_error(store: &Store, w: &Workload) -> (Model, Option<Model>, Option<Error>) {
    let mut acked = Model::new();
    for ops in &w.txns {
        let mut next = acked.clone();
        let mut txn = match store.write() {
            Ok(t) => t,
            Err(e) => return (acked, None, Some(e)),
        };
        for op in ops {
            let r = match op {
                Op::Put(k, v) => {
                    next.insert(k.clone(), v.clone());
                    txn.insert("t", k, v).map(|_| ())
                }
                Op::Del(k) => {
                    next.remove(k);
                    txn.remove("t", k).map(|_| ())
                }
                Op::Reload(entries) => {
                    next = entries.iter().cloned().collect();
                    txn.drop_tree("t")
                        .and_then(|_| txn.create_tree("t"))
                        .and_then(|_| txn.load_sorted("t", &mut Entries(entries.iter())))
                        .map(|_| ())
                }
            };
            if let Err(e) = r {
                return (acked, None, Some(e));
            }
        }
        match txn.commit() {
            Ok(()) => acked = next,
            Err(e) => return (acked, Some(next), Some(e)),
        }
    }
    (acked, None, None)
}

/// Reopens `image` with full validation and checks it holds `acked` or
/// `in_flight`.
fn verify_image(image: Vec<u8>, acked: &Model, in_flight: Option<&Model>, what: &str) {
    let store = Store::open(Box::new(MemoryDevice::from_bytes(image)), opts())
        .unwrap_or_else(|e| panic!("{what}: reopen failed: {e}"));
    let report = store.check().unwrap();
    assert!(report.is_ok(), "{what}: check found {:?}", report.problems);
    let got = contents(&store);
    let ok = &got == acked || in_flight.is_some_and(|m| &got == m);
    assert!(
        ok,
        "{what}: state after reopen is neither the acknowledged commit nor the one in flight"
    );
    // The reopened store must accept and keep a new commit.
    let mut t = store.write().unwrap();
    t.insert("t", b"after-crash", b"1").unwrap();
    t.commit().unwrap();
}

fn total_calls(w: &Workload) -> u64 {
    LIMIT.with(|l| l.set(w.batch_limit));
    let (dev, handle) = FaultDevice::new(base_image());
    let store = Store::open(Box::new(dev), opts()).unwrap();
    let (_, _, err) = run_until_error(&store, w);
    assert!(err.is_none(), "{}: fault-free run failed: {err:?}", w.name);
    handle.calls()
}

#[test]
fn crash_at_every_write_and_flush_two_flush_commits() {
    crash_at_every_write_and_flush(CommitMode::TwoFlush);
}

#[test]
fn crash_at_every_write_and_flush_one_flush_commits() {
    crash_at_every_write_and_flush(CommitMode::OneFlush);
}

fn crash_at_every_write_and_flush(mode: CommitMode) {
    MODE.with(|m| m.set(mode));
    let mut points = 0u64;
    for w in workloads() {
        let calls = total_calls(&w);
        let mut modes = vec![CrashMode::DropUnflushed, CrashMode::TearInFlight];
        modes.extend((0..2).map(|s| CrashMode::Random(s * 31 + 5)));
        for n in 1..=calls {
            for &mode in &modes {
                let (dev, handle) = FaultDevice::new(base_image());
                let store = Store::open(Box::new(dev), opts()).unwrap();
                handle.crash_at(n);
                let (acked, in_flight, err) = run_until_error(&store, &w);
                assert!(
                    err.is_some() && handle.crashed(),
                    "{}: no crash at call {n}",
                    w.name
                );
                drop(store);
                let what = format!("{} crash at call {n}/{calls} ({mode:?})", w.name);
                verify_image(handle.crash_image(mode), &acked, in_flight.as_ref(), &what);
                points += 1;
            }
        }
    }
    println!("crash points: {points} ({mode:?})");
    assert!(points >= 1000, "only {points} crash points");
}

#[test]
fn fail_every_call_with_io_error_and_disk_full() {
    for mode in [CommitMode::TwoFlush, CommitMode::OneFlush] {
        MODE.with(|m| m.set(mode));
        fail_every_call();
    }
}

fn fail_every_call() {
    let mut points = 0u64;
    for w in workloads() {
        let calls = total_calls(&w);
        for n in 1..=calls {
            for kind in [FaultKind::Io, FaultKind::DiskFull] {
                let (dev, handle) = FaultDevice::new(base_image());
                let store = Store::open(Box::new(dev), opts()).unwrap();
                handle.fail_at(n, kind);
                let (acked, in_flight, err) = run_until_error(&store, &w);
                let err = err
                    .unwrap_or_else(|| panic!("{}: failure at call {n} was not reported", w.name));
                if kind == FaultKind::DiskFull {
                    assert_eq!(err, Error::DiskFull, "{}: call {n}", w.name);
                }
                // Poisoned: nothing more is accepted until reopen.
                assert!(
                    store.write().is_err(),
                    "{}: store still writable after a failed call {n}",
                    w.name
                );
                drop(store);
                let what = format!("{} {kind:?} at call {n}/{calls}", w.name);
                verify_image(handle.current(), &acked, in_flight.as_ref(), &what);
                verify_image(
                    handle.crash_image(CrashMode::DropUnflushed),
                    &acked,
                    in_flight.as_ref(),
                    &what,
                );
                points += 1;
            }
        }
    }
    println!("fault points: {points}");
}
