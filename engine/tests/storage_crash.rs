//! Crash and fault tests of the commit protocol. Nine workloads run on the
//! fault device; each is crashed at every device write and flush, once
//! losing every unflushed write, once keeping them with the write in flight
//! torn, and once with a seeded random subset of unflushed pages. After each
//! crash the image is reopened with full validation and must hold exactly
//! the last acknowledged commit, or the one in flight if it became durable.
//! Then every call position is failed once with an I/O error and with
//! "disk full": the error surfaces, nothing committed is lost.
//!
//! Deferred commits (`CommitMode::Deferred`) run the same workloads with a
//! sync after every third transaction: a crash must leave one of the
//! states committed since the last completed sync, whole. One-flush commits
//! sync (confirm) after every third transaction too: a crash inside a
//! confirmation must leave the confirmed state. Compactions (`Store::compact`,
//! passes of moved pages, a confirmation and a cut of the file) run between
//! transactions of four workloads: a crash anywhere in one leaves the state
//! it started from.

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
    /// A savepoint, these puts and deletes, then a rollback to it (and its
    /// release): none of them stays, whatever they spilled meanwhile.
    RolledBack(Vec<Op>),
    /// `Store::compact`, alone in its step (no transaction).
    Compact,
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
    let mut large: Vec<Vec<Op>> = (0..8)
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
    // Savepoints rolled back after changes that spill under a small limit
    // (pages a savepoint brings back, written meanwhile), between kept ones.
    let rolled_back = (0..4u64)
        .map(|t| {
            let change = |i: u64, v: u8| {
                let k = key((i * 11 + t * 17) % 700);
                if i.is_multiple_of(4) {
                    Op::Del(k)
                } else {
                    Op::Put(k, vec![v; 80])
                }
            };
            let kept = (0..200).map(|i| change(i * 3, t as u8));
            std::iter::once(Op::RolledBack((0..300).map(|i| change(i, 0xee)).collect()))
                .chain(kept)
                .chain([Op::RolledBack(
                    (0..200).map(|i| change(i + 500, 0xdd)).collect(),
                )])
                .collect()
        })
        .collect();
    // A file most of whose pages the deletes free, before and among the
    // ones kept, 8-page overflow runs among them: the first compaction's
    // packing passes stop short (the holes are shorter than a run) and a
    // rebuild pass copies everything after the end of the file and back.
    let compacted = vec![
        (0..6000)
            .map(|i| {
                Op::Put(
                    key(i),
                    vec![(i % 7) as u8; if i % 150 == 9 { 30_000 } else { 90 }],
                )
            })
            .collect(),
        (0..6000)
            .filter(|i| i % 150 != 9 && i % 10 != 0)
            .map(|i| Op::Del(key(i)))
            .collect(),
        vec![Op::Compact],
        (0..40)
            .map(|i| Op::Put(key(7000 + i), vec![3; 200]))
            .collect(),
        (0..6000).step_by(20).map(|i| Op::Del(key(i))).collect(),
        vec![Op::Compact],
    ];
    let mut loads = vec![
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
    updates.insert(15, vec![Op::Compact]);
    updates.push(vec![Op::Compact]);
    large.push(vec![Op::Compact]);
    loads.push(vec![Op::Compact]);
    vec![
        Workload {
            name: "deletes and compactions",
            txns: compacted,
            batch_limit: DEFAULT_LIMIT,
        },
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
        Workload {
            name: "savepoints rolled back over spills",
            txns: rolled_back,
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

/// How a workload run ended.
struct Run {
    /// The last acknowledged commit.
    acked: Model,
    /// The commit in flight at the error, if the error came from commit.
    in_flight: Option<Model>,
    err: Option<Error>,
    /// Deferred commits: the states committed since the last completed
    /// sync (that one first), any of which a crash may leave.
    unsynced: Vec<Model>,
}

/// Transactions between two syncs of a deferred workload.
const SYNC_EVERY: usize = 3;

/// Runs the workload until an error.
fn run_until_error(store: &Store, w: &Workload) -> Run {
    let mode = MODE.with(|m| m.get());
    let deferred = mode == CommitMode::Deferred;
    let mut acked = Model::new();
    let mut unsynced = vec![acked.clone()];
    let end = |acked, in_flight, err, unsynced| Run {
        acked,
        in_flight,
        err,
        unsynced,
    };
    for (i, ops) in w.txns.iter().enumerate() {
        if let [Op::Compact] = ops.as_slice() {
            // Syncs first and last: every state before it is durable.
            if let Err(e) = store.compact() {
                return end(acked, None, Some(e), unsynced);
            }
            unsynced = vec![acked.clone()];
            continue;
        }
        let mut next = acked.clone();
        let mut txn = match store.write() {
            Ok(t) => t,
            Err(e) => return end(acked, None, Some(e), unsynced),
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
                Op::Compact => unreachable!("a compaction is a step of its own"),
                Op::Reload(entries) => {
                    next = entries.iter().cloned().collect();
                    txn.drop_tree("t")
                        .and_then(|_| txn.create_tree("t"))
                        .and_then(|_| txn.load_sorted("t", &mut Entries(entries.iter())))
                        .map(|_| ())
                }
                Op::RolledBack(inner) => {
                    let sp = txn.savepoint();
                    inner
                        .iter()
                        .try_for_each(|op| match op {
                            Op::Put(k, v) => txn.insert("t", k, v).map(|_| ()),
                            Op::Del(k) => txn.remove("t", k).map(|_| ()),
                            _ => unreachable!("a rolled-back op is a put or a delete"),
                        })
                        .and_then(|()| txn.rollback_to(&sp))
                        .and_then(|()| txn.release(sp))
                }
            };
            if let Err(e) = r {
                return end(acked, None, Some(e), unsynced);
            }
        }
        match txn.commit() {
            Ok(()) => acked = next,
            Err(e) => return end(acked, Some(next), Some(e), unsynced),
        }
        if mode == CommitMode::OneFlush && (i + 1) % SYNC_EVERY == 0 {
            if let Err(e) = store.sync() {
                return end(acked, None, Some(e), unsynced);
            }
        }
        if !deferred {
            continue;
        }
        // A commit that outgrew the deferred limits synced by itself.
        if !store.needs_sync() {
            unsynced.clear();
        }
        unsynced.push(acked.clone());
        if (i + 1) % SYNC_EVERY == 0 {
            if let Err(e) = store.sync() {
                return end(acked, None, Some(e), unsynced);
            }
            unsynced = vec![acked.clone()];
        }
    }
    end(acked, None, None, unsynced)
}

/// Reopens `image` with full validation and checks it holds the run's
/// acknowledged commit, the one in flight, or (deferred commits) one
/// committed since the last sync.
fn verify_image(image: Vec<u8>, run: &Run, what: &str) {
    let (acked, in_flight) = (&run.acked, run.in_flight.as_ref());
    let store = Store::open(Box::new(MemoryDevice::from_bytes(image)), opts())
        .unwrap_or_else(|e| panic!("{what}: reopen failed: {e}"));
    let report = store.check().unwrap();
    assert!(report.is_ok(), "{what}: check found {:?}", report.problems);
    let got = contents(&store);
    let ok = &got == acked || in_flight.is_some_and(|m| &got == m) || run.unsynced.contains(&got);
    assert!(
        ok,
        "{what}: state after reopen is neither the acknowledged commit, the one in flight, nor one since the last sync"
    );
    // The reopened store must accept and keep a new commit.
    let mut t = store.write().unwrap();
    t.insert("t", b"after-crash", b"1").unwrap();
    t.commit().unwrap();
}

/// Device calls of a fault-free run: (made by the open, in all). Opening
/// flushes once after a superblock that was written without a flush after
/// it (a fresh store's included).
fn total_calls(w: &Workload) -> (u64, u64) {
    LIMIT.with(|l| l.set(w.batch_limit));
    let (dev, handle) = FaultDevice::new(base_image());
    let store = Store::open(Box::new(dev), opts()).unwrap();
    let opened = handle.calls();
    let run = run_until_error(&store, w);
    assert!(
        run.err.is_none(),
        "{}: fault-free run failed: {:?}",
        w.name,
        run.err
    );
    (opened, handle.calls())
}

#[test]
fn crash_at_every_write_and_flush_two_flush_commits() {
    crash_at_every_write_and_flush(CommitMode::TwoFlush);
}

#[test]
fn crash_at_every_write_and_flush_one_flush_commits() {
    crash_at_every_write_and_flush(CommitMode::OneFlush);
}

#[test]
fn crash_at_every_write_and_flush_deferred_commits() {
    crash_at_every_write_and_flush(CommitMode::Deferred);
}

fn crash_at_every_write_and_flush(mode: CommitMode) {
    MODE.with(|m| m.set(mode));
    let mut points = 0u64;
    for w in workloads() {
        let (opened, calls) = total_calls(&w);
        let mut modes = vec![CrashMode::DropUnflushed, CrashMode::TearInFlight];
        modes.extend((0..2).map(|s| CrashMode::Random(s * 31 + 5)));
        if mode == CommitMode::Deferred {
            modes.extend([0, 1, 5, 17].map(CrashMode::LoseOnePage));
        }
        for n in opened + 1..=calls {
            for &crash in &modes {
                let (dev, handle) = FaultDevice::new(base_image());
                let store = Store::open(Box::new(dev), opts()).unwrap();
                handle.crash_at(n);
                let run = run_until_error(&store, &w);
                assert!(
                    run.err.is_some() && handle.crashed(),
                    "{}: no crash at call {n}",
                    w.name
                );
                drop(store);
                let what = format!("{} crash at call {n}/{calls} ({crash:?})", w.name);
                verify_image(handle.crash_image(crash), &run, &what);
                points += 1;
            }
        }
    }
    println!("crash points: {points} ({mode:?})");
    assert!(points >= 1000, "only {points} crash points");
}

#[test]
fn fail_every_call_with_io_error_and_disk_full() {
    for mode in [
        CommitMode::TwoFlush,
        CommitMode::OneFlush,
        CommitMode::Deferred,
    ] {
        MODE.with(|m| m.set(mode));
        fail_every_call();
    }
}

fn fail_every_call() {
    let mut points = 0u64;
    for w in workloads() {
        let (opened, calls) = total_calls(&w);
        for n in opened + 1..=calls {
            for kind in [FaultKind::Io, FaultKind::DiskFull] {
                let (dev, handle) = FaultDevice::new(base_image());
                let store = Store::open(Box::new(dev), opts()).unwrap();
                handle.fail_at(n, kind);
                let run = run_until_error(&store, &w);
                let err = run
                    .err
                    .clone()
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
                verify_image(handle.current(), &run, &what);
                verify_image(handle.crash_image(CrashMode::DropUnflushed), &run, &what);
                points += 1;
            }
        }
    }
    println!("fault points: {points}");
}
