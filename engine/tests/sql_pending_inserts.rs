//! INSERTs leave the entries of indexes that are not UNIQUE waiting across
//! statements of a transaction (`exec::pending`), written in key order
//! before anything can read them. Random transactions of INSERTs (single
//! and many rows, failing on a duplicate rowid, a NOT NULL or a UNIQUE
//! index part-way, OR IGNORE), into two tables in turn, mixed with the
//! statements that must see the entries first (SELECTs through each
//! index, UPDATE, DELETE, INSERT OR REPLACE, INSERT ... SELECT), and with
//! SAVEPOINT, ROLLBACK TO, RELEASE, COMMIT and ROLLBACK. After every
//! statement the queries through every index agree with SQLite; at the
//! end the database check finds every index exactly as its rows imply.
//! Run at the default batch limit and at one small enough that the queue
//! fills within a statement. And a device failure at each of the 113
//! writes and flushes of such a transaction (disk full and I/O error)
//! leaves it wholly absent or wholly there, never a broken index.

mod common;

use common::sqlite_rows;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tinyjoin_engine::{Database, DbOptions, Params};

const SCHEMA: &[&str] = &[
    "CREATE TABLE t(id INTEGER PRIMARY KEY, b INTEGER NOT NULL, c TEXT, u INTEGER)",
    "CREATE INDEX t_b ON t(b)",
    "CREATE INDEX t_cb ON t(c, b)",
    "CREATE INDEX t_lc ON t(lower(c)) WHERE b > 20",
    "CREATE UNIQUE INDEX t_u ON t(u)",
    "CREATE TABLE s(id INTEGER PRIMARY KEY, k INTEGER)",
    "CREATE INDEX s_k ON s(k)",
];

const CHECKS: &[&str] = &[
    "SELECT * FROM t ORDER BY id",
    "SELECT id FROM t WHERE b = 7 ORDER BY id",
    "SELECT count(*), sum(id) FROM t WHERE b BETWEEN 10 AND 30",
    "SELECT id FROM t WHERE c = 'C1' AND b > 5 ORDER BY id",
    "SELECT id FROM t WHERE lower(c) = 'c2' AND b > 20 ORDER BY id",
    "SELECT id FROM t WHERE u = 3",
    "SELECT id, k FROM s WHERE k = 4 ORDER BY id",
    "SELECT count(*) FROM s WHERE k > 5",
];

fn row(rng: &mut SmallRng, id: i64) -> String {
    let b = if rng.gen_range(0..30) == 0 {
        "NULL".to_string()
    } else {
        rng.gen_range(0..40).to_string()
    };
    let c = ["'C1'", "'c2'", "'C2'", "NULL", "'x'"][rng.gen_range(0..5)];
    let u = if rng.gen_range(0..3) == 0 {
        rng.gen_range(0..30).to_string()
    } else {
        "NULL".into()
    };
    format!("({id}, {b}, {c}, {u})")
}

fn statement(rng: &mut SmallRng, next: &mut i64) -> String {
    let mut id = || {
        // Mostly new rowids, sometimes one that may exist (a conflict).
        if *next > 0 && rng.gen_range(0..8) == 0 {
            rng.gen_range(1..=*next)
        } else {
            *next += 1;
            *next
        }
    };
    let ids: Vec<i64> = (0..4).map(|_| id()).collect();
    match rng.gen_range(0..20) {
        0..=6 => format!("INSERT INTO t VALUES {}", row(rng, ids[0])),
        7 => {
            let n = rng.gen_range(2..5);
            let rows: Vec<String> = ids[..n].iter().map(|&i| row(rng, i)).collect();
            format!("INSERT INTO t VALUES {}", rows.join(", "))
        }
        8 => format!("INSERT OR IGNORE INTO t VALUES {}", row(rng, ids[0])),
        9 | 10 => format!(
            "INSERT INTO s VALUES ({}, {})",
            ids[0],
            rng.gen_range(0..10)
        ),
        11 => format!("INSERT OR REPLACE INTO t VALUES {}", row(rng, ids[0])),
        12 => format!(
            "INSERT INTO s SELECT id + 100000, b FROM t WHERE b = {}",
            rng.gen_range(0..40)
        ),
        13 => format!("UPDATE t SET b = b + 1 WHERE b = {}", rng.gen_range(0..40)),
        14 => format!("DELETE FROM t WHERE id % 7 = {}", rng.gen_range(0..7)),
        15 => format!("DELETE FROM s WHERE k = {}", rng.gen_range(0..10)),
        16 => format!("SELECT count(*) FROM t WHERE b = {}", rng.gen_range(0..40)),
        17 => ["SAVEPOINT a", "SAVEPOINT b"][rng.gen_range(0..2)].into(),
        18 => ["ROLLBACK TO a", "ROLLBACK TO b"][rng.gen_range(0..2)].into(),
        _ => ["RELEASE a", "RELEASE b"][rng.gen_range(0..2)].into(),
    }
}

fn run_seed(seed: u64, batch_limit: Option<u64>) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut opts = DbOptions::default();
    if let Some(limit) = batch_limit {
        opts.batch_limit_bytes = limit;
    }
    let (db, lite) = common::memory_pair(opts);
    let mut c = db.connect();
    let run = |sql: &str, c: &mut tinyjoin_engine::Connection| {
        let a = c.execute(sql, &Params::None).map(|_| ());
        let b = lite.execute_batch(sql);
        assert_eq!(
            a.is_ok(),
            b.is_ok(),
            "seed {seed}, limit {batch_limit:?}: {sql}: {a:?} vs {b:?}"
        );
    };
    let agree = |c: &mut tinyjoin_engine::Connection, after: &str| {
        for q in CHECKS {
            let ours = c.execute(q, &Params::None).unwrap().rows;
            assert_eq!(
                ours,
                sqlite_rows(&lite, q),
                "seed {seed}, limit {batch_limit:?}: {q} after {after}"
            );
        }
    };
    for s in SCHEMA {
        run(s, &mut c);
    }
    let mut next = 0i64;
    for _txn in 0..12 {
        run("BEGIN", &mut c);
        let statements = rng.gen_range(1..60);
        for _ in 0..statements {
            let sql = statement(&mut rng, &mut next);
            run(&sql, &mut c);
            // Checking after every statement would write the entries out
            // each time; check now and then, so that they also wait.
            if rng.gen_range(0..6) == 0 {
                agree(&mut c, &sql);
            }
        }
        let end = ["COMMIT", "COMMIT", "ROLLBACK"][rng.gen_range(0..3)];
        run(end, &mut c);
        agree(&mut c, end);
    }
    // Autocommit INSERTs of many rows (one statement's entries wait until
    // its commit).
    for _ in 0..5 {
        let rows: Vec<String> = (0..rng.gen_range(1..40))
            .map(|_| {
                next += 1;
                row(&mut rng, next)
            })
            .collect();
        let sql = format!("INSERT INTO t VALUES {}", rows.join(", "));
        run(&sql, &mut c);
        agree(&mut c, &sql);
    }
    let report = db.check().unwrap();
    assert!(
        report.is_ok(),
        "seed {seed}, limit {batch_limit:?}: {:?}",
        report.problems
    );
}

#[test]
fn waiting_index_entries_are_always_seen_and_agree_with_sqlite() {
    for seed in 0..8 {
        run_seed(seed, None);
    }
}

#[test]
fn a_full_queue_writes_entries_at_once_under_a_small_batch_limit() {
    for seed in 100..104 {
        run_seed(seed, Some(16 * 1024));
    }
}

/// A device failure at any write or flush while entries wait, are written
/// out mid-transaction (a read through the index) or at COMMIT, with a
/// batch limit small enough that the transaction spills: the statement
/// fails with a typed error, and the file reopens valid with the
/// transaction either wholly absent or wholly there.
#[test]
fn a_device_failure_while_entries_wait_loses_nothing_committed() {
    use tinyjoin_engine::storage::{FaultDevice, FaultKind};
    use tinyjoin_engine::{Error, Value};
    let opts = DbOptions {
        batch_limit_bytes: 64 * 1024,
        ..DbOptions::default()
    };
    let base = {
        let (dev, handle) = FaultDevice::new(Vec::new());
        let db = Database::open(Box::new(dev), opts.clone()).unwrap();
        let mut c = db.connect();
        c.execute_batch(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, b INTEGER, c TEXT);
             CREATE INDEX t_b ON t(b); CREATE INDEX t_c ON t(c);
             INSERT INTO t VALUES (1, 1, 'one')",
        )
        .unwrap();
        db.sync().unwrap();
        drop(c);
        drop(db);
        handle.current()
    };
    let workload = |c: &mut tinyjoin_engine::Connection| -> tinyjoin_engine::Result<()> {
        c.execute_batch("BEGIN")?;
        for i in 2..400i64 {
            let params = Params::Positional(vec![
                Value::Integer(i),
                Value::Integer(i % 13),
                Value::Text(format!("{:0>40}", i * 7919 % 1000)),
            ]);
            c.execute("INSERT INTO t VALUES (?, ?, ?)", &params)?;
            if i == 200 {
                c.execute("SELECT count(*) FROM t WHERE b = 3", &Params::None)?;
            }
        }
        c.execute_batch("COMMIT")
    };
    let state = |c: &mut tinyjoin_engine::Connection| {
        [
            "SELECT count(*), sum(id), sum(b) FROM t",
            "SELECT count(*), sum(id) FROM t WHERE b = 5",
            "SELECT count(*), min(id) FROM t WHERE c > '0000000000000000000000000000000000000500'",
        ]
        .iter()
        .map(|q| c.execute(q, &Params::None).unwrap().rows)
        .collect::<Vec<_>>()
    };
    let open = |bytes: Vec<u8>| {
        let (dev, handle) = FaultDevice::new(bytes);
        (Database::open(Box::new(dev), opts.clone()).unwrap(), handle)
    };
    let (before, calls, after) = {
        let (db, handle) = open(base.clone());
        let mut c = db.connect();
        let before = state(&mut c);
        let start = handle.calls();
        workload(&mut c).unwrap();
        let calls = handle.calls() - start;
        (before, calls, state(&mut c))
    };
    assert!(
        calls > 10,
        "the transaction should spill and commit: {calls} calls"
    );
    for n in 1..=calls {
        for kind in [FaultKind::DiskFull, FaultKind::Io] {
            let (db, handle) = open(base.clone());
            handle.fail_at(handle.calls() + n, kind);
            let mut c = db.connect();
            let err = workload(&mut c).expect_err("the failing call must surface");
            assert!(
                matches!(err, Error::DiskFull | Error::Io(_)),
                "call {n}, {kind:?}: {err:?}"
            );
            drop(c);
            drop(db);
            let (db, _) = open(handle.current());
            let report = db.check().unwrap();
            assert!(report.is_ok(), "call {n}, {kind:?}: {:?}", report.problems);
            let got = state(&mut db.connect());
            assert!(
                got == before || got == after,
                "call {n}, {kind:?}: neither the old state nor the new one: {got:?}"
            );
        }
    }
}
